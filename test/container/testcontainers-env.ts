/**
 * The environment a Testcontainers user sets on a machine with podman: the
 * Docker-compatible socket global-setup.ts serves, and no Ryuk reaper (its
 * image comes from a registry this suite does not reach; each test stops
 * its own containers). The example reads the image from
 * AIRTIME_HARNESS_IMAGE, here the one just built.
 */
import { inject } from "vitest";

process.env.DOCKER_HOST = inject("dockerHost");
process.env.TESTCONTAINERS_RYUK_DISABLED = "true";
process.env.AIRTIME_HARNESS_IMAGE = inject("image");
