/**
 * A request URL as the journal and the request log keep it: the value of
 * any query parameter that looks like a credential (`?access_token=…`,
 * `api_key`, `secret`…) is replaced, so a client that puts its token in the
 * URL does not leave it in a log.
 */

const SECRET_NAME = /token|secret|password|passwd|api[-_]?key|apikey|auth|signature|credential/i;
const REDACTED = "REDACTED";

export function redactUrl(url: string): string {
  const query = url.indexOf("?");
  // The common case, a URL without a query, costs one scan.
  if (query < 0) return url;
  const params = url.slice(query + 1).split("&");
  let changed = false;
  for (let i = 0; i < params.length; i++) {
    const param = params[i] as string;
    const equals = param.indexOf("=");
    const name = equals < 0 ? param : param.slice(0, equals);
    if (!SECRET_NAME.test(safeDecode(name))) continue;
    params[i] = `${name}=${REDACTED}`;
    changed = true;
  }
  return changed ? `${url.slice(0, query)}?${params.join("&")}` : url;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return text;
  }
}
