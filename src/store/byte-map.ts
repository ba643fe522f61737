/**
 * A string-to-string map kept in two buffers, off V8's heap, for what the
 * memory store keeps for a day: idempotency keys, evicted orders' records,
 * references. Held in `Map`s, a day of them at load-test rates is millions
 * of small objects and strings in the old generation, and every scavenge
 * pays for a heap that keeps growing (a standalone run: 3 million small
 * records in a `Map` made each scavenge take 2.3–2.9 ms, the same bytes in
 * one `ArrayBuffer` 0.7–0.9 ms). Here an entry is bytes in an arena, found
 * through an open-addressing table of offsets, and the collector sees two
 * buffers however many entries there are.
 *
 * Entries are appended in the order they are set, and that order is kept:
 * iteration runs oldest first, as the store's sweeps need (each table
 * inserts in expiry order). Unlike a `Map`, setting a key that is already
 * there moves it to the back. A deleted entry leaves dead bytes until the
 * arena is next rebuilt. A full arena with little dead in it is copied
 * whole into one half as large again, offsets unchanged; one with a
 * quarter or more dead has its live entries copied, in order, into a new
 * one, and the index is rebuilt. An index half full is replaced by one a
 * quarter full that its entries move to a few at a time, so no single
 * write pays for placing them all.
 */

/** Words before an entry's bytes: key length (top bit: deleted), value length, hash. */
const HEADER_WORDS = 3;
const DELETED = 0x8000_0000;
/** An index slot: 0 is empty, TOMBSTONE was deleted, anything else is an entry's word offset + 1. */
const TOMBSTONE = 0xffff_ffff;
const MIN_ARENA_BYTES = 1 << 16;
const MIN_SLOTS = 1 << 10;
/**
 * Old index slots moved per write while the index grows. The new index is
 * outgrown after at least a quarter of its size in writes (half full, from
 * a quarter), which is at least the old index's size: 16 a write finishes
 * well before.
 */
const SLOTS_MOVED_PER_WRITE = 16;

function nextPowerOfTwo(n: number): number {
  let size = 1;
  while (size < n) size *= 2;
  return size;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over the first `length` bytes. */
function hashBytes(bytes: Uint8Array, length: number): number {
  let hash = FNV_OFFSET;
  for (let index = 0; index < length; index++) hash = Math.imul(hash ^ (bytes[index] as number), FNV_PRIME);
  return hash >>> 0;
}

/** FNV-1a over an ASCII string's UTF-8 bytes (its char codes), or -1 when it is not ASCII. */
function hashAscii(text: string): number {
  let hash = FNV_OFFSET;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code > 0x7f) return -1;
    hash = Math.imul(hash ^ code, FNV_PRIME);
  }
  return hash >>> 0;
}

function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) return false;
  return true;
}

export class ByteMap {
  private bytes: Buffer = Buffer.allocUnsafeSlow(MIN_ARENA_BYTES);
  private words: Uint32Array = new Uint32Array(this.bytes.buffer, 0, MIN_ARENA_BYTES / 4);
  /** Word offsets: the first entry that may be live, and the end of the last. */
  private head = 0;
  private tail = 0;
  private slots = new Uint32Array(MIN_SLOTS);
  /**
   * The index being outgrown, while its entries move to `slots` a few at a
   * time: placing every entry at once held the event loop for a quarter of
   * a second with two million entries. Moved slots become tombstones, so
   * the probe chains of those not yet moved still hold.
   */
  private oldSlots: Uint32Array | undefined;
  private moved = 0;
  private tombstones = 0;
  private live = 0;
  private liveWords = 0;
  /**
   * The key last looked up: its hash, its UTF-8 length, and either itself
   * (ASCII keys, the usual ones, are hashed and compared by char code, with
   * no encoding) or its bytes in the scratch buffer.
   */
  private probe = "";
  private probeAscii = true;
  private probeHash = 0;
  private probeLength = 0;
  private scratch = Buffer.allocUnsafeSlow(256);

  get size(): number {
    return this.live;
  }

  get(key: string): string | undefined {
    const slot = this.find(key);
    return slot < 0 ? undefined : this.valueAt((this.slots[slot] as number) - 1);
  }

  has(key: string): boolean {
    return this.find(key) >= 0;
  }

  /** Sets `key` to `value`, as the newest entry. */
  set(key: string, value: string): this {
    const slot = this.find(key);
    if (slot >= 0) this.deleteAt(slot);
    const keyLength = this.probeLength;
    const hash = this.probeHash;
    const asciiValue = isAscii(value);
    const valueLength = asciiValue ? value.length : Buffer.byteLength(value, "utf8");
    const entryWords = HEADER_WORDS + Math.ceil((keyLength + valueLength) / 4);
    if (this.tail + entryWords > this.words.length) this.makeRoom(entryWords);
    if (this.oldSlots !== undefined) this.moveSome();
    if ((this.live + this.tombstones + 1) * 2 > this.slots.length) this.growSlots();
    const at = this.tail;
    const keyStart = (at + HEADER_WORDS) * 4;
    this.words[at] = keyLength;
    this.words[at + 1] = valueLength;
    this.words[at + 2] = hash;
    if (this.probeAscii) this.writeAscii(key, keyStart);
    else this.scratch.copy(this.bytes, keyStart, 0, keyLength);
    if (asciiValue) this.writeAscii(value, keyStart + keyLength);
    else this.bytes.write(value, keyStart + keyLength, valueLength, "utf8");
    this.tail += entryWords;
    this.live++;
    this.liveWords += entryWords;
    this.place(hash, at);
    return this;
  }

  delete(key: string): boolean {
    const slot = this.find(key);
    if (slot < 0) return false;
    this.deleteAt(slot);
    if (this.oldSlots !== undefined) this.moveSome();
    return true;
  }

  clear(): void {
    this.useArena(Buffer.allocUnsafeSlow(MIN_ARENA_BYTES));
    this.slots = new Uint32Array(MIN_SLOTS);
    this.oldSlots = undefined;
    this.head = this.tail = this.tombstones = this.live = this.liveWords = 0;
  }

  /** Live entries, oldest first; deleting the entry just yielded is safe, setting is not. */
  *entries(): IterableIterator<[string, string]> {
    this.skipDeletedFront();
    for (let at = this.head; at < this.tail; at = this.nextEntry(at)) {
      if (((this.words[at] as number) & DELETED) === 0) yield [this.keyAt(at), this.valueAt(at)];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [key] of this.entries()) yield key;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  /** The index slot holding `key`, or -1; leaves the key as the probe. */
  private find(key: string): number {
    let hash = hashAscii(key);
    let length = key.length;
    this.probe = key;
    this.probeAscii = hash >= 0;
    if (hash < 0) {
      if (key.length * 3 > this.scratch.length) this.scratch = Buffer.allocUnsafeSlow(nextPowerOfTwo(key.length * 3));
      length = this.scratch.write(key, 0, "utf8");
      hash = hashBytes(this.scratch, length);
    }
    this.probeHash = hash;
    this.probeLength = length;
    const slot = this.findIn(this.slots, hash, length);
    if (slot >= 0 || this.oldSlots === undefined) return slot;
    // Not moved yet: moved now, so the caller has it in `slots`.
    const old = this.findIn(this.oldSlots, hash, length);
    return old < 0 ? -1 : this.moveSlot(this.oldSlots, old);
  }

  private findIn(slots: Uint32Array, hash: number, length: number): number {
    const mask = slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = slots[slot] as number;
      if (held === 0) return -1;
      if (held !== TOMBSTONE && this.holds(held - 1, hash, length)) return slot;
    }
  }

  /** Moves the entry in `old[slot]` to `slots`; its new slot. */
  private moveSlot(old: Uint32Array, slot: number): number {
    const at = (old[slot] as number) - 1;
    old[slot] = TOMBSTONE;
    return this.place(this.words[at + 2] as number, at);
  }

  /** Moves the next few slots of the outgrown index: enough to finish long before it would be outgrown again. */
  private moveSome(): void {
    const old = this.oldSlots as Uint32Array;
    const end = Math.min(old.length, this.moved + SLOTS_MOVED_PER_WRITE);
    for (; this.moved < end; this.moved++) {
      const held = old[this.moved] as number;
      if (held !== 0 && held !== TOMBSTONE) this.moveSlot(old, this.moved);
    }
    if (this.moved === old.length) this.oldSlots = undefined;
  }

  /** A new index at most a quarter full, filled from the old one as writes come. */
  private growSlots(): void {
    // A growth while one is under way (not in practice: see moveSome) finishes that one first.
    while (this.oldSlots !== undefined) this.moveSome();
    this.oldSlots = this.slots;
    this.moved = 0;
    this.slots = new Uint32Array(nextPowerOfTwo(Math.max(MIN_SLOTS, (this.live + 1) * 4)));
    this.tombstones = 0;
  }

  private holds(at: number, hash: number, length: number): boolean {
    if (this.words[at + 2] !== hash || this.words[at] !== length) return false;
    const start = (at + HEADER_WORDS) * 4;
    if (this.probeAscii) {
      for (let index = 0; index < length; index++) {
        if (this.bytes[start + index] !== this.probe.charCodeAt(index)) return false;
      }
      return true;
    }
    for (let index = 0; index < length; index++) {
      if (this.bytes[start + index] !== this.scratch[index]) return false;
    }
    return true;
  }

  private writeAscii(text: string, start: number): void {
    for (let index = 0; index < text.length; index++) this.bytes[start + index] = text.charCodeAt(index);
  }

  private deleteAt(slot: number): void {
    const at = (this.slots[slot] as number) - 1;
    this.liveWords -= this.nextEntry(at) - at;
    this.words[at] = (this.words[at] as number) | DELETED;
    this.slots[slot] = TOMBSTONE;
    this.tombstones++;
    this.live--;
  }

  private place(hash: number, at: number): number {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    while (this.slots[slot] !== 0 && this.slots[slot] !== TOMBSTONE) slot = (slot + 1) & mask;
    if (this.slots[slot] === TOMBSTONE) this.tombstones--;
    this.slots[slot] = at + 1;
    return slot;
  }

  private nextEntry(at: number): number {
    const keyLength = (this.words[at] as number) & ~DELETED;
    return at + HEADER_WORDS + Math.ceil((keyLength + (this.words[at + 1] as number)) / 4);
  }

  private keyAt(at: number): string {
    const start = (at + HEADER_WORDS) * 4;
    return this.bytes.toString("utf8", start, start + ((this.words[at] as number) & ~DELETED));
  }

  private valueAt(at: number): string {
    const start = (at + HEADER_WORDS) * 4 + ((this.words[at] as number) & ~DELETED);
    return this.bytes.toString("utf8", start, start + (this.words[at + 1] as number));
  }

  private skipDeletedFront(): void {
    while (this.head < this.tail && ((this.words[this.head] as number) & DELETED) !== 0) {
      this.head = this.nextEntry(this.head);
    }
  }

  /**
   * Room for `needed` more words. With little of the arena dead it is
   * copied whole into one half as large again: one memory copy, every
   * offset unchanged, so the index stays as it is. Otherwise the live
   * entries are compacted, and the index rebuilt.
   */
  private makeRoom(needed: number): void {
    if ((this.tail - this.liveWords) * 4 >= this.tail) {
      this.rebuildArena(needed);
      return;
    }
    const bytes = Buffer.allocUnsafeSlow(Math.ceil(1.5 * (this.tail + needed)) * 4);
    this.bytes.copy(bytes, 0, 0, this.tail * 4);
    this.useArena(bytes);
  }

  private useArena(bytes: Buffer): void {
    this.bytes = bytes;
    this.words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  }

  /** Copies the live entries, in order, into an arena with half as much room again, and `needed` more. */
  private rebuildArena(needed: number): void {
    // 1.5×, not 2×: a rebuild copies only live words, and the arena is most of the map's memory.
    const wordsWanted = Math.max(MIN_ARENA_BYTES / 4, Math.ceil(1.5 * (this.liveWords + needed)));
    const bytes = Buffer.allocUnsafeSlow(wordsWanted * 4);
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, wordsWanted);
    // Runs of live entries are copied whole: one copy per run, not per entry.
    let to = 0;
    let runStart = this.head;
    for (let at = this.head; at < this.tail;) {
      const next = this.nextEntry(at);
      if (((this.words[at] as number) & DELETED) !== 0) {
        words.set(this.words.subarray(runStart, at), to);
        to += at - runStart;
        runStart = next;
      }
      at = next;
    }
    words.set(this.words.subarray(runStart, this.tail), to);
    to += this.tail - runStart;
    this.useArena(bytes);
    this.head = 0;
    this.tail = to;
    this.rebuildSlots();
  }

  /** A new index for the live entries, at most a quarter full. */
  private rebuildSlots(): void {
    this.slots = new Uint32Array(nextPowerOfTwo(Math.max(MIN_SLOTS, (this.live + 1) * 4)));
    this.oldSlots = undefined;
    this.tombstones = 0;
    for (let at = this.head; at < this.tail; at = this.nextEntry(at)) {
      if (((this.words[at] as number) & DELETED) === 0) this.place(this.words[at + 2] as number, at);
    }
  }
}
