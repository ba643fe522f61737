/**
 * Where the page is (its tab and open order), kept in the URL fragment next
 * to the token (`#token=…&tab=orders&order=…`): a link or a reload opens the
 * same place, and the browser's Back button goes to the previous one. The
 * fragment is never sent to the server.
 */
export interface Place {
  readonly tab: string;
  readonly order: string | undefined;
}

const slug = (tab: string): string => tab.toLowerCase().replace(/[^a-z0-9]+/g, "-");

export function readPlace(tabs: readonly string[]): Place {
  const params = new URLSearchParams(location.hash.slice(1));
  const tab = tabs.find((t) => slug(t) === params.get("tab")) ?? tabs[0]!;
  return { tab, order: params.get("order") ?? undefined };
}

/** A new history entry for a new place; none when the place is the same. */
export function writePlace(place: Place): void {
  const params = new URLSearchParams(location.hash.slice(1));
  params.set("tab", slug(place.tab));
  if (place.order === undefined) params.delete("order");
  else params.set("order", place.order);
  const hash = `#${params.toString()}`;
  if (hash !== location.hash) history.pushState(null, "", hash);
}
