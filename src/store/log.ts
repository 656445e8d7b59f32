import { createHash } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { ABORT, open, type Database, type RootDatabase } from 'lmdb'
import { Packr } from 'msgpackr'
import { canonicalJson } from './canonical.js'
import { SharedStrings } from './shared-strings.js'
import { BlobMap, readingBlobs, writingBlobs, type BlobSink, type BlobSource } from './snapshot-blobs.js'

// The store holds records, snapshots and index keys; what they mean is for its callers.
export interface StoredRecord {
  id: number
}

export interface Appended<R extends StoredRecord> {
  records: R[]
  committed: Promise<void>
}

export interface SnapshotEntry {
  key: string
  lastId: number
  state: unknown
}

const snapshotCodec = new Packr({ structuredClone: true, moreTypes: true })

// msgpackr encodes into one working buffer, shared by every codec of the module, that grows to four times
// the largest value encoded and is then kept for as long as the process runs (at 50,000 flags, 5-14 MB
// after a snapshot set). After a large value the codecs get a small buffer again; the answer keeps the
// large one only while it is held.
const largeValueBytes = 256 * 1024
const freshBufferBytes = 8192

const packed = (value: unknown): Uint8Array => {
  const bytes = snapshotCodec.pack(value)
  if (bytes.length > largeValueBytes) snapshotCodec.useBuffer(Buffer.allocUnsafeSlow(freshBufferBytes))
  return bytes
}

// One entry's bytes; a copy, since msgpackr's answer may share its working buffer.
const encodeEntry = (entry: SnapshotEntry, blobs: BlobSink): Uint8Array =>
  writingBlobs(blobs, () => Uint8Array.from(packed({ lastId: entry.lastId, state: entry.state })))

const decodeEntry = (bytes: Uint8Array, blobs: BlobSource, strings: SharedStrings): { lastId: number; state: unknown } =>
  readingBlobs(blobs, () => snapshotCodec.unpack(bytes) as { lastId: number; state: unknown }, strings)

// A whole snapshot set as one blob, for carrying it off the machine (read replicas restore from it):
// its entries, each encoded on its own, and every blob they reference (taken from `stored` where it
// holds them, so that chunks already written to the data directory are not encoded again).
export const encodeSnapshotSet = (format: number, entries: readonly SnapshotEntry[], stored?: BlobSource): Uint8Array => {
  const blobs = new BlobMap(stored)
  const encoded = entries.map((entry) => ({ key: entry.key, bytes: encodeEntry(entry, blobs) }))
  return packed({ format, entries: encoded, blobs: [...blobs.blobs] })
}

// `emptyList`: one frozen list to answer every empty list of the states with; given, equal small values of
// the states are one value too (states are never changed in place).
export const decodeSnapshotSet = (format: number, bytes: Uint8Array, emptyList?: readonly unknown[]): SnapshotEntry[] | undefined => {
  try {
    const set = snapshotCodec.unpack(bytes) as { format: number; entries: { key: string; bytes: Uint8Array }[]; blobs: [string, Uint8Array][] }
    if (set.format !== format || !Array.isArray(set.entries) || !Array.isArray(set.blobs)) return undefined
    const blobs = new BlobMap()
    for (const [id, blob] of set.blobs) blobs.put(id, blob)
    const strings = new SharedStrings({ emptyList, sharedValues: emptyList !== undefined })
    return set.entries.map(({ key, bytes: entry }) => ({ key, ...decodeEntry(entry, blobs, strings) }))
  } catch {
    return undefined
  }
}

// A snapshot set being encoded, one entry at a time (a caller may yield to the event loop between
// entries, and between the blobs it encodes ahead of them), then written by EventLog.writeSnapshotSet.
export class SnapshotSet implements BlobSink {
  readonly entries: { key: string; lastId: number; bytes: Uint8Array }[] = []
  // Every blob the set references, and the bytes of those not stored yet (until written).
  readonly referenced = new Set<string>()
  readonly fresh = new Map<string, Uint8Array>()
  // Blobs the set stores (written already or not), and the bytes of those not written yet.
  blobsStored = 0
  pendingBytes = 0

  constructor(
    readonly format: number,
    private readonly stored: (id: string) => boolean,
  ) {}

  reference(id: string): boolean {
    if (this.referenced.has(id)) return false
    this.referenced.add(id)
    return !this.stored(id)
  }

  put(id: string, bytes: Uint8Array): void {
    this.referenced.add(id)
    if (this.fresh.has(id)) return
    this.fresh.set(id, bytes)
    this.blobsStored++
    this.pendingBytes += bytes.length
  }

  add(entry: SnapshotEntry): void {
    this.entries.push({ key: entry.key, lastId: entry.lastId, bytes: encodeEntry(entry, this) })
  }

  // Runs an encoder whose extensions hand their blobs to this set (chunks encoded ahead of the entry).
  encode<T>(encode: () => T): T {
    return writingBlobs(this, encode)
  }
}

// Blobs are written in transactions of about this many bytes before the set itself, so that no one
// transaction holds the event loop for long.
export const blobBytesPerTransaction = 2 * 1024 * 1024

const settleAndThrow = (error: unknown): never => {
  settleCommitError(error)
  throw error
}

// LMDB refuses keys over 1978 bytes, and a refused put fails the whole commit. Index keys carry
// caller data (an API token event's project is its projects joined), so long ones are stored hashed;
// so are keys with a NUL, which the compound-key encoding uses as a separator.
const maxIndexKeyBytes = 1000
const storedIndexKey = (key: string): string =>
  Buffer.byteLength(key) <= maxIndexKeyBytes && !key.includes('\u0000') ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`
const manifestKey = '\u0000manifest'

// lmdb-js rejects a failed commit with a generic error whose `commitError` promise rejects with the
// cause (a full disk, say); nothing else awaits that promise, so it is settled here.
const settleCommitError = (error: unknown): void => {
  const cause = (error as { commitError?: unknown } | null)?.commitError
  if (cause instanceof Promise) cause.catch(() => undefined)
}

// The cause's message, for the one line that says why writes are refused.
const commitFailure = async (error: unknown): Promise<Error> => {
  const pending = (error as { commitError?: unknown } | null)?.commitError
  const cause = pending instanceof Promise ? await pending.then(() => error, (reason: unknown) => reason) : error
  const text = cause instanceof Error ? cause.message : String(cause ?? 'unknown')
  return new Error(`the commit failed: ${text.split('\n')[0].slice(0, 300)}`, { cause: error })
}

// The tamper-evident chain: hash(n) = sha256(hash(n-1) ‖ canonical JSON of record n); the first link
// hashes 32 zero bytes in place of a previous hash.
const genesis: Buffer = Buffer.alloc(32)
export const chainLink = (previous: Buffer, record: StoredRecord): Buffer =>
  createHash('sha256').update(previous).update(canonicalJson(record)).digest()

export interface ChainHead {
  id: number
  hash: string
}

export type ChainCheck = ({ ok: true } & ChainHead) | { ok: false; id: number; problem: string }

export interface EventLogOptions {
  // For tools that read a log a running server may be writing (verify, backup).
  readOnly?: boolean
  // Bytes of address space reserved for the map at open; lmdb-js grows it when a commit outgrows it.
  mapSize?: number
  // Runs inside every write transaction before anything is written; throwing fails that commit as a
  // full or failing disk would. For tests.
  writeGate?: () => void
}

interface Handles {
  root: RootDatabase
  log: Database<StoredRecord, number>
  index: Database<null, [string, number]>
  snapshots: Database<Uint8Array, string>
  blobs: Database<Uint8Array, string>
  chain: Database<Buffer, number>
  // Side tables, opened on first use in each environment.
  sides: Map<string, Database<unknown, string>>
}

// Key/value side data that is not part of the log (metrics' lastSeenAt, sessions, ...): what its users
// call of a table. A table outlives the environment it was opened in (releaseReadPages reopens it).
export interface SideTable<V> {
  get(key: string): V | undefined
  put(key: string, value: V): Promise<boolean>
  remove(key: string): Promise<boolean>
  getRange(): Iterable<{ key: string; value: V }>
  transaction<T>(action: () => T): Promise<T>
}

const openHandles = (path: string, options: EventLogOptions): Handles => {
  // `path` is a directory; lmdb would take a name with a dot (`flags.v2`) for a single file.
  // Every write goes through an explicit transaction, so lmdb-js's batching of loose writes per event
  // turn is off: its batch promise, which nothing awaits, would be an unhandled rejection (and end the
  // process) the first time a commit fails on a full disk.
  const root = open({
    path,
    compression: false,
    noSubdir: false,
    maxDbs: 64,
    eventTurnBatching: false,
    readOnly: options.readOnly ?? false,
    ...(options.mapSize && { mapSize: options.mapSize }),
  })
  return {
    root,
    log: root.openDB<StoredRecord, number>({ name: 'log', keyEncoding: 'uint32' }),
    index: root.openDB<null, [string, number]>({ name: 'log-index' }),
    snapshots: root.openDB<Uint8Array, string>({ name: 'snapshots', encoding: 'binary' }),
    blobs: root.openDB<Uint8Array, string>({ name: 'snapshot-blobs', encoding: 'binary' }),
    chain: root.openDB<Buffer, number>({ name: 'log-chain', keyEncoding: 'uint32', encoding: 'binary' }),
    sides: new Map(),
  }
}

export class EventLog {
  private nextId: number
  private committedId: number
  // The hash of the newest appended record (committed or not): the next link is chained to it.
  private headHash: Buffer
  private committedHash: Buffer
  // Bumped when a commit fails: appends made before the failure are doomed, and only the first of
  // them to fail takes the ids and links back.
  private generation = 0
  // What is under way in the environment (transactions not settled, range reads not finished, backups
  // among the transactions), and whether anything was written or read by range since it was opened:
  // releaseReadPagesSoon reopens it only when something was, once nothing is.
  private pendingWrites = 0
  private openIterations = 0
  private backups = 0
  private touched = false
  private releasing = false
  // While a release waits for the writes under way to settle, the writes asked for meanwhile are held
  // here, and started in the order they were asked for once the environment is open again.
  private holding = false
  private held: (() => void)[] = []
  private writesSettled: (() => void) | undefined
  // The release under way, which close() lets finish (its held writes are someone's acknowledged wait).
  private releaseUnderWay: Promise<boolean> | undefined

  private constructor(
    private handles: Handles,
    private readonly path: string,
    private readonly options: EventLogOptions,
  ) {
    const [last] = Array.from(this.log.getKeys({ reverse: true, limit: 1 }))
    this.nextId = (last ?? 0) + 1
    this.committedId = this.nextId - 1
    this.headHash = last === undefined ? genesis : (this.chain.get(last) ?? genesis)
    this.committedHash = this.headHash
  }

  private get root(): RootDatabase {
    return this.handles.root
  }
  private get log(): Database<StoredRecord, number> {
    return this.handles.log
  }
  private get index(): Database<null, [string, number]> {
    return this.handles.index
  }
  private get snapshots(): Database<Uint8Array, string> {
    return this.handles.snapshots
  }
  private get blobs(): Database<Uint8Array, string> {
    return this.handles.blobs
  }
  private get chain(): Database<Buffer, number> {
    return this.handles.chain
  }

  static open(path: string, options: EventLogOptions = {}): EventLog {
    const handles = openHandles(path, options)
    if (!options.readOnly) addMissingChain(handles.root, handles.log, handles.chain)
    return new EventLog(handles, path, options)
  }

  // Closes and opens the environment again, with nothing under way: the data file's pages read so far
  // (mapped, so counted in the process's RSS until unmapped) leave memory. A start reads the whole
  // snapshot set (64 MiB of pages at 50,000 flags) and after it only the log's tail and side tables.
  async releaseReadPages(): Promise<void> {
    this.releasing = true
    try {
      // lmdb-js keeps the free pages its last commit read in memory for the next write transaction and
      // does not free them when the environment closes (at 50,000 flags, 2.3 KiB a reopen, for as long
      // as the process runs); a write transaction that ends aborted frees them.
      if (!this.options.readOnly) this.root.transactionSync(() => ABORT)
      await this.root.close()
      this.handles = openHandles(this.path, this.options)
      this.touched = false
    } finally {
      this.releasing = false
      this.startHeld()
    }
  }

  // The same in service, from a timer: every page a write copies or a range read walks stays mapped
  // (a commit copies the page the one before it wrote, so the log's new pages are mapped as it grows:
  // 5.5 MiB/s at 6,000 writes/s, at 50,000 flags; a day of writes, the whole file). When the
  // environment was touched since it was opened: writes asked for from now on are held, and once those
  // under way have settled (one commit), if no range read is open and lmdb-js's last flush has settled,
  // it closes and opens again within one turn of the event loop, so no request meets it closed; then the
  // held writes start. (After a failed commit that flush stays pending until a write succeeds, and a
  // close would wait for it with the environment half closed.) Not while a backup is under way, which
  // may take long.
  releaseReadPagesSoon(): Promise<boolean> {
    if (!this.touched || this.holding || this.releasing || this.backups > 0) return Promise.resolve(false)
    const release = this.releaseOnceSettled()
    this.releaseUnderWay = release
    return release
  }

  private async releaseOnceSettled(): Promise<boolean> {
    this.holding = true
    try {
      if (this.pendingWrites > 0) {
        await new Promise<void>((resolve) => (this.writesSettled = resolve))
        // The last commit's callers go on in the same turn (a request reading a side table, say): the
        // environment closes in a turn of its own.
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
      if (this.openIterations > 0 || !(await this.lastFlushSettled())) return false
      await this.releaseReadPages()
      return true
    } finally {
      this.holding = false
      this.startHeld()
    }
  }

  private lastFlushSettled(): Promise<boolean> {
    return Promise.race([
      Promise.resolve(this.root.flushed).then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => setImmediate(resolve, false)),
    ])
  }

  private startHeld(): void {
    if (this.holding || this.releasing) return
    for (const start of this.held.splice(0)) start()
  }

  // Every write transaction goes through here: counted while it is under way, held while a release waits.
  private writing<T>(write: () => Promise<T>): Promise<T> {
    if (!this.holding && !this.releasing) return this.started(write)
    return new Promise<T>((resolve, reject) => this.held.push(() => void this.started(write).then(resolve, reject)))
  }

  private started<T>(write: () => Promise<T>): Promise<T> {
    this.pendingWrites++
    this.touched = true
    let pending: Promise<T>
    try {
      pending = write()
    } catch (error) {
      pending = Promise.reject(error)
    }
    return pending.finally(() => {
      if (--this.pendingWrites > 0) return
      this.writesSettled?.()
      this.writesSettled = undefined
    })
  }

  // Every range read goes through here, counted until it ends (or its caller stops early).
  private *iterating<T>(range: Iterable<T>): Generator<T> {
    if (this.releasing) throw new Error('the data directory is being reopened')
    this.openIterations++
    this.touched = true
    try {
      yield* range
    } finally {
      this.openIterations--
    }
  }

  get lastId(): number {
    return this.nextId - 1
  }

  // Ids are handed out synchronously, in call order, and each record is chained to the one before it
  // then. Each append is its own LMDB transaction, started at once: lmdb-js commits transactions in the
  // order they were started, several in one commit and one flush when they queue up, and a commit's
  // flush overlaps the next one's writing. A transaction whose previous record is not stored (an
  // earlier commit failed) fails too, so when a commit fails, it and every append made before the
  // failure was heard fail, and their ids are handed out again: the log never holds a record decided
  // after one that was lost, and its ids and chain stay without gaps.
  append<R extends StoredRecord>(drafts: Omit<R, 'id'>[], indexKeysOf: (record: R) => string[] = () => []): Appended<R> {
    if (drafts.length === 0) return { records: [], committed: Promise.resolve() }
    const records = drafts.map((draft) => ({ ...draft, id: this.nextId++ }) as R)
    const hashes = records.map((record) => (this.headHash = chainLink(this.headHash, record)))
    const indexKeys = records.map(indexKeysOf)
    const firstId = records[0].id
    const lastId = firstId + records.length - 1
    const generation = this.generation
    const committed = this.writing(() =>
      this.root.transaction(() => {
        this.options.writeGate?.()
        if ((firstId > 1 && !this.log.doesExist(firstId - 1)) || this.log.doesExist(firstId)) {
          throw new Error(`the log does not end at record ${firstId - 1}: a commit before this one failed`)
        }
        records.forEach((record, i) => {
          this.log.put(record.id, record)
          this.chain.put(record.id, hashes[i])
          for (const key of indexKeys[i]) this.index.put([storedIndexKey(key), record.id], null)
        })
      }),
    ).then(
      () => {
        this.committedId = lastId
        this.committedHash = hashes[hashes.length - 1]
      },
      async (error: unknown) => {
        settleCommitError(error)
        if (generation === this.generation) {
          this.generation++
          this.nextId = this.committedId + 1
          this.headHash = this.committedHash
        }
        throw await commitFailure(error)
      },
    )
    return { records, committed }
  }

  get(id: number): StoredRecord | undefined {
    return this.log.get(id)
  }

  *from(firstId: number): Iterable<StoredRecord> {
    for (const { value } of this.iterating(this.log.getRange({ start: firstId }))) yield value
  }

  // Every record, newest first, read as the caller goes.
  *newestFirst(): Iterable<StoredRecord> {
    for (const { value } of this.iterating(this.log.getRange({ reverse: true }))) yield value
  }

  // The newest `limit` records that `keep` accepts, newest first.
  newest(limit: number, keep: (record: StoredRecord) => boolean = () => true): StoredRecord[] {
    const result: StoredRecord[] = []
    if (limit <= 0) return result
    for (const { value } of this.iterating(this.log.getRange({ reverse: true }))) {
      if (!keep(value)) continue
      result.push(value)
      if (result.length >= limit) break
    }
    return result
  }

  // The chain's link for a stored record, as 64 hex digits.
  hashOf(id: number): string | undefined {
    return this.chain.get(id)?.toString('hex')
  }

  // Walks the whole log: the first record whose link does not follow from the one before it, or the head.
  verifyChain(): ChainCheck {
    let previous = genesis
    let expectedId = 1
    for (const { key, value } of this.iterating(this.log.getRange())) {
      if (key !== expectedId) {
        return { ok: false, id: expectedId, problem: `record ${expectedId} is missing: the log goes from ${expectedId - 1} to ${key}` }
      }
      if (value.id !== key) return { ok: false, id: key, problem: `the record stored under ${key} says its id is ${String(value.id)}` }
      const stored = this.chain.get(key)
      if (!stored) return { ok: false, id: key, problem: `record ${key} has no stored hash` }
      const computed = chainLink(previous, value)
      if (!computed.equals(stored)) {
        return {
          ok: false,
          id: key,
          problem: `record ${key} does not match its stored hash (stored ${stored.toString('hex')}, computed ${computed.toString('hex')}): the record, its hash or an earlier hash was changed`,
        }
      }
      previous = stored
      expectedId++
    }
    const lastId = expectedId - 1
    const [extra] = Array.from(this.chain.getKeys({ start: lastId + 1, limit: 1 }))
    if (extra !== undefined) return { ok: false, id: extra, problem: `a hash is stored for record ${extra}, which is not in the log: records were removed from its end` }
    return { ok: true, id: lastId, hash: previous.toString('hex') }
  }

  // A consistent copy (one read transaction) while writers carry on; compacted, so free pages are left out.
  async backup(directory: string): Promise<void> {
    mkdirSync(directory, { recursive: true })
    // The environment is a directory (noSubdir: false), so lmdb writes data.mdb inside the path it is given.
    await this.writing(async () => {
      this.backups++
      try {
        await this.root.backup(directory, true)
      } finally {
        this.backups--
      }
    })
  }

  count(): number {
    return this.log.getCount()
  }

  idsFor(key: string, options: { reverse?: boolean; limit?: number } = {}): number[] {
    const indexKey = storedIndexKey(key)
    const range = options.reverse
      ? { start: [indexKey, Number.MAX_SAFE_INTEGER] as [string, number], end: [indexKey, 0] as [string, number], reverse: true }
      : { start: [indexKey, 0] as [string, number], end: [indexKey, Number.MAX_SAFE_INTEGER] as [string, number] }
    return Array.from(this.iterating(this.index.getKeys({ ...range, limit: options.limit })), (key) => key[1])
  }

  countFor(key: string): number {
    const indexKey = storedIndexKey(key)
    return this.index.getKeysCount({ start: [indexKey, 0], end: [indexKey, Number.MAX_SAFE_INTEGER] })
  }

  // All entries and the manifest go in one transaction, so a crash leaves the old set or the new one.
  async saveSnapshots(format: number, entries: SnapshotEntry[]): Promise<void> {
    const set = this.snapshotSet(format)
    for (const entry of entries) set.add(entry)
    await this.writeSnapshotSet(set)
  }

  // A set to encode and then write with writeSnapshotSet; blobs already in the data directory are not
  // encoded again.
  snapshotSet(format: number): SnapshotSet {
    return new SnapshotSet(format, (id) => this.storedBlobs().has(id))
  }

  // The new blobs first, a few MB per transaction (a crash between them leaves blobs no set names,
  // removed by the next set); then every entry, the manifest and the removal of the blobs the set no
  // longer names, in one transaction, so a crash leaves the old set or the new one.
  async writeSnapshotSet(set: SnapshotSet): Promise<void> {
    await this.writeSnapshotBlobs(set)
    const stored = this.storedBlobs()
    const unnamed = [...stored].filter((id) => !set.referenced.has(id))
    await this.writing(() =>
      this.root.transaction(() => {
        for (const entry of set.entries) this.snapshots.put(entry.key, entry.bytes)
        this.snapshots.put(manifestKey, packed({ format: set.format, keys: set.entries.map((e) => e.key), blobs: [...set.referenced] }))
        for (const id of unnamed) this.blobs.remove(id)
      }),
    ).catch(settleAndThrow)
    for (const id of unnamed) stored.delete(id)
  }

  // Writes the set's blobs encoded so far (an encoder may do so as it goes, so that they are not all
  // held in memory at once); no set names them until writeSnapshotSet.
  async writeSnapshotBlobs(set: SnapshotSet): Promise<void> {
    const stored = this.storedBlobs()
    const fresh = [...set.fresh].filter(([id]) => !stored.has(id))
    set.fresh.clear()
    set.pendingBytes = 0
    for (let i = 0; i < fresh.length; ) {
      const batch: [string, Uint8Array][] = []
      for (let bytes = 0; i < fresh.length && (batch.length === 0 || bytes < blobBytesPerTransaction); i++) {
        batch.push(fresh[i])
        bytes += fresh[i][1].length
      }
      await this.writing(() =>
        this.root.transaction(() => {
          for (const [id, bytes] of batch) this.blobs.put(id, bytes)
        }),
      ).catch(settleAndThrow)
      for (const [id] of batch) stored.add(id)
    }
  }

  private blobNames: Set<string> | undefined
  private storedBlobs(): Set<string> {
    return (this.blobNames ??= new Set(this.blobs.getKeys()))
  }

  // A stored snapshot blob (replicas' snapshot sets are built from them).
  snapshotBlob(id: string): Uint8Array | undefined {
    return this.blobs.get(id)
  }

  // Undefined when the set is missing, of another format or unreadable: the caller replays from the start.
  // `emptyList`: as for decodeSnapshotSet.
  loadSnapshots(format: number, emptyList?: readonly unknown[]): SnapshotEntry[] | undefined {
    try {
      const manifestBytes = this.snapshots.get(manifestKey)
      if (!manifestBytes) return undefined
      const manifest = snapshotCodec.unpack(manifestBytes) as { format: number; keys: string[] }
      if (manifest.format !== format) return undefined
      const blobs: BlobSource = { get: (id) => this.blobs.get(id) }
      const strings = new SharedStrings({ emptyList, sharedValues: emptyList !== undefined })
      const entries: SnapshotEntry[] = []
      for (const key of manifest.keys) {
        const bytes = this.snapshots.get(key)
        if (!bytes) return undefined
        const { lastId, state } = decodeEntry(bytes, blobs, strings)
        if (!Number.isSafeInteger(lastId) || lastId > this.lastId) return undefined
        entries.push({ key, lastId, state })
      }
      return entries
    } catch {
      return undefined
    }
  }

  // A side table, in whichever environment is open when it is used.
  side<V>(name: string): SideTable<V> {
    const table = (): Database<V, string> => {
      let opened = this.handles.sides.get(name)
      if (!opened) this.handles.sides.set(name, (opened = this.root.openDB<unknown, string>({ name: `side-${name}` })))
      return opened as Database<V, string>
    }
    return {
      get: (key) => table().get(key),
      put: (key, value) => this.writing(() => table().put(key, value)),
      remove: (key) => this.writing(() => table().remove(key)),
      getRange: () => this.iterating(table().getRange()),
      transaction: (action) => this.writing(() => table().transaction(action)),
    }
  }

  async close(): Promise<void> {
    await this.releaseUnderWay?.catch(() => undefined)
    await this.root.close()
  }
}

// Data directories from before the chain existed get one on first start, beginning at their first record.
// Only an empty chain is filled in: a chain that stops short was cut, and verify must be able to say so.
const addMissingChain = (root: RootDatabase, log: Database<StoredRecord, number>, chain: Database<Buffer, number>): void => {
  // (getKeysCount ignores `limit`: it counted every link, paging the whole chain in at each start.)
  for (const _ of chain.getKeys({ limit: 1 })) return
  root.transactionSync(() => {
    let previous = genesis
    for (const { key, value } of log.getRange()) {
      previous = chainLink(previous, value)
      chain.put(key, previous)
    }
  })
}
