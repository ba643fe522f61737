/**
 * The foreign provider's planted defects against the rule that final
 * statuses stay final and reach their webhooks as the lookup reads them (§3
 * rule 3): each caught by the check it breaks, over five seeds
 * (foreign/contract-runs.ts).
 */
import { describeForeignDefectsCaught } from "./foreign/contract-runs.ts";

describeForeignDefectsCaught("webhooks");
