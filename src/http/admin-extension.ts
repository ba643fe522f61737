/**
 * How a module adds routes to the admin API (`/_sim/…`) together with their
 * OpenAPI description, so the admin document is generated from the same
 * place the routes are registered.
 */
import type { Router } from "express";
import type { PathsObject } from "openapi3-ts/oas31";
import type { z } from "zod";

export interface AdminExtension {
  readonly name: string;
  /** Registers the routes on a router mounted at `/_sim` behind the admin token. */
  register(router: Router): void;
}

/** The OpenAPI side of an admin extension, importable without a running simulator. */
export interface AdminExtensionSpec {
  /** Paths relative to the server root, e.g. `/_sim/deliveries`. */
  readonly paths: PathsObject;
  /** Schemas with a `.meta({ id })`, added to `components.schemas`. */
  readonly schemas: readonly z.ZodType[];
}
