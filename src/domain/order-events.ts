/**
 * A fan-out for status changes. The service needs its `events` when it is
 * built, while listeners (webhooks, test probes) often need the service
 * first; the bus breaks that cycle: build the bus, the service, then subscribe.
 */
import type { OrderEvents, StatusChange } from "./service-types.ts";

export interface OrderEventBus {
  /** Pass this as the service's `events`. */
  readonly events: OrderEvents;
  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: OrderEvents): () => void;
}

/**
 * Listeners run one after another in subscription order, each awaited, so a
 * listener sees changes in the order they were stored. A throwing listener
 * does not stop the others; the first error is rethrown after all have run.
 *
 * @example
 * const bus = createOrderEventBus();
 * const service = createAirtimeService({ ...ports, events: bus.events });
 * const unsubscribe = bus.subscribe({ statusChanged: async (change) => console.log(change.order.status) });
 */
export function createOrderEventBus(): OrderEventBus {
  // Copied on subscribe and unsubscribe rather than on every change: a change iterates the array it
  // started with, whoever subscribes meanwhile.
  let listeners: readonly OrderEvents[] = [];
  return {
    events: {
      async statusChanged(change: StatusChange) {
        let failure: { error: unknown } | undefined;
        for (const listener of listeners) {
          try {
            await listener.statusChanged(change);
          } catch (error) {
            failure ??= { error };
          }
        }
        if (failure !== undefined) throw failure.error;
      },
    },
    subscribe(listener) {
      // A Set's semantics: subscribing twice keeps one entry, removed by either unsubscribe.
      if (!listeners.includes(listener)) listeners = [...listeners, listener];
      return () => {
        listeners = listeners.filter((candidate) => candidate !== listener);
      };
    },
  };
}
