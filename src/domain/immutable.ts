// State is never mutated: each event yields new objects, so a reference to an old state stays a true snapshot.
// Copying a whole Map per event made every write O(entries) (14 ms a write at 50,000 flags); the maps
// below share all but the parts an event changes.

const chunkSize = 64
const chunkBits = 6
const branchBits = 5
const branching = 1 << branchBits
const branchMask = branching - 1

// A chunk's slots as one list, key then value (a slot's pair as an array of its own took 80 bytes more
// a slot: 6.9 MiB for the two maps of 50,000 flags, issue 26). A removed entry leaves its key `vacant`.
type Chunk = readonly unknown[]
const vacant: unique symbol = Symbol('vacant slot')

const hashOf = (key: unknown): number => {
  if (typeof key === 'number' && (key | 0) === key) return key
  const text = typeof key === 'string' ? key : String(key)
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return hash
}

// For tests that need keys whose hashes collide.
export const keyHashForTests = hashOf

const popcount = (n: number): number => {
  n -= (n >>> 1) & 0x55555555
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333)
  return (Math.imul((n + (n >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff
}

// Which slot each key is in: a hash array mapped trie (32-way, by 5 bits of the key's hash per level),
// whose nodes hold their keys and slots inline (`content`: key, slot, key, slot, ..., then the child
// nodes) and are shared between versions: adding or removing a key copies the nodes on its path, about
// log32(n) of them (3 or 4 at 50,000 flags), instead of a bucket of n/64 keys. Keys whose 32-bit hashes
// are all equal share one collision node, searched in order. A node made by the same `from` (its
// `edit`) is changed in place while that map is built.
interface IndexNode {
  dataMap: number
  nodeMap: number
  content: unknown[]
  edit: object | undefined
}

const maxShift = 30
const emptyNode = (): IndexNode => ({ dataMap: 0, nodeMap: 0, content: [], edit: undefined })
const isCollision = (shift: number) => shift > maxShift

const slotIn = (root: IndexNode, key: unknown, hash: number): number | undefined => {
  let node = root
  for (let shift = 0; ; shift += branchBits) {
    if (isCollision(shift)) {
      const c = node.content
      for (let i = 0; i < c.length; i += 2) if (c[i] === key) return c[i + 1] as number
      return undefined
    }
    const bit = 1 << ((hash >>> shift) & branchMask)
    if (node.dataMap & bit) {
      const at = 2 * popcount(node.dataMap & (bit - 1))
      return node.content[at] === key ? (node.content[at + 1] as number) : undefined
    }
    if (!(node.nodeMap & bit)) return undefined
    node = node.content[2 * popcount(node.dataMap) + popcount(node.nodeMap & (bit - 1))] as IndexNode
  }
}

// A node to change: itself when it was made by this edit, else a copy owned by it.
const editable = (node: IndexNode, edit: object | undefined): IndexNode =>
  edit !== undefined && node.edit === edit ? node : { dataMap: node.dataMap, nodeMap: node.nodeMap, content: node.content.slice(), edit }

// A node a version keeps, after a splice: splice grows a list as push does (room for 16 more items), so the
// node's list is cut to its length. A node a bulk build is still filling (`edit`) is cut once, at its end
// (trimmedTree).
const kept = (node: IndexNode, edit: object | undefined): IndexNode => {
  if (edit === undefined) node.content = node.content.slice()
  return node
}

const trimmedTree = (node: IndexNode, shift = 0): IndexNode => {
  node.content = node.content.slice()
  node.edit = undefined
  if (isCollision(shift)) return node
  for (let i = 2 * popcount(node.dataMap); i < node.content.length; i++) node.content[i] = trimmedTree(node.content[i] as IndexNode, shift + branchBits)
  return node
}

interface KeyAt {
  key: unknown
  hash: number
  slot: number
}

// The node with the key at its slot (a key not in it yet).
const withKey = (node: IndexNode, { key, hash, slot }: KeyAt, shift: number, edit: object | undefined): IndexNode => {
  const next = editable(node, edit)
  if (isCollision(shift)) {
    next.content.push(key, slot)
    return kept(next, edit)
  }
  const bit = 1 << ((hash >>> shift) & branchMask)
  if (next.dataMap & bit) {
    // The place holds another key: both go one level down.
    const at = 2 * popcount(next.dataMap & (bit - 1))
    const otherKey = next.content[at]
    const otherSlot = next.content[at + 1] as number
    let child = withKey(emptyNode(), { key: otherKey, hash: hashOf(otherKey), slot: otherSlot }, shift + branchBits, edit)
    child = withKey(child, { key, hash, slot }, shift + branchBits, edit)
    next.content.splice(at, 2)
    next.dataMap ^= bit
    next.nodeMap |= bit
    next.content.splice(2 * popcount(next.dataMap) + popcount(next.nodeMap & (bit - 1)), 0, child)
    return kept(next, edit)
  }
  if (next.nodeMap & bit) {
    const at = 2 * popcount(next.dataMap) + popcount(next.nodeMap & (bit - 1))
    next.content[at] = withKey(next.content[at] as IndexNode, { key, hash, slot }, shift + branchBits, edit)
    return next
  }
  next.content.splice(2 * popcount(next.dataMap & (bit - 1)), 0, key, slot)
  next.dataMap |= bit
  return kept(next, edit)
}

// The node without `key` (which is in it); an emptied child node is dropped.
const withoutKey = (node: IndexNode, key: unknown, hash: number, shift: number): IndexNode => {
  const next = editable(node, undefined)
  if (isCollision(shift)) {
    const c = next.content
    for (let i = 0; i < c.length; i += 2) {
      if (c[i] === key) {
        c.splice(i, 2)
        break
      }
    }
    return next
  }
  const bit = 1 << ((hash >>> shift) & branchMask)
  if (next.dataMap & bit) {
    next.content.splice(2 * popcount(next.dataMap & (bit - 1)), 2)
    next.dataMap ^= bit
    return next
  }
  const at = 2 * popcount(next.dataMap) + popcount(next.nodeMap & (bit - 1))
  const child = withoutKey(next.content[at] as IndexNode, key, hash, shift + branchBits)
  if (child.content.length === 0) {
    next.content.splice(at, 1)
    next.nodeMap ^= bit
  } else next.content[at] = child
  return next
}

// The entries, in insertion order, in chunks of 64 slots; the chunks are the leaves of a 32-way trie
// (`depth` levels of branch arrays above them), so changing one slot copies its chunk and the branches
// on its path, and a chunk no event has touched is the same array in every later version.
type Branch = readonly unknown[]

const chunkAt = (root: Branch, depth: number, index: number): Chunk | undefined => {
  let node: Branch | undefined = root
  for (let level = depth - 1; level >= 0 && node !== undefined; level--) node = node[(index >>> (level * branchBits)) & branchMask] as Branch | undefined
  return node
}

// A chunk's entries as pairs, an empty slot undefined: the form snapshots store chunks in.
export const chunkEntries = <K, V>(chunk: Chunk): ([K, V] | undefined)[] => {
  const entries: ([K, V] | undefined)[] = []
  for (let i = 0; i < chunk.length; i += 2) entries.push(chunk[i] === vacant ? undefined : [chunk[i] as K, chunk[i + 1] as V])
  return entries
}

const withChunkAt = (node: Branch | undefined, level: number, index: number, chunk: Chunk): Branch => {
  const next = node ? node.slice() : []
  const at = (index >>> (level * branchBits)) & branchMask
  next[at] = level === 0 ? chunk : withChunkAt(node?.[at] as Branch | undefined, level - 1, index, chunk)
  return next
}

// Branches over a list of chunks, bottom up.
const trieOf = (chunks: readonly Chunk[]): { root: Branch; depth: number } => {
  let level: readonly unknown[] = chunks
  let depth = 1
  while (level.length > branching) {
    const up: unknown[][] = []
    for (let i = 0; i < level.length; i += branching) up.push(level.slice(i, i + branching))
    level = up
    depth++
  }
  return { root: level.slice(), depth }
}

// A persistent, insertion-ordered map: its keys' slots in a hash trie, its entries in a trie of chunks
// of 64 slots in insertion order. Adding, changing or removing a key copies O(log n) small arrays.
// Removed slots stay empty until they outnumber the entries, then the map is rebuilt.
// It is a Map (its own storage, the inherited one stays empty) so that code and tests that take a Map
// (`instanceof Map`, deep equality by entries) take it too; the mutating methods throw.
export class PersistentMap<K, V> extends Map<K, V> implements ReadonlyMap<K, V> {
  // The chunks in order, collected from the trie on the first walk of this version.
  private chunksInOrder: readonly Chunk[] | undefined
  // What a caller derived from this version and keeps with it (flag-facts.ts): not part of the map's
  // content, not compared, not written to snapshots; it goes when the version goes.
  #memo: object | undefined

  get memo(): object | undefined {
    return this.#memo
  }

  set memo(value: object | undefined) {
    this.#memo = value
  }

  private readonly root: Branch
  private readonly depth: number

  private constructor(
    private readonly index: IndexNode,
    { root, depth }: { root: Branch; depth: number },
    private readonly slotCount: number,
    private readonly count: number,
  ) {
    super()
    this.root = root
    this.depth = depth
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
    const edit = {}
    let index = emptyNode()
    index.edit = edit
    const chunks: unknown[][] = []
    let slot = 0
    for (const [key, value] of entries) {
      const hash = hashOf(key)
      const existing = slotIn(index, key, hash)
      if (existing !== undefined) {
        chunks[existing >> chunkBits][2 * (existing & (chunkSize - 1)) + 1] = value
        continue
      }
      index = withKey(index, { key, hash, slot }, 0, edit)
      if ((slot & (chunkSize - 1)) === 0) chunks.push([])
      chunks[chunks.length - 1].push(key, value)
      slot++
    }
    const { root, depth } = trieOf(chunks)
    return new PersistentMap(trimmedTree(index), { root, depth }, slot, slot)
  }

  override get(key: K): V | undefined {
    const slot = slotIn(this.index, key, hashOf(key))
    return slot === undefined ? undefined : (chunkAt(this.root, this.depth, slot >> chunkBits)![2 * (slot & (chunkSize - 1)) + 1] as V)
  }

  override has(key: K): boolean {
    return slotIn(this.index, key, hashOf(key)) !== undefined
  }

  with(key: K, value: V): PersistentMap<K, V> {
    const hash = hashOf(key)
    const slot = slotIn(this.index, key, hash)
    if (slot !== undefined) {
      const { root, depth } = this.withSlot(slot, key, value)
      return new PersistentMap(this.index, { root, depth }, this.slotCount, this.count)
    }
    const index = withKey(this.index, { key, hash, slot: this.slotCount }, 0, undefined)
    const { root, depth } = this.withSlot(this.slotCount, key, value)
    return new PersistentMap(index, { root, depth }, this.slotCount + 1, this.count + 1)
  }

  without(key: K): PersistentMap<K, V> {
    const hash = hashOf(key)
    const slot = slotIn(this.index, key, hash)
    if (slot === undefined) return this
    if (this.slotCount - this.count + 1 > Math.max(this.count, chunkSize)) {
      return PersistentMap.from([...this.entries()].filter(([k]) => k !== key))
    }
    const index = withoutKey(this.index, key, hash, 0)
    const { root, depth } = this.withSlot(slot, vacant, undefined)
    return new PersistentMap(index, { root, depth }, this.slotCount, this.count - 1)
  }

  // The entry chunks (chunkEntries reads one). A chunk no event has touched is the same array in every
  // later version, so a snapshot can reuse the bytes it wrote for it last time.
  get chunkList(): readonly Chunk[] {
    if (this.chunksInOrder === undefined) {
      const chunks: Chunk[] = []
      const collect = (node: Branch, level: number) => {
        for (const child of node) {
          if (child === undefined) continue
          if (level === 0) chunks.push(child as Chunk)
          else collect(child as Branch, level - 1)
        }
      }
      collect(this.root, this.depth - 1)
      this.chunksInOrder = chunks
    }
    return this.chunksInOrder
  }

  // The trie with one slot set (a slot past the end starts a chunk, and a level when the trie is full).
  private withSlot(slot: number, key: K | typeof vacant, value: V | undefined): { root: Branch; depth: number } {
    const index = slot >> chunkBits
    let root = this.root
    let depth = this.depth
    if (index >= branching ** depth) {
      root = [root]
      depth++
    }
    const chunk = chunkAt(root, depth, index)
    const next = chunk ? chunk.slice() : []
    const at = 2 * (slot & (chunkSize - 1))
    next[at] = key
    next[at + 1] = value
    return { root: withChunkAt(root, depth - 1, index, next), depth }
  }

  override entries(): MapIterator<[K, V]> {
    return new SlotIterator(this.chunkList, (key, value) => [key as K, value as V])
  }

  override keys(): MapIterator<K> {
    return new SlotIterator(this.chunkList, (key) => key as K)
  }

  override values(): MapIterator<V> {
    return new SlotIterator(this.chunkList, (_, value) => value as V)
  }

  override [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries()
  }

  override forEach(callback: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this)
  }

}

// A map of a handful of entries that every flag has (its environments), kept as one list: key, value, key,
// value. A Map's hash table is about 150 bytes however few its entries (issue 26: 7.3 MiB of tables at 50,000
// flags); the list and its object are about 110. A look-up compares the few keys in order. Immutable like PersistentMap
// (`with`, `without` give new maps), but not a Map: a Map's constructor makes the table this saves, so code
// that needs a Map copies it (`new Map(map)`). Deep equality takes it by its entries (it is iterable).
export class SmallMap<K, V> implements ReadonlyMap<K, V> {
  readonly #items: readonly unknown[]

  private constructor(items: readonly unknown[]) {
    this.#items = items
  }

  // Later entries replace earlier ones with the same key, in its first place (as a Map built from them).
  static from<K, V>(entries: Iterable<readonly [K, V]>): SmallMap<K, V> {
    const items: unknown[] = []
    for (const [key, value] of entries) {
      const at = indexOfKey(items, key)
      if (at < 0) items.push(key, value)
      else items[at + 1] = value
    }
    return new SmallMap(items)
  }

  // The list as the snapshot codec stores it (key, value, ...); `fromItems` takes it back.
  get items(): readonly unknown[] {
    return this.#items
  }

  static fromItems<K, V>(items: readonly unknown[]): SmallMap<K, V> {
    if (items.length % 2 !== 0) throw new TypeError('a SmallMap holds key, value pairs')
    return new SmallMap(items)
  }

  get size(): number {
    return this.#items.length >> 1
  }

  get(key: K): V | undefined {
    const at = indexOfKey(this.#items, key)
    return at < 0 ? undefined : (this.#items[at + 1] as V)
  }

  has(key: K): boolean {
    return indexOfKey(this.#items, key) >= 0
  }

  with(key: K, value: V): SmallMap<K, V> {
    const at = indexOfKey(this.#items, key)
    const items = this.#items.slice()
    if (at < 0) items.push(key, value)
    else items[at + 1] = value
    return new SmallMap(items)
  }

  without(key: K): SmallMap<K, V> {
    const at = indexOfKey(this.#items, key)
    if (at < 0) return this
    return new SmallMap([...this.#items.slice(0, at), ...this.#items.slice(at + 2)])
  }

  entries(): MapIterator<[K, V]> {
    const entries: [K, V][] = []
    for (let i = 0; i < this.#items.length; i += 2) entries.push([this.#items[i] as K, this.#items[i + 1] as V])
    return entries[Symbol.iterator]()
  }

  keys(): MapIterator<K> {
    return this.#items.filter((_, i) => i % 2 === 0)[Symbol.iterator]() as MapIterator<K>
  }

  values(): MapIterator<V> {
    return this.#items.filter((_, i) => i % 2 === 1)[Symbol.iterator]() as MapIterator<V>
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries()
  }

  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (let i = 0; i < this.#items.length; i += 2) callback.call(thisArg, this.#items[i + 1] as V, this.#items[i] as K, this)
  }

  get [Symbol.toStringTag](): string {
    return 'SmallMap'
  }
}

// A Map's key equality (SameValueZero: NaN is NaN); at an even index of the list, or -1.
const indexOfKey = (items: readonly unknown[], key: unknown): number => {
  for (let i = 0; i < items.length; i += 2) {
    const k = items[i]
    if (k === key || (k !== k && key !== key)) return i
  }
  return -1
}

// Below this many entries a plain copy is cheaper than the buckets and chunks (a flag's environments, a
// strategy's parameters): only maps that grow past it become persistent.
const persistentFrom = 128

// Walks the chunks' filled slots; a plain iterator object, which V8 runs about three times faster than a
// generator over the same loops (iterating every flag is what a flag creation's limit check does).
class SlotIterator<T> implements MapIterator<T> {
  private chunk = 0
  private at = 0

  constructor(
    private readonly chunks: readonly Chunk[],
    private readonly pick: (key: unknown, value: unknown) => T,
  ) {}

  next(): IteratorResult<T, undefined> {
    while (this.chunk < this.chunks.length) {
      const chunk = this.chunks[this.chunk]
      while (this.at < chunk.length) {
        const key = chunk[this.at]
        this.at += 2
        if (key !== vacant) return { done: false, value: this.pick(key, chunk[this.at - 1]) }
      }
      this.chunk++
      this.at = 0
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
  if (map instanceof PersistentMap || map instanceof SmallMap) return map.with(key, value)
  return map.size < persistentFrom ? new Map(map).set(key, value) : PersistentMap.from(map).with(key, value)
}

export const withoutEntry = <K, V>(map: ReadonlyMap<K, V>, key: K): ReadonlyMap<K, V> => {
  if (map instanceof PersistentMap || map instanceof SmallMap) return map.without(key)
  const next = new Map(map)
  next.delete(key)
  return next
}

export const updateEntry = <K, V>(map: ReadonlyMap<K, V>, key: K, update: (value: V) => V): ReadonlyMap<K, V> => {
  const current = map.get(key)
  return current === undefined ? map : withEntry(map, key, update(current))
}
