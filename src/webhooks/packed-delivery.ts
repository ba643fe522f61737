/**
 * A finished delivery as the memory delivery store keeps it once it is
 * cold: the fields its listings filter and page on, and the rest of the
 * delivery with its attempts packed (the attempts repeat the delivery's ids
 * and body, which the packing stores once).
 */
import { createRecordPacker } from "../store/record-packer.ts";
import type { Delivery, DeliveryAttempt, DeliveryState } from "./ports.ts";

interface DeliveryRecord {
  readonly delivery: Delivery;
  readonly attempts: readonly DeliveryAttempt[];
}
/** What is packed: the delivery's fields, then its attempts. */
type PackedFields = Delivery & Pick<DeliveryRecord, "attempts">;

const BODY =
  '{"type":"airtime.status","id":"ord_00000000000000000000","reference":"ref-0000","status":20,"message":"Success","final":true,"service":"safaricom","account":"+254712345678","amount":100,"balance":99900,"currency":"KES","shortcode":null,"timestamp":"2026-01-01T00:00:00.000Z"}';

/**
 * The dictionary's sample: a typical delivered webhook with its one attempt,
 * its fields in the order the dispatcher writes them (matches in the
 * dictionary run longer that way: a quarter of the size, measured).
 */
const SAMPLE: DeliveryRecord = {
  delivery: {
    messageId: "msg_00000000000000000000",
    kind: "status",
    customerId: "demo",
    orderId: "ord_00000000000000000000",
    reference: "ref-0000",
    status: 20,
    final: true,
    body: BODY,
    createdAt: 1_795_000_000_000,
    badSignature: false,
    state: "delivered",
    id: "dlv_00000000000000000000",
    nextAttemptAt: null,
    nextJobId: null,
    scheduleIndex: 0,
    attemptCount: 1,
    deliveredAt: 1_795_000_000_000,
  },
  attempts: [
    {
      deliveryId: "dlv_00000000000000000000",
      messageId: "msg_00000000000000000000",
      customerId: "demo",
      orderId: "ord_00000000000000000000",
      reference: "ref-0000",
      number: 1,
      trigger: "schedule",
      scheduledAt: 1_795_000_000_000,
      sentAt: 1_795_000_000_000,
      sentAtWall: 1_795_000_000_000,
      url: "http://127.0.0.1:8080/webhooks/airtime",
      requestHeaders: {
        "content-type": "application/json",
        "user-agent": "airtime-harness-webhooks/1",
        "webhook-id": "msg_00000000000000000000",
        "webhook-timestamp": "1795000000",
        "webhook-signature": "v1,00000000000000000000000000000000000000000000",
      },
      requestBody: BODY,
      responseStatus: 200,
      error: null,
      latencyMs: 1,
      outcome: "delivered",
    },
  ],
};

/**
 * Attempt fields that repeat their delivery's (its ids, reference and the
 * body sent): packed as 0, which no such field holds, and restored from the
 * delivery. Half the text to deflate, and deflating is most of the cost.
 */
const SHARED_FIELDS = [
  ["deliveryId", "id"],
  ["messageId", "messageId"],
  ["customerId", "customerId"],
  ["orderId", "orderId"],
  ["reference", "reference"],
  ["requestBody", "body"],
] as const satisfies readonly (readonly [keyof DeliveryAttempt, keyof Delivery])[];

function slim({ delivery, attempts }: DeliveryRecord): PackedFields {
  return {
    ...delivery,
    attempts: attempts.map((attempt) => {
      const copy: Record<string, unknown> = { ...attempt };
      for (const [field, from] of SHARED_FIELDS) if (attempt[field] === delivery[from]) copy[field] = 0;
      return copy as unknown as DeliveryAttempt;
    }),
  };
}

function restored({ attempts, ...delivery }: PackedFields): DeliveryRecord {
  return {
    delivery: Object.freeze(delivery),
    attempts: Object.freeze(
      attempts.map((attempt) => {
        const copy: Record<string, unknown> = { ...attempt };
        for (const [field, from] of SHARED_FIELDS) if (copy[field] === 0) copy[field] = delivery[from];
        return Object.freeze(copy) as unknown as DeliveryAttempt;
      }),
    ),
  };
}

const packer = createRecordPacker(slim(SAMPLE), ["id", "customerId", "orderId", "reference", "state", "createdAt"]);

export class PackedDelivery {
  readonly id: string;
  readonly customerId: string;
  readonly orderId: string;
  readonly reference: string;
  readonly state: DeliveryState;
  readonly createdAt: number;
  private readonly packed: string;

  constructor(delivery: Delivery, attempts: readonly DeliveryAttempt[]) {
    this.id = delivery.id;
    this.customerId = delivery.customerId;
    this.orderId = delivery.orderId;
    this.reference = delivery.reference;
    this.state = delivery.state;
    this.createdAt = delivery.createdAt;
    this.packed = packer.pack(slim({ delivery, attempts }));
  }

  unpack(): DeliveryRecord {
    return restored(packer.unpack(this.packed, this));
  }
}
