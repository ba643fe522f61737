// airtime-events.js
const SUCCESS = 20;
const REVERSED = 8;

// In production: tables in your database. Here: what the app believes about each
// order, by reference, and the message ids already handled.
const orders = new Map();
const handled = new Set();

/** Applies a verified event once, however often its message arrives. */
export async function handleAirtimeEvent(webhookId, event) {
  // The check and both writes run with no await between them: in production, one transaction.
  if (handled.has(webhookId)) return; // a retry or a duplicate: already done
  if (event.final) applyFinal(event); // intermediate statuses, when enabled, change nothing
  handled.add(webhookId);
}

function applyFinal(event) {
  const current = orders.get(event.reference);
  // A final status only ever moves from Success to Reversed: a Success arriving late changes nothing.
  if (current?.status === REVERSED) return;
  const outcome = event.status === SUCCESS ? "delivered" : event.status === REVERSED ? "reversed" : "failed";
  // Your database update goes here; `applied` counts the updates made for the order.
  orders.set(event.reference, { status: event.status, outcome, applied: (current?.applied ?? 0) + 1 });
  console.log(`${event.reference}: ${event.status} ${event.message} → ${outcome}`);
}

/** What the app believes about an order: its status, the outcome and how many updates it made. */
export function orderState(reference) {
  return orders.get(reference);
}
