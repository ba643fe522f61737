/**
 * Where `listen --forward-to` and `trigger --forward-to` send webhooks: an
 * http(s) URL without credentials. `localhost:3000/webhooks` is read as
 * `http://localhost:3000/webhooks`, as webhook CLIs accept it; any other
 * scheme is refused rather than guessed at.
 */
export type ForwardTarget =
  { readonly ok: true; readonly url: string } | { readonly ok: false; readonly error: string };

/**
 * @example
 * parseForwardTarget("localhost:3000/webhooks"); // { ok: true, url: "http://localhost:3000/webhooks" }
 * parseForwardTarget("ftp://example.com/");      // { ok: false, error: "… http or https …" }
 */
export function parseForwardTarget(text: string): ForwardTarget {
  const trimmed = text.trim();
  const hasScheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(trimmed) || /^[A-Za-z][A-Za-z0-9+.-]*:[^0-9]/.test(trimmed);
  let url: URL;
  try {
    url = new URL(hasScheme ? trimmed : `http://${trimmed}`);
  } catch {
    return { ok: false, error: `'${text}' is not a URL (e.g. http://localhost:3000/webhooks)` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, error: `'${url.protocol.slice(0, -1)}' URLs are refused: forward to an http or https URL` };
  }
  if (url.username !== "" || url.password !== "") {
    return {
      ok: false,
      error: "a forward URL must not carry credentials (user:password@); the signature authenticates",
    };
  }
  if (url.hostname === "") return { ok: false, error: `'${text}' names no host` };
  return { ok: true, url: url.href };
}
