/**
 * The foreign provider's planted defects against the rule that a customer
 * acts only with its own token and sees only its own orders and keys (§5):
 * each caught by the check it breaks, over five seeds (foreign/contract-
 * runs.ts).
 */
import { describeForeignDefectsCaught } from "./foreign/contract-runs.ts";

describeForeignDefectsCaught("access");
