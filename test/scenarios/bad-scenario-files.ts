/**
 * Scenario files the loader rejects, each with the path and the message it
 * reports: the loader's tests check the messages, and the JSON Schema's test
 * runs the same files through the published schema.
 */

/** A one-rule scenario around the given rule body (YAML lines indented under `- `). */
export function oneRule(rule: string): string {
  return `name: broken\ndescription: a broken scenario\nrules:\n  - name: only\n${rule
    .trim()
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n")}\n`;
}

export const BAD_SCENARIO_FILES: readonly {
  readonly case: string;
  readonly text: string;
  readonly path: string;
  readonly message: string;
}[] = [
  {
    case: "no name",
    text: "description: d\nrules:\n  - {name: a, effects: {stuckPending: true}}\n",
    path: "name",
    message: "is required",
  },
  {
    case: "a name with spaces",
    text: oneRule("effects: {stuckPending: true}").replace("name: broken", "name: Flaky Gateway!"),
    path: "name",
    message: "must be 1–64 letters",
  },
  { case: "no rules", text: "name: x\ndescription: d\nrules: []\n", path: "rules", message: ">=1" },
  {
    case: "an unknown top-level key",
    text: "name: x\ndescription: d\nrulez: []\nrules:\n  - {name: a, effects: {stuckPending: true}}\n",
    path: "(root)",
    message: 'Unrecognized key: "rulez"',
  },
  { case: "a list instead of a scenario", text: "- name: x\n", path: "(root)", message: "expected object" },
  {
    case: "an HTTP status not offered",
    text: oneRule("effects:\n  httpError: {status: 404, when: before_commit}"),
    path: "rules[0].effects.httpError.status",
    message: "must be 429, 500, 502 or 503",
  },
  {
    case: "an httpError without when",
    text: oneRule("effects:\n  httpError: {status: 503}"),
    path: "rules[0].effects.httpError.when",
    message: "is required: before_commit",
  },
  {
    case: "Retry-After on a 500",
    text: oneRule("effects:\n  httpError: {status: 500, retryAfter: 5, when: before_commit}"),
    path: "rules[0].effects.httpError.retryAfter",
    message: "only sent with 429 or 503",
  },
  {
    case: "a latency that is no duration",
    text: oneRule("effects: {latency: soon}"),
    path: "rules[0].effects.latency",
    message: '"soon" is not a duration',
  },
  {
    case: "a latency in words",
    text: oneRule("effects: {latency: 2 seconds}"),
    path: "rules[0].effects.latency",
    message: '"2 seconds" is not a duration',
  },
  {
    case: "a number as latency",
    text: oneRule("effects: {latency: 250}"),
    path: "rules[0].effects.latency",
    message: "must be a timing",
  },
  {
    case: "a uniform range upside down",
    text: oneRule("effects: {latency: {kind: uniform, minMs: 500, maxMs: 100}}"),
    path: "rules[0].effects.latency.maxMs",
    message: "minMs must not exceed maxMs",
  },
  {
    case: "an unknown timing kind",
    text: oneRule("effects: {latency: {kind: gaussian, ms: 5}}"),
    path: "rules[0].effects.latency.kind",
    message: "Invalid discriminator value",
  },
  {
    case: "an unknown account matcher",
    text: oneRule("match: {account: {exakt: '0712345678'}}\neffects: {stuckPending: true}"),
    path: "rules[0].match.account",
    message: "must be one of {exact: NUMBER}, {prefix: DIGITS}, {regex: PATTERN}",
  },
  {
    case: "an exact account that is no Kenyan mobile",
    text: oneRule("match: {account: {exact: '12345'}}\neffects: {stuckPending: true}"),
    path: "rules[0].match.account.exact",
    message: "must be a Kenyan mobile number",
  },
  {
    case: "a prefix with letters",
    text: oneRule("match: {account: {prefix: '07x'}}\neffects: {stuckPending: true}"),
    path: "rules[0].match.account.prefix",
    message: "must be digits",
  },
  {
    case: "a reference pattern that does not compile",
    text: oneRule("match: {reference: '(['}\neffects: {stuckPending: true}"),
    path: "rules[0].match.reference",
    message: "is not a valid regular expression",
  },
  {
    case: "attempt and firstN together",
    text: oneRule("match: {attempt: 2, firstN: 3}\neffects: {stuckPending: true}"),
    path: "rules[0].match.firstN",
    message: "attempt and firstN cannot be combined",
  },
  {
    case: "a probability above 1",
    text: oneRule("match: {probability: 1.5}\neffects: {stuckPending: true}"),
    path: "rules[0].match.probability",
    message: "<=1",
  },
  {
    case: "an amount range upside down",
    text: oneRule("match: {amount: {min: 500, max: 100}}\neffects: {stuckPending: true}"),
    path: "rules[0].match.amount.max",
    message: "min must not be greater than max",
  },
  {
    case: "an unknown service",
    text: oneRule("match: {service: vodafone}\neffects: {stuckPending: true}"),
    path: "rules[0].match.service",
    message: 'expected one of "safaricom"|"airtel"',
  },
  {
    case: "a header matcher without a value",
    text: oneRule("match: {header: {name: X-Test}}\neffects: {stuckPending: true}"),
    path: "rules[0].match.header",
    message: "needs exactly one of equals or matches",
  },
  { case: "no effects", text: oneRule("effects: {}"), path: "rules[0].effects", message: "needs at least one effect" },
  {
    case: "only an effect switched off",
    text: oneRule("effects: {stuckPending: false}"),
    path: "rules[0].effects",
    message: "needs at least one effect",
  },
  {
    case: "a misspelt effect",
    text: oneRule("effects: {latnecy: 2s}"),
    path: "rules[0].effects",
    message: 'Unrecognized key: "latnecy"',
  },
  {
    case: "two outcomes",
    text: oneRule("effects: {outcome: {status: 20}, stuckPending: true}"),
    path: "rules[0].effects.stuckPending",
    message: "cannot be combined with outcome",
  },
  {
    case: "a reversal of a stuck order",
    text: oneRule("effects: {stuckPending: true, reverseAfter: 5s}"),
    path: "rules[0].effects.reverseAfter",
    message: "only a successful order can be reversed",
  },
  {
    case: "an error and a drop at one point",
    text: oneRule("effects:\n  httpError: {status: 503, when: after_commit}\n  dropResponse: {when: after_commit}"),
    path: "rules[0].effects.dropResponse.when",
    message: "a response can fail only one way",
  },
  {
    case: "a status the table lacks",
    text: oneRule("effects: {outcome: {status: 99}}"),
    path: "rules[0].effects.outcome.status",
    message: "status 99 is not in the status table",
  },
  {
    case: "an outcome of 0",
    text: oneRule("effects: {outcome: {status: 0}}"),
    path: "rules[0].effects.outcome.status",
    message: "use stuckPending: true instead",
  },
  {
    case: "a path leaving a final status",
    text: oneRule("effects:\n  path:\n    - {status: 20, after: 1s}\n    - {status: 3, after: 1s}"),
    path: "rules[0].effects.path[1].status",
    message: "3 cannot follow 20",
  },
  {
    case: "a reversal of a failure",
    text: oneRule("effects: {outcome: {status: 2}, reverseAfter: 5s}"),
    path: "rules[0].effects.outcome.status",
    message: "status 2 is not a success",
  },
  {
    case: "an empty webhook effect",
    text: oneRule("effects: {webhook: {}}"),
    path: "rules[0].effects.webhook",
    message: "needs at least one of delay, duplicate",
  },
  {
    case: "zero duplicates",
    text: oneRule("effects: {webhook: {duplicate: 0}}"),
    path: "rules[0].effects.webhook.duplicate",
    message: ">=1",
  },
  {
    case: "two rules with one name",
    text: "name: x\ndescription: d\nrules:\n  - {name: a, effects: {stuckPending: true}}\n  - {name: a, effects: {stuckPending: true}}\n",
    path: "rules[1].name",
    message: "duplicate rule name 'a' (also rules[0])",
  },
  { case: "broken YAML", text: "name: x\ndescription: [unclosed\n", path: "(yaml)", message: "" },
  {
    case: "a YAML key twice",
    text: "name: x\nname: y\ndescription: d\nrules: []\n",
    path: "(yaml)",
    message: "Map keys must be unique",
  },
];
