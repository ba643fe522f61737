/**
 * The foreign provider's planted defects against the rule that failed,
 * timed-out and reversed orders are refunded once, and the balance is
 * current (§4.3): each caught by the check it breaks, over five seeds
 * (foreign/contract-runs.ts).
 */
import { describeForeignDefectsCaught } from "./foreign/contract-runs.ts";

describeForeignDefectsCaught("money");
