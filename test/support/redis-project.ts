/**
 * Setup of the `redis` test project: the file's `redis-server` stops after
 * its tests (see `test-store.ts`).
 */
import { afterAll } from "vitest";
import { stopTestStore } from "./test-store.ts";

afterAll(stopTestStore);
