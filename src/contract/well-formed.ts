/**
 * Well-formed Unicode for every string the APIs take: a lone surrogate (a
 * JSON escape such as `"\ud800x"`) would be stored and echoed, but it has no
 * UTF-8 form, so it could never be sent back in a URL or matched again.
 * A refinement on the schema itself, so validation, the generated test data
 * (filtered through the schemas) and the documentation speak of one rule.
 */
import type { z } from "zod";

const WELL_FORMED_RULE = "must be well-formed Unicode (no lone surrogate)";

/** Node ≥ 20 has it; TypeScript's ES2023 library does not declare it yet. */
function isWellFormed(value: string): boolean {
  return (value as string & { isWellFormed(): boolean }).isWellFormed();
}

/** `schema`, also refusing strings that are not well-formed Unicode. */
export function wellFormed<S extends z.ZodString>(schema: S): S {
  return schema.refine(isWellFormed, WELL_FORMED_RULE) as S;
}
