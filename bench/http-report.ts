/**
 * What the HTTP comparison leaves behind: a small SVG bar chart
 * (`docs/performance-http.svg`) and the table between the markers of
 * `docs/performance.md`. Hand-written SVG: a dozen bars need no plotting
 * library.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { ENDPOINT_LABELS, ENDPOINTS, type Endpoint } from "./requests.ts";

export interface ServerSummary {
  readonly name: string;
  /** Median req/s per endpoint; undefined when the server was not measured. */
  readonly rps: Partial<Record<Endpoint, number>>;
  readonly p99Ms: Partial<Record<Endpoint, number>>;
  readonly cpuUs: Partial<Record<Endpoint, number>>;
}

const COLOURS = ["#1f6feb", "#8250df", "#2da44e", "#bf8700"];

const escapeXml = (text: string): string =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

export function renderSvg(servers: readonly ServerSummary[], caption: string): string {
  const width = 720;
  const height = 320;
  const left = 60;
  const bottom = 250;
  const top = 40;
  const max = Math.max(1, ...servers.flatMap((s) => ENDPOINTS.map((e) => s.rps[e] ?? 0)));
  const groupWidth = (width - left - 20) / ENDPOINTS.length;
  const barWidth = (groupWidth - 30) / servers.length;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${left}" y="20" font-size="14">${escapeXml(caption)}</text>`,
    `<line x1="${left}" y1="${bottom}" x2="${width - 20}" y2="${bottom}" stroke="#333"/>`,
  ];
  for (let tick = 0; tick <= 4; tick++) {
    const value = (max * tick) / 4;
    const y = bottom - ((bottom - top) * tick) / 4;
    parts.push(
      `<line x1="${left}" y1="${y}" x2="${width - 20}" y2="${y}" stroke="#ddd"/>`,
      `<text x="${left - 6}" y="${y + 4}" text-anchor="end">${Math.round(value / 1000)}k</text>`,
    );
  }
  ENDPOINTS.forEach((endpoint, g) => {
    const x0 = left + g * groupWidth + 15;
    servers.forEach((server, i) => {
      const value = server.rps[endpoint];
      if (value === undefined) return;
      const h = ((bottom - top) * value) / max;
      const x = x0 + i * barWidth;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${(bottom - h).toFixed(1)}" width="${(barWidth - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${COLOURS[i % COLOURS.length]}"><title>${escapeXml(`${server.name}: ${Math.round(value)} req/s`)}</title></rect>`,
      );
    });
    parts.push(
      `<text x="${(x0 + (groupWidth - 30) / 2).toFixed(1)}" y="${bottom + 18}" text-anchor="middle">${escapeXml(ENDPOINT_LABELS[endpoint])}</text>`,
    );
  });
  servers.forEach((server, i) => {
    const x = left + i * 150;
    parts.push(
      `<rect x="${x}" y="${height - 30}" width="12" height="12" fill="${COLOURS[i % COLOURS.length]}"/>`,
      `<text x="${x + 18}" y="${height - 20}">${escapeXml(server.name)}</text>`,
    );
  });
  parts.push(
    `<text x="14" y="${(top + bottom) / 2}" transform="rotate(-90 14 ${(top + bottom) / 2})" text-anchor="middle">req/s (median of rounds)</text>`,
  );
  parts.push("</svg>", "");
  return parts.join("\n");
}

const fmt = (value: number | undefined, digits = 0): string =>
  value === undefined
    ? "—"
    : value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function renderTable(servers: readonly ServerSummary[]): string {
  const lines = [
    "| server | " + ENDPOINTS.map((e) => `${ENDPOINT_LABELS[e]} req/s (p99 ms, cpu µs/req)`).join(" | ") + " |",
    "|---|" + ENDPOINTS.map(() => "---").join("|") + "|",
  ];
  for (const server of servers) {
    const cells = ENDPOINTS.map((e) =>
      server.rps[e] === undefined ? "—" : `${fmt(server.rps[e])} (${fmt(server.p99Ms[e], 1)}, ${fmt(server.cpuUs[e])})`,
    );
    lines.push(`| ${server.name} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

const START = "<!-- bench:http:start -->";
const END = "<!-- bench:http:end -->";

/** Replaces what lies between the markers of `file` with `content`. */
export function writeBetweenMarkers(file: string, content: string): void {
  const text = readFileSync(file, "utf8");
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${file} has no ${START} … ${END} section`);
  writeFileSync(file, `${text.slice(0, start + START.length)}\n\n${content}\n\n${text.slice(end)}`);
}
