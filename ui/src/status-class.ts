/**
 * A status's class (pending, success, failed), which the page colours by.
 * The default status table is the one source; a code a custom
 * `--status-profile` adds beyond it is shown uncoloured.
 */
import { DEFAULT_STATUS_TABLE } from "../../src/contract/status-codes.ts";

export const statusClass = (code: number): string => DEFAULT_STATUS_TABLE.get(code)?.class ?? "";
