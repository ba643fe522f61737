/**
 * The foreign provider's planted defects against the rule that a retry with
 * its key answers the same order and never debits twice (§3 rule 2, §4.4):
 * each caught by the check it breaks, over five seeds (foreign/contract-
 * runs.ts).
 */
import { describeForeignDefectsCaught } from "./foreign/contract-runs.ts";

describeForeignDefectsCaught("idempotency");
