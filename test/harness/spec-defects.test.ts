/**
 * A deployment that follows our spec, judged whole under `strict`: a status
 * worded other than our table words it (6 reads "Failed", not "Timeout"), a
 * key whose fingerprint takes the account as written (a retry writing the
 * same number another way gets 409), a reversal refunded without its webhook
 * — each caught by the right check over five seeds. (A lookup that does not
 * percent-decode the reference is black-box-inputs.test.ts's.)
 */
import { describeCaughtOverSeeds } from "./black-box-catch.ts";

describeCaughtOverSeeds(["timeout_message_failed", "account_fingerprinted_as_written", "reversal_without_webhook"]);
