/**
 * The hash slot of a key, as Redis Cluster computes it: CRC16 (XMODEM) of
 * the key's hash tag — the part between the first `{` and the next `}`,
 * when that is not empty — or of the whole key, modulo 16384. Development
 * builds check with it that every script's keys share one slot, so a key
 * added without its tag fails in the tests, not as `CROSSSLOT` on a user's
 * cluster.
 */
const SLOTS = 16_384;

const CRC16_TABLE = Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  return crc;
});

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ (CRC16_TABLE[((crc >> 8) ^ byte) & 0xff] ?? 0);
  return crc;
}

/** The part of `key` Redis Cluster hashes: its hash tag when it has a non-empty one, else all of it. */
function hashedPart(key: string): string {
  const open = key.indexOf("{");
  if (open === -1) return key;
  const close = key.indexOf("}", open + 1);
  return close === -1 || close === open + 1 ? key : key.slice(open + 1, close);
}

/**
 * @example
 * keySlot("ah:{cus_1}:orders") === keySlot("ah:{cus_1}:wallets"); // true: one tag, one slot
 */
export function keySlot(key: string): number {
  return crc16(new TextEncoder().encode(hashedPart(key))) % SLOTS;
}

/**
 * Throws a RangeError naming the keys when they are not all in one slot.
 * Skipped in production builds (`NODE_ENV=production`), where the check
 * would cost a CRC per key on every call for a mistake the tests catch.
 */
export function assertOneSlot(what: string, keys: readonly string[]): void {
  if (process.env.NODE_ENV === "production" || keys.length < 2) return;
  const first = keySlot(keys[0] ?? "");
  if (keys.every((key) => keySlot(key) === first)) return;
  throw new RangeError(`${what} spans several hash slots (${keys.join(", ")}): Redis Cluster refuses it`);
}
