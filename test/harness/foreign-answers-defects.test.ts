/**
 * The foreign provider's planted defects against the rule that answers carry
 * the stated statuses, codes and fields (§3 rule 1, §7): each caught by the
 * check it breaks, over five seeds (foreign/contract-runs.ts).
 */
import { describeForeignDefectsCaught } from "./foreign/contract-runs.ts";

describeForeignDefectsCaught("answers");
