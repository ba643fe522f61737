/**
 * `tsx bench/validation.ts`: what validating a send-airtime body costs, zod
 * (the schema the route declares, `safeParse`) against ajv compiled from the
 * same schema's JSON Schema. The answer decides what the public pipeline
 * validates with (see `src/http/place-order.ts`).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { z } from "zod";
import { DEFAULT_ORDER_LIMITS } from "../src/contract/public-schemas.ts";
import { sendAirtimeRoute } from "../src/contract/routes/public-routes.ts";
import { jsonBodySchema } from "../src/contract/routes/route.ts";

const schema = jsonBodySchema(sendAirtimeRoute(DEFAULT_ORDER_LIMITS));
const validate = new Ajv2020({ strict: false, allErrors: false }).compile(
  z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" }),
);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 300_000);

/** Fresh bodies, as JSON.parse hands them over: one object per request. */
const bodies = Array.from(
  { length: 1024 },
  (_, i) =>
    JSON.parse(
      JSON.stringify({
        account: "0712345678",
        amount: 100,
        currency: "KES",
        reference: `ORDER-${i}`,
        idempotencyKey: `k-${i}`,
      }),
    ) as unknown,
);

function time(name: string, run: (body: unknown) => boolean): void {
  for (let i = 0; i < 50_000; i++) run(bodies[i & 1023]); // warm-up: let the JIT settle
  const started = process.hrtime.bigint();
  let ok = 0;
  for (let i = 0; i < ITERATIONS; i++) if (run(bodies[i & 1023])) ok++;
  const ns = Number(process.hrtime.bigint() - started) / ITERATIONS;
  console.log(`${name.padEnd(34)} ${ns.toFixed(0).padStart(6)} ns per valid body (${ok} valid)`);
}

time("zod safeParse", (body) => schema.safeParse(body).success);
time("ajv compiled (JSON Schema only)", (body) => validate(body));
time("ajv, then zod for the typed output", (body) => validate(body) && schema.safeParse(body).success);
