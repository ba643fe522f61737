/**
 * A tagged template that escapes every interpolated value unless it is
 * already markup built by the same tag, so text from the target (untrusted:
 * bodies, headers, messages) can only ever reach the page as text. Not named
 * `html`: the formatter would reflow the markup, whitespace in `<pre>` too.
 */

/** Markup made by `markup`, safe to interpolate as is. */
export class Html {
  constructor(readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}

type Value = Html | string | number | boolean | undefined | null | readonly Value[];

/**
 * @example
 * markup`<td>${"<script>"}</td>`.markup; // "<td>&lt;script&gt;</td>"
 */
export function markup(strings: TemplateStringsArray, ...values: readonly Value[]): Html {
  let out = strings[0] ?? "";
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? "");
  });
  return new Html(out);
}

function render(value: Value): string {
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === undefined || value === null || value === false) return "";
  return escapeHtml(String(value));
}

/** Text for an element or a quoted attribute; control characters (never meaningful in a report) are dropped. */
export function escapeHtml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/**
 * Text that may carry inline markdown code spans (descriptions and
 * messages say `status` or `code`): each span becomes `<code>`, everything
 * else stays escaped text, so no raw backtick reaches the page.
 *
 * @example
 * inlineCode("the problem's `code`").markup; // "the problem&#39;s <code>code</code>"
 */
export function inlineCode(text: string): Html {
  const parts = text.split(/`([^`]+)`/);
  return new Html(
    parts.map((part, index) => (index % 2 === 1 ? `<code>${escapeHtml(part)}</code>` : escapeHtml(part))).join(""),
  );
}
