/**
 * How a module adds routes to the admin API (`/_sim/…`) together with their
 * OpenAPI description, so the admin document is generated from the same
 * place the routes are registered.
 */
import type { PathsObject } from "openapi3-ts/oas31";
import type { z } from "zod";

/**
 * An express handler or middleware. Its request and response are express's,
 * left untyped here so the package's types do not make every user install
 * `@types/express`; an extension that has it declares `register(router: Router)`
 * with express's `Router` and gets the full types.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AdminHandler = (req: any, res: any, next: (error?: unknown) => void) => unknown;

/** The express Router an extension registers on, by the methods extensions use. */
export interface AdminRouter {
  get(path: string, ...handlers: AdminHandler[]): unknown;
  post(path: string, ...handlers: AdminHandler[]): unknown;
  all(path: string, ...handlers: AdminHandler[]): unknown;
}

export interface AdminExtension {
  readonly name: string;
  /** Registers the routes on a router mounted at `/_sim` behind the admin token. */
  register(router: AdminRouter): void;
}

/** The OpenAPI side of an admin extension, importable without a running simulator. */
export interface AdminExtensionSpec {
  /** Paths relative to the server root, e.g. `/_sim/deliveries`. */
  readonly paths: PathsObject;
  /** Schemas with a `.meta({ id })`, added to `components.schemas`. */
  readonly schemas: readonly z.ZodType[];
}
