/**
 * One Scheduler over two: the job types named go to `shared` (on Redis, run
 * by whichever process claims them), every other to `local` (this process's
 * own). The lifecycle's steps and webhook attempts are shared, so a survivor
 * finishes the orders of a process that died and makes its attempts.
 */
import type { Scheduler } from "../domain/ports.ts";

export function createRoutedScheduler(
  local: Scheduler,
  shared: Scheduler,
  sharedTypes: ReadonlySet<string>,
): Scheduler {
  const route = (type: string): Scheduler => (sharedTypes.has(type) ? shared : local);
  return {
    handle: (type, handler) => route(type).handle(type, handler),
    schedule: (job) => route(job.type).schedule(job),
    async cancel(jobId) {
      return (await local.cancel(jobId)) || shared.cancel(jobId);
    },
    async size() {
      return (await local.size()) + (await shared.size());
    },
    track: (work, horizon) => local.track(work, horizon),
  };
}
