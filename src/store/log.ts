import { createHash } from 'node:crypto'
import { open, type Database, type RootDatabase } from 'lmdb'
import { Packr } from 'msgpackr'

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

// A whole snapshot set as one blob, for carrying it off the machine (read replicas restore from it).
export const encodeSnapshotSet = (format: number, entries: readonly SnapshotEntry[]): Uint8Array => snapshotCodec.pack({ format, entries })

export const decodeSnapshotSet = (format: number, bytes: Uint8Array): SnapshotEntry[] | undefined => {
  try {
    const set = snapshotCodec.unpack(bytes) as { format: number; entries: SnapshotEntry[] }
    return set.format === format && Array.isArray(set.entries) ? set.entries : undefined
  } catch {
    return undefined
  }
}

// LMDB refuses keys over 1978 bytes, and a refused put fails the whole commit. Index keys carry
// caller data (an API token event's project is its projects joined), so long ones are stored hashed;
// so are keys with a NUL, which the compound-key encoding uses as a separator.
const maxIndexKeyBytes = 1000
const storedIndexKey = (key: string): string =>
  Buffer.byteLength(key) <= maxIndexKeyBytes && !key.includes('\u0000') ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`
const manifestKey = '\u0000manifest'

export interface EventLogOptions {
  // Runs inside every write transaction before anything is written; throwing fails that commit as a
  // full or failing disk would. For tests.
  writeGate?: () => void
}

interface QueuedAppend {
  records: StoredRecord[]
  indexKeys: string[][]
  settle: (error?: unknown) => void
}

export class EventLog {
  private nextId: number
  private committedId: number
  private queue: QueuedAppend[] = []
  private writing = false

  private constructor(
    private readonly root: RootDatabase,
    private readonly log: Database<StoredRecord, number>,
    private readonly index: Database<null, [string, number]>,
    private readonly snapshots: Database<Buffer, string>,
    private readonly options: EventLogOptions,
  ) {
    const [last] = Array.from(log.getKeys({ reverse: true, limit: 1 }))
    this.nextId = (last ?? 0) + 1
    this.committedId = this.nextId - 1
  }

  static open(path: string, options: EventLogOptions = {}): EventLog {
    // `path` is a directory; lmdb would take a name with a dot (`flags.v2`) for a single file.
    const root = open({ path, compression: false, noSubdir: false, maxDbs: 64 })
    const log = root.openDB<StoredRecord, number>({ name: 'log', keyEncoding: 'uint32' })
    const index = root.openDB<null, [string, number]>({ name: 'log-index' })
    const snapshots = root.openDB<Buffer, string>({ name: 'snapshots', encoding: 'binary' })
    return new EventLog(root, log, index, snapshots, options)
  }

  get lastId(): number {
    return this.nextId - 1
  }

  // Ids are handed out synchronously, in call order. Appends made while a commit is under way are
  // written together in the next transaction (one commit, one fsync for all of them). When a commit
  // fails, it and everything queued behind it fail, and their ids are handed out again: the log never
  // holds a record decided after one that was lost, and its ids stay without gaps.
  append<R extends StoredRecord>(drafts: Omit<R, 'id'>[], indexKeysOf: (record: R) => string[] = () => []): Appended<R> {
    const records = drafts.map((draft) => ({ ...draft, id: this.nextId++ }) as R)
    const committed = new Promise<void>((resolve, reject) => {
      this.queue.push({ records, indexKeys: records.map(indexKeysOf), settle: (error) => (error === undefined ? resolve() : reject(error)) })
    })
    this.writeQueued()
    return { records, committed }
  }

  private writeQueued(): void {
    if (this.writing || this.queue.length === 0) return
    const batch = this.queue
    this.queue = []
    this.writing = true
    this.root
      .transaction(() => {
        this.options.writeGate?.()
        for (const { records, indexKeys } of batch) {
          records.forEach((record, i) => {
            this.log.put(record.id, record)
            for (const key of indexKeys[i]) this.index.put([storedIndexKey(key), record.id], null)
          })
        }
      })
      .then(
        () => {
          for (const { records } of batch) if (records.length > 0) this.committedId = records[records.length - 1].id
          for (const append of batch) append.settle()
        },
        (error: unknown) => {
          const lost = [...batch, ...this.queue]
          this.queue = []
          this.nextId = this.committedId + 1
          for (const append of lost) append.settle(error ?? new Error('the commit failed'))
        },
      )
      .finally(() => {
        this.writing = false
        this.writeQueued()
      })
  }

  get(id: number): StoredRecord | undefined {
    return this.log.get(id)
  }

  *from(firstId: number): Iterable<StoredRecord> {
    for (const { value } of this.log.getRange({ start: firstId })) yield value
  }

  // The newest `limit` records that `keep` accepts, newest first.
  newest(limit: number, keep: (record: StoredRecord) => boolean = () => true): StoredRecord[] {
    const result: StoredRecord[] = []
    if (limit <= 0) return result
    for (const { value } of this.log.getRange({ reverse: true })) {
      if (!keep(value)) continue
      result.push(value)
      if (result.length >= limit) break
    }
    return result
  }

  count(): number {
    return this.log.getCount()
  }

  idsFor(key: string, options: { reverse?: boolean; limit?: number } = {}): number[] {
    const indexKey = storedIndexKey(key)
    const range = options.reverse
      ? { start: [indexKey, Number.MAX_SAFE_INTEGER] as [string, number], end: [indexKey, 0] as [string, number], reverse: true }
      : { start: [indexKey, 0] as [string, number], end: [indexKey, Number.MAX_SAFE_INTEGER] as [string, number] }
    return Array.from(this.index.getKeys({ ...range, limit: options.limit }), (key) => key[1])
  }

  countFor(key: string): number {
    const indexKey = storedIndexKey(key)
    return this.index.getKeysCount({ start: [indexKey, 0], end: [indexKey, Number.MAX_SAFE_INTEGER] })
  }

  // All entries and the manifest go in one transaction, so a crash leaves the old set or the new one.
  async saveSnapshots(format: number, entries: SnapshotEntry[]): Promise<void> {
    await this.root.transaction(() => {
      for (const entry of entries) {
        this.snapshots.put(entry.key, snapshotCodec.pack({ lastId: entry.lastId, state: entry.state }))
      }
      this.snapshots.put(manifestKey, snapshotCodec.pack({ format, keys: entries.map((e) => e.key) }))
    })
  }

  // Undefined when the set is missing, of another format or unreadable: the caller replays from the start.
  loadSnapshots(format: number): SnapshotEntry[] | undefined {
    try {
      const manifestBytes = this.snapshots.get(manifestKey)
      if (!manifestBytes) return undefined
      const manifest = snapshotCodec.unpack(manifestBytes) as { format: number; keys: string[] }
      if (manifest.format !== format) return undefined
      const entries: SnapshotEntry[] = []
      for (const key of manifest.keys) {
        const bytes = this.snapshots.get(key)
        if (!bytes) return undefined
        const { lastId, state } = snapshotCodec.unpack(bytes) as { lastId: number; state: unknown }
        if (!Number.isSafeInteger(lastId) || lastId > this.lastId) return undefined
        entries.push({ key, lastId, state })
      }
      return entries
    } catch {
      return undefined
    }
  }

  // Key/value side data that is not part of the log (metrics' lastSeenAt, ...).
  side<V>(name: string): Database<V, string> {
    return this.root.openDB<V, string>({ name: `side-${name}` })
  }

  async close(): Promise<void> {
    await this.root.close()
  }
}
