import { Packr, addExtension } from 'msgpackr'
import { chunkEntries, PersistentMap, SmallMap } from '../domain/immutable.js'
import { blobBytesPerTransaction, type EventLog, type SnapshotEntry, type SnapshotSet } from '../store/log.js'
import { afterDecode, blobBytes, blobId, blobSink, sharedDecoded } from '../store/snapshot-blobs.js'
import { nextTurn, Slices } from '../next-turn.js'

// States hold PersistentMaps wherever a map grew large (a project's flags). A snapshot stores one as
// the names of its chunks, each chunk a blob of its own (store/snapshot-blobs.ts) encoded once per
// version of the chunk: a chunk no event touched is the same array in every later version of the map,
// and it keeps the name of its blob here, so a set encodes and writes only the chunks changed since the
// last one (at 50,000 flags, 782 chunks of 64 flags, 43 MB in all). A restored map has the chunks it
// was stored with, named already (restoredMap): the first set after a start writes only what changed.
//
// A chunk is encoded without structured cloning, which tracks every object it writes in a Map (an entry
// and a small object each: 2 million short-lived objects for a set of every chunk at 50,000 flags, whose
// scavenges were the longest pauses of a set written while serving). States are immutable values, so an
// object two flags share is written twice and read back as two equal ones; where nothing is shared the
// bytes are the same as with it. Chunks are decoded with it, so sets written before read as they did.
const chunkCodec = new Packr({ structuredClone: true, moreTypes: true })
const chunkEncoder = new Packr({ moreTypes: true })
const chunkNames = new WeakMap<object, string>()

// A chunk as stored: its slots' entries as pairs, an empty slot undefined.
type Chunk = readonly (readonly [unknown, unknown] | undefined)[]

const chunkName = (chunk: readonly unknown[]): string => {
  const sink = blobSink()
  let name = chunkNames.get(chunk)
  if (name !== undefined && !sink.reference(name)) return name
  // Not copied: msgpackr never writes over an answer it gave (it starts the next after it, or in a new
  // buffer), and the set holds a chunk's bytes only until they are written. A copy doubled the external
  // memory a set allocates (43 MB more at 50,000 flags), which V8 answers with full collections.
  const bytes = chunkEncoder.pack(chunkEntries(chunk))
  if (name === undefined) {
    name = blobId(bytes)
    chunkNames.set(chunk, name)
    if (!sink.reference(name)) return name
  }
  sink.put(name, bytes)
  return name
}

const chunkSize = 64

// Chunks are decoded after the entry that names them, not inside its decode (which would copy the
// entry's buffer once per map: the insights entry holds 1.6 MB of times, and 782 chunks made that
// 1.3 GB of copies at 50,000 flags). While a chunk is decoded, a map inside it is decoded at once.
let decodingChunks = 0

// The map the named chunks hold. A map without empty slots (no entry was ever removed from it) is
// rebuilt with the same chunks, which keep their names; otherwise the rebuilt chunks are encoded anew
// by the next set.
const restoredMap = (names: readonly string[]): PersistentMap<unknown, unknown> => {
  const entries: (readonly [unknown, unknown])[] = []
  let full = true
  decodingChunks++
  try {
    names.forEach((name, i) => {
      const chunk = chunkCodec.unpack(blobBytes(name)) as Chunk
      if (!Array.isArray(chunk)) throw new Error(`snapshot blob ${name} is not a chunk`)
      const before = entries.length
      for (const entry of chunk) if (entry !== undefined && entry !== null) entries.push(sharedDecoded(entry))
      if (entries.length - before !== (i < names.length - 1 ? chunkSize : chunk.length)) full = false
    })
  } finally {
    decodingChunks--
  }
  const map = PersistentMap.from(entries)
  const chunks = map.chunkList
  if (full && chunks.length === names.length) chunks.forEach((chunk, i) => chunkNames.set(chunk, names[i]))
  return map
}

// Where an entry's decode met a map: its chunks' names, replaced by the map once the decode is over.
class DeferredMap {
  constructor(readonly names: readonly string[]) {}
}

// Replaces every DeferredMap in a freshly decoded value (plain objects, arrays and Maps, all its own).
const settle = (value: unknown): unknown => {
  if (value instanceof DeferredMap) return restoredMap(value.names)
  if (value instanceof SmallMap) {
    const items = value.items.map(settle)
    return items.every((item, i) => item === value.items[i]) ? value : SmallMap.fromItems(items)
  }
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value) || value instanceof PersistentMap || value instanceof Set) return value
  if (value instanceof Map) {
    for (const [key, item] of value) {
      const settled = settle(item)
      if (settled !== item) value.set(key, settled)
    }
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = settle(value[i])
  } else {
    const record = value as Record<string, unknown>
    for (const key of Object.keys(record)) {
      const settled = settle(record[key])
      if (settled !== record[key]) record[key] = settled
    }
  }
  return value
}

const readMap = (names: string[]): unknown => {
  if (decodingChunks > 0) return restoredMap(names)
  afterDecode(settle)
  return new DeferredMap(names)
}

// 0x50 was format 12's: the chunks' bytes inside the entry.
addExtension({
  Class: PersistentMap,
  type: 0x51,
  write: (map: PersistentMap<unknown, unknown>) => map.chunkList.map(chunkName),
  read: readMap,
})

// A SmallMap as its list of keys and values. The strings and empty lists in it are shared as a restore
// shares the rest (SharedStrings leaves class instances alone).
addExtension({
  Class: SmallMap,
  type: 0x52,
  write: (map: SmallMap<unknown, unknown>) => map.items,
  read: (items: unknown[]) => SmallMap.fromItems(sharedDecoded(items)),
})

// The PersistentMaps of a state, found without walking into them (or into long lists).
const persistentMapsIn = (value: unknown, found: PersistentMap<unknown, unknown>[], depth = 0): void => {
  if (depth > 5 || value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return
  if (value instanceof PersistentMap) {
    found.push(value)
    return
  }
  if (value instanceof Map || value instanceof SmallMap) {
    for (const item of value.values()) persistentMapsIn(item, found, depth + 1)
    return
  }
  if (Array.isArray(value)) {
    if (value.length <= 1000) for (const item of value) persistentMapsIn(item, found, depth + 1)
    return
  }
  for (const item of Object.values(value)) persistentMapsIn(item, found, depth + 1)
}

// Encodes the entries into the set. With `pause`, the work is cut into slices of about `sliceMs`
// between which it awaits `pause()` (the event loop serves requests meanwhile): every chunk the set
// does not hold yet is encoded ahead of its entry, one at a time, then the entries one by one. The
// states are immutable and the read models' entries copies, so what is encoded stays the set of one
// log position however long it takes.
// Slices are short because a write waits for several turns of the event loop (its request, its
// decision, lmdb-js's transaction callback, its commit), and each turn may begin with a slice: with
// 4 ms slices, flag creations while a set was written (a third of a second at 80,000 flags) took 20 ms
// and more, which made the p99 of a creates run; with 1 ms, about 10 ms.
export const encodeEntries = async (set: SnapshotSet, entries: readonly SnapshotEntry[], pause?: () => Promise<void>, sliceMs = 1): Promise<void> => {
  const slices = pause && new Slices(pause, sliceMs)
  const breathe = async () => {
    if (slices?.due) await slices.next()
  }
  for (const entry of entries) {
    if (pause) {
      const maps: PersistentMap<unknown, unknown>[] = []
      persistentMapsIn(entry.state, maps)
      for (const map of maps) {
        for (const chunk of map.chunkList) {
          set.encode(() => chunkName(chunk))
          await breathe()
        }
      }
    }
    set.add(entry)
    await breathe()
  }
}

// The pause of a set encoded while serving: once a few MB of chunks wait, their write (so that a set of
// every chunk is not held in memory whole: 43 MB at 50,000 flags), then a turn of the event loop. The
// turn comes last: a write is heard of in the loop's poll phase, and a slice begun there would run on
// into the check phase's next one with no timer between them (a block of two slices).
export const servingPause = (log: EventLog, set: SnapshotSet) => async (): Promise<void> => {
  if (set.pendingBytes >= blobBytesPerTransaction) await log.writeSnapshotBlobs(set)
  await nextTurn()
}
