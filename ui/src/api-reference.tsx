/**
 * The public API's reference: `openapi.json` rendered by Redoc's standalone
 * bundle (served with the page, about 1.1 MB, so it is fetched only when
 * this tab first opens), with a "try it" form beside it since Redoc has none.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { TryIt, type Spec } from "./try-it.tsx";

interface RedocGlobal {
  init(spec: unknown, options: Record<string, unknown>, element: HTMLElement, done?: (error?: unknown) => void): void;
}

/** Vite's `base`: the page itself is `/_sim/ui` with no slash, so relative URLs would miss it. */
const BASE = "/_sim/ui/";

let redocLoaded: Promise<RedocGlobal> | undefined;

/** Adds Redoc's script once per page; a later visit to the tab reuses it. */
function loadRedoc(): Promise<RedocGlobal> {
  redocLoaded ??= new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = `${BASE}redoc.standalone.js`;
    script.onload = () => resolve((globalThis as unknown as { Redoc: RedocGlobal }).Redoc);
    script.onerror = () => ((redocLoaded = undefined), reject(new Error("Redoc did not load")));
    document.head.append(script);
  });
  return redocLoaded;
}

export function ApiReferenceView() {
  const target = useRef<HTMLDivElement>(null);
  const [spec, setSpec] = useState<Spec | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    let current = true;
    Promise.all([fetch(`${BASE}openapi.json`).then((r) => r.json() as Promise<Spec>), loadRedoc()])
      .then(([document_, redoc]) => {
        if (!current || target.current === null) return;
        setSpec(document_);
        // Offline: no download link (it would point at a blob) and no fonts beyond the page's own.
        redoc.init(
          document_,
          {
            hideDownloadButton: true,
            disableSearch: true,
            theme: { typography: { fontFamily: "system-ui, sans-serif" } },
          },
          target.current,
        );
      })
      .catch((e: unknown) => current && setError(e instanceof Error ? e.message : String(e)));
    return () => {
      current = false;
    };
  }, []);
  return (
    <section class="api-reference">
      {error !== undefined && <p role="alert">{error}</p>}
      {spec !== undefined && <TryIt spec={spec} />}
      <div ref={target} data-testid="redoc" />
    </section>
  );
}
