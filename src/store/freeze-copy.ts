/**
 * Frozen copies of plain data, for the in-memory stores: a stored record can
 * change only by being replaced, so reads may hand it out without copying.
 * Strings are shared, not copied (they cannot change), which is what keeps a
 * retained record small: `structuredClone` would copy every string of every
 * record, down to each attempt's "delivered" and its URL.
 */
function isPlainData(value: object): boolean {
  return Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * Whether nothing reachable from `value` can change: it and every object
 * under it are frozen plain objects or arrays (a frozen Map or Date could
 * still change). Parts shared with `stored` are known to be so already.
 */
function isDeeplyFrozen(value: object, stored: unknown): boolean {
  if (!Object.isFrozen(value) || !isPlainData(value)) return false;
  if (Array.isArray(value)) return isDeeplyFrozenArray(value, stored);
  const previous = stored !== null && typeof stored === "object" ? (stored as Record<string, unknown>) : undefined;
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key];
    if (child === null || typeof child !== "object" || child === previous?.[key]) continue;
    if (!isDeeplyFrozen(child, previous?.[key])) return false;
  }
  return true;
}

/**
 * An array's elements by index: `for…in` would enumerate them as string
 * keys, the slow path for every history and plan stored. Like the copy
 * below, only the elements count: an array's other properties are not
 * plain data.
 */
function isDeeplyFrozenArray(value: readonly unknown[], stored: unknown): boolean {
  const previous = Array.isArray(stored) ? (stored as readonly unknown[]) : undefined;
  for (let index = 0; index < value.length; index++) {
    const child = value[index];
    if (child === null || typeof child !== "object" || child === previous?.[index]) continue;
    if (!isDeeplyFrozen(child, previous?.[index])) return false;
  }
  return true;
}

/**
 * Frozen deep copy of plain data: the stored record can change only by being
 * replaced. What cannot change needs no copy, so two cases are kept as they
 * are: a record frozen all the way down by its author (the domain freezes
 * the orders it builds — freeze once), and any part of `value` that is the
 * very same object as the matching part of `stored`, the version it replaces
 * (`{...order, history: [...order.history, entry]}` copies only what is new).
 */
export function freezeCopy<T>(value: T, stored?: unknown): T {
  if (value === null || typeof value !== "object") return value;
  if (value === stored || isDeeplyFrozen(value, stored)) return value;
  if (Array.isArray(value)) {
    const previous = Array.isArray(stored) ? stored : undefined;
    const copy = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index++) copy[index] = freezeCopy(value[index], previous?.[index]);
    return Object.freeze(copy) as T;
  }
  const previous = stored !== null && typeof stored === "object" ? (stored as Record<string, unknown>) : undefined;
  // Spread makes own data properties for every key (even "__proto__"), so the assignments below never hit a setter.
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key in copy) {
    const child = copy[key];
    if (child !== null && typeof child === "object") copy[key] = freezeCopy(child, previous?.[key]);
  }
  return Object.freeze(copy) as T;
}
