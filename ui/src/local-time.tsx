/**
 * A simulator time as the reader's wall clock shows it, with its zone named,
 * and the UTC time on hover: orders, webhooks and the clock are stored in
 * UTC, but people read times in their own zone.
 */

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/** Built once: a formatter costs far more than a format, and a table shows a thousand times. */
const zoneFormat = new Intl.DateTimeFormat(undefined, { timeZoneName: "short" });

/** The short name of the reader's zone at that moment ("GMT+3", "CET", "UTC"). */
function zoneName(at: Date): string {
  const part = zoneFormat.formatToParts(at).find((p) => p.type === "timeZoneName");
  return part?.value ?? "local";
}

/** `2026-11-29 13:45:07.123 GMT+3`: the local wall clock, to the millisecond. */
function localTime(at: Date): string {
  const date = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
  const clock = `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}.${pad(at.getMilliseconds(), 3)}`;
  return `${date} ${clock} ${zoneName(at)}`;
}

/** `2026-11-29 10:45:07.123 UTC` */
const utcTime = (at: Date): string => `${at.toISOString().replace("T", " ").slice(0, 23)} UTC`;

/** A time (ISO string or epoch ms) in the local zone, UTC in its title; a dash when there is none. */
export function LocalTime(props: { at: string | number | null | undefined }) {
  if (props.at == null) return <span>—</span>;
  const at = new Date(props.at);
  if (Number.isNaN(at.getTime())) return <span>—</span>;
  return (
    <time dateTime={at.toISOString()} title={utcTime(at)}>
      {localTime(at)}
    </time>
  );
}
