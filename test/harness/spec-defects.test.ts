/**
 * A deployment that follows our spec, judged whole under `strict`: a status
 * worded other than our table words it (6 reads "Failed", not "Timeout"), a
 * key whose fingerprint takes the account as written (a retry writing the
 * same number another way gets 409), a reversal refunded without its webhook
 * and a lookup that does not percent-decode the reference, so a placed order
 * is never found — each caught by the right check over five seeds. The
 * undecoded lookup is judged within the run's own final timeout (30 s by
 * default), never polled for ever: each run ends inside the test's limit.
 */
import { describeCaughtOverSeeds } from "./black-box-catch.ts";

describeCaughtOverSeeds([
  "timeout_message_failed",
  "account_fingerprinted_as_written",
  "reversal_without_webhook",
  "path_not_decoded",
]);
