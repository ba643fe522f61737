// airtime-events.js
const SUCCESS = 20;
const REVERSED = 8;

// Message ids already handled. In production: a table with a unique key on the id.
const handled = new Set();

/** Applies a verified event once, however often its message arrives. */
export async function handleAirtimeEvent(webhookId, event) {
  if (handled.has(webhookId)) return; // a retry or a duplicate: already done
  if (!event.final) return; // intermediate statuses, when enabled, change nothing
  if (event.status === SUCCESS) await record(event, "delivered");
  else if (event.status === REVERSED) await record(event, "reversed");
  else await record(event, "failed"); // Failed, Timeout, Insufficient balance, …: refunded
  handled.add(webhookId);
}

async function record(event, outcome) {
  // Your database update goes here.
  console.log(`${event.reference}: ${event.status} ${event.message} → ${outcome}`);
}
