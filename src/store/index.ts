/**
 * The embedded adapters and the one-call wiring of the domain on them.
 */

// The whole domain, wired
export { createEmbeddedDomain, type EmbeddedDomain, type EmbeddedDomainOptions } from "./embedded-domain.ts";
// The embedded adapters
export { createMemoryStore } from "./memory-store.ts";
export { createTimeKeeper, type ManualClock, type TimeKeeper, type TimeKeeperOptions } from "./memory-time.ts";
