/**
 * Expected against actual as a line diff of their pretty-printed JSON (keys
 * sorted, so only real differences show), rendered as `<del>`/`<ins>` lines.
 */
import { diffJson } from "diff";
import type { FailureDiff } from "../failure-evidence.ts";
import { type Html, markup } from "../../report/markup.ts";

export function renderJsonDiff(diff: FailureDiff): Html {
  const changes = diffJson(asDiffable(diff.expected), asDiffable(diff.actual));
  const lines = changes.flatMap((change) =>
    change.value
      .replace(/\n$/, "")
      .split("\n")
      .map((line) =>
        change.added
          ? markup`<ins class="diff-line"><span class="diff-mark" aria-hidden="true">+</span>${line}</ins>`
          : change.removed
            ? markup`<del class="diff-line"><span class="diff-mark" aria-hidden="true">−</span>${line}</del>`
            : markup`<span class="diff-line"><span class="diff-mark" aria-hidden="true"> </span>${line}</span>`,
      ),
  );
  return markup`<figure class="diff">
  <figcaption>
    <span class="legend-remove">− expected: ${diff.expectedLabel}</span>
    <span class="legend-add">+ actual: ${diff.actualLabel}</span>
  </figcaption>
  <pre tabindex="0">${lines}</pre>
</figure>`;
}

/** `diffJson` takes objects, or text it treats as already serialized. */
function asDiffable(value: unknown): string | object {
  if (typeof value === "object" && value !== null) return value;
  return `${JSON.stringify(value, null, 2) ?? "(nothing)"}\n`;
}
