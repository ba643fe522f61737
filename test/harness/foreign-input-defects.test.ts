/**
 * The foreign provider's planted defects against the rule that invalid input
 * is refused, valid input at its bounds accepted, never with a 5xx (§2.1,
 * §8): each caught by the check it breaks, over five seeds
 * (foreign/contract-runs.ts).
 */
import { describeForeignDefectsCaught } from "./foreign/contract-runs.ts";

describeForeignDefectsCaught("input");
