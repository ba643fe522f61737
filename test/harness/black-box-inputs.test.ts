/**
 * Against black-box targets (real clock, no admin powers): inputs, headers
 * and envelopes. A handler that crashes on a non-string `name`, replays
 * without `Idempotent-Replayed` and a 402 that carries an `id` are each
 * caught by the right check, by name, within the default run count, over
 * five seeds. (A path that is not percent-decoded is spec-defects.test.ts's.)
 */
import { describeCaughtOverSeeds } from "./black-box-catch.ts";

describeCaughtOverSeeds(["crash_on_non_string_name", "no_replayed_header", "id_on_insufficient_balance"]);
