/**
 * A failure's steps as the console and HTML reports print them: the
 * requests of the failing run itself, with repeated lookups folded. A model
 * run judged with others on one account looks up their orders too (a
 * balance is the sum of every run's orders), which says nothing about this
 * failure's steps: those lookups are counted, not listed. The JSON report
 * keeps every exchange.
 */
import type { ExchangeRecord } from "../failure-evidence.ts";
import type { FailureStep } from "../report.ts";

export interface FoldedRequest {
  readonly curl: string | undefined;
  /** The last of the folded requests' exchanges: what the lookup said in the end. */
  readonly exchange: ExchangeRecord | undefined;
  /** How many times the same request was sent in the step. */
  readonly times: number;
}

export interface FoldedStep {
  readonly label: string;
  readonly requests: readonly FoldedRequest[];
  /** Lookups of orders this failure's steps never placed (another run's), left out. */
  readonly otherRunsLookups: number;
}

/** The path without its query, split at `/`, each segment decoded. */
function segments(path: string): string[] {
  return (path.split("?")[0] ?? "").split("/").map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  });
}

/**
 * Where this failure's orders were placed and what names them: the paths
 * of its POSTs (a lookup is a GET one segment below), and the text of their
 * bodies and answers (where its references and ids are).
 */
function ownOrders(steps: readonly FailureStep[]): { readonly collections: Set<string>; readonly text: string } {
  const placements = steps.flatMap((step) => step.exchanges).filter((e) => e.request.method === "POST");
  const collections = new Set(placements.map((e) => segments(e.request.path).join("/")));
  const text = placements
    .flatMap((e) => [e.request.body ?? "", e.response.kind === "response" ? e.response.body : ""])
    .join("\n");
  return { collections, text };
}

/** A GET of one order under a collection this failure placed into, whose name none of its placements carry. */
function isOtherRunsLookup(exchange: ExchangeRecord, own: ReturnType<typeof ownOrders>): boolean {
  if (exchange.request.method !== "GET") return false;
  const parts = segments(exchange.request.path);
  const name = parts.pop();
  if (name === undefined || name === "" || !own.collections.has(parts.join("/"))) return false;
  return !own.text.includes(JSON.stringify(name).slice(1, -1));
}

function foldStep(step: FailureStep, own: ReturnType<typeof ownOrders>): FoldedStep {
  // A report assembled by hand may carry curl lines without their exchanges: nothing to judge them by.
  if (step.exchanges.length === 0) {
    return {
      label: step.label,
      requests: step.curl.map((curl) => ({ curl, exchange: undefined, times: 1 })),
      otherRunsLookups: 0,
    };
  }
  const requests: { curl: string | undefined; exchange: ExchangeRecord; times: number }[] = [];
  const lookups = new Map<string, (typeof requests)[number]>();
  let otherRunsLookups = 0;
  step.exchanges.forEach((exchange, i) => {
    if (isOtherRunsLookup(exchange, own)) {
      otherRunsLookups++;
      return;
    }
    const curl = step.curl[i];
    const seen = exchange.request.method === "GET" && curl !== undefined ? lookups.get(curl) : undefined;
    if (seen !== undefined) {
      seen.times++;
      seen.exchange = exchange;
      return;
    }
    const request = { curl, exchange, times: 1 };
    requests.push(request);
    if (exchange.request.method === "GET" && curl !== undefined) lookups.set(curl, request);
  });
  return { label: step.label, requests, otherRunsLookups };
}

/** Each step with only this failure's requests, a lookup sent again folded into its first sending. */
export function foldSteps(steps: readonly FailureStep[]): FoldedStep[] {
  const own = ownOrders(steps);
  return steps.map((step) => foldStep(step, own));
}

/** The line standing for the lookups left out, or undefined when there are none. */
export function otherRunsLine(step: FoldedStep): string | undefined {
  const count = step.otherRunsLookups;
  if (count === 0) return undefined;
  return `(${count} lookup${count === 1 ? "" : "s"} of orders other runs placed on the same account, left out; the JSON report has them)`;
}
