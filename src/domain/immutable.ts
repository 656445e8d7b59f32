// State is never mutated: each event yields new objects, so a reference to an old state stays a true snapshot.
// Copying a whole Map per event made every write O(entries) (14 ms a write at 50,000 flags); the maps
// below share all but the parts an event changes.

const bucketCount = 64
const chunkSize = 64

type Entry<K, V> = readonly [K, V]

const hashOf = (key: unknown): number => {
  if (typeof key === 'number') return (key | 0) & (bucketCount - 1)
  const text = typeof key === 'string' ? key : String(key)
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return hash & (bucketCount - 1)
}

// A persistent, insertion-ordered map. Keys find their slot through 64 small Maps (by hash); entries live
// in chunks of 64 slots in insertion order. Changing a value copies one chunk and the chunk list; adding
// or removing a key also copies one of the small Maps: O(√n) instead of O(n). Removed slots stay empty
// until they outnumber the entries, then the map is rebuilt.
// It is a Map (its own storage, the inherited one stays empty) so that code and tests that take a Map
// (`instanceof Map`, deep equality by entries) take it too; the mutating methods throw.
export class PersistentMap<K, V> extends Map<K, V> implements ReadonlyMap<K, V> {
  private constructor(
    private readonly buckets: readonly ReadonlyMap<K, number>[],
    private readonly chunks: readonly (readonly (Entry<K, V> | undefined)[])[],
    private readonly slotCount: number,
    private readonly count: number,
  ) {
    super()
  }

  override get size(): number {
    return this.count
  }

  override set(): never {
    throw new TypeError('A PersistentMap is not changed in place: use withEntry')
  }

  override delete(): never {
    throw new TypeError('A PersistentMap is not changed in place: use withoutEntry')
  }

  override clear(): never {
    throw new TypeError('A PersistentMap is not changed in place')
  }

  static from<K, V>(entries: Iterable<readonly [K, V]>): PersistentMap<K, V> {
    const buckets = Array.from({ length: bucketCount }, () => new Map<K, number>())
    const chunks: (Entry<K, V> | undefined)[][] = []
    let slot = 0
    for (const [key, value] of entries) {
      const bucket = buckets[hashOf(key)]
      const existing = bucket.get(key)
      if (existing !== undefined) {
        chunks[existing >> 6][existing & (chunkSize - 1)] = [key, value]
        continue
      }
      bucket.set(key, slot)
      if ((slot & (chunkSize - 1)) === 0) chunks.push([])
      chunks[chunks.length - 1].push([key, value])
      slot++
    }
    return new PersistentMap(buckets, chunks, slot, slot)
  }

  override get(key: K): V | undefined {
    const slot = this.buckets[hashOf(key)].get(key)
    return slot === undefined ? undefined : this.chunks[slot >> 6][slot & (chunkSize - 1)]![1]
  }

  override has(key: K): boolean {
    return this.buckets[hashOf(key)].has(key)
  }

  with(key: K, value: V): PersistentMap<K, V> {
    const hash = hashOf(key)
    const slot = this.buckets[hash].get(key)
    if (slot !== undefined) return new PersistentMap(this.buckets, this.withSlot(slot, [key, value]), this.slotCount, this.count)
    const buckets = this.buckets.slice()
    buckets[hash] = new Map(this.buckets[hash]).set(key, this.slotCount)
    const chunks = this.chunks.slice()
    const at = this.slotCount >> 6
    chunks[at] = [...(chunks[at] ?? []), [key, value]]
    return new PersistentMap(buckets, chunks, this.slotCount + 1, this.count + 1)
  }

  without(key: K): PersistentMap<K, V> {
    const hash = hashOf(key)
    const slot = this.buckets[hash].get(key)
    if (slot === undefined) return this
    if (this.slotCount - this.count + 1 > Math.max(this.count, chunkSize)) {
      return PersistentMap.from([...this.entries()].filter(([k]) => k !== key))
    }
    const buckets = this.buckets.slice()
    const bucket = new Map(this.buckets[hash])
    bucket.delete(key)
    buckets[hash] = bucket
    return new PersistentMap(buckets, this.withSlot(slot, undefined), this.slotCount, this.count - 1)
  }

  // The entry chunks (an empty slot is undefined). A chunk no event has touched is the same array in
  // every later version, so a snapshot can reuse the bytes it wrote for it last time.
  get chunkList(): readonly (readonly (Entry<K, V> | undefined)[])[] {
    return this.chunks
  }

  private withSlot(slot: number, entry: Entry<K, V> | undefined) {
    const chunks = this.chunks.slice()
    const chunk = chunks[slot >> 6].slice()
    chunk[slot & (chunkSize - 1)] = entry
    chunks[slot >> 6] = chunk
    return chunks
  }

  override entries(): MapIterator<[K, V]> {
    return new SlotIterator(this.chunks, (entry) => [entry[0], entry[1]])
  }

  override keys(): MapIterator<K> {
    return new SlotIterator(this.chunks, (entry) => entry[0])
  }

  override values(): MapIterator<V> {
    return new SlotIterator(this.chunks, (entry) => entry[1])
  }

  override [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries()
  }

  override forEach(callback: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this)
  }

}

// Below this many entries a plain copy is cheaper than the buckets and chunks (a flag's environments, a
// strategy's parameters): only maps that grow past it become persistent.
const persistentFrom = 128

// Walks the chunks' filled slots; a plain iterator object, which V8 runs about three times faster than a
// generator over the same loops (iterating every flag is what a flag creation's limit check does).
class SlotIterator<K, V, T> implements MapIterator<T> {
  private chunk = 0
  private slot = 0

  constructor(
    private readonly chunks: readonly (readonly (Entry<K, V> | undefined)[])[],
    private readonly pick: (entry: Entry<K, V>) => T,
  ) {}

  next(): IteratorResult<T, undefined> {
    while (this.chunk < this.chunks.length) {
      const chunk = this.chunks[this.chunk]
      while (this.slot < chunk.length) {
        const entry = chunk[this.slot++]
        if (entry) return { done: false, value: this.pick(entry) }
      }
      this.chunk++
      this.slot = 0
    }
    return { done: true, value: undefined }
  }

  [Symbol.iterator](): MapIterator<T> {
    return this
  }

  // Holds nothing to release (Node 24's MapIterator type asks for it).
  [Symbol.dispose](): void {}
}

export const withEntry = <K, V>(map: ReadonlyMap<K, V>, key: K, value: V): ReadonlyMap<K, V> => {
  if (map instanceof PersistentMap) return map.with(key, value)
  return map.size < persistentFrom ? new Map(map).set(key, value) : PersistentMap.from(map).with(key, value)
}

export const withoutEntry = <K, V>(map: ReadonlyMap<K, V>, key: K): ReadonlyMap<K, V> => {
  if (map instanceof PersistentMap) return map.without(key)
  const next = new Map(map)
  next.delete(key)
  return next
}

export const updateEntry = <K, V>(map: ReadonlyMap<K, V>, key: K, update: (value: V) => V): ReadonlyMap<K, V> => {
  const current = map.get(key)
  return current === undefined ? map : withEntry(map, key, update(current))
}
