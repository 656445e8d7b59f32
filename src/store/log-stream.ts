import { connect, nanos, type NatsConnection } from '@nats-io/transport-node'
import { DeliverPolicy, JetStreamApiCodes, JetStreamApiError, jetstream, jetstreamManager, StorageType, type JetStreamManager } from '@nats-io/jetstream'
import { Objm, type ObjectStore } from '@nats-io/obj'
import { Packr } from 'msgpackr'
import type { StoredRecord } from './log.js'

// The committed log carried to read replicas on a NATS JetStream stream. A record is published with
// its log id as Nats-Msg-Id and id - 1 as the expected last sequence, so the stream's sequence IS
// the log id: a duplicate is dropped by the stream, and a second writer (or one whose log does not
// continue the stream) is refused by it. Snapshots travel beside it in an object store bucket.

export interface LogStreamNames {
  stream: string
  subject: string
  bucket: string
}

export const logStreamNames = (stream: string): LogStreamNames => ({ stream, subject: `${stream}.records`, bucket: `${stream}-snapshots` })

const snapshotObject = 'latest'
const recordCodec = new Packr({ structuredClone: true, moreTypes: true })
const retryMs = 500
const publishWindow = 256

export interface StreamSettings {
  url: string
  names: LogStreamNames
  // Older records are dropped by the stream; a replica further behind than this restores a snapshot.
  retainRecords: number
  say: (line: string) => void
}

interface Connected {
  nc: NatsConnection
  jsm: JetStreamManager
  bucket: ObjectStore
}

const isApiError = (error: unknown, code: number) => error instanceof JetStreamApiError && error.code === code

const connectTo = async (settings: StreamSettings): Promise<Connected> => {
  const nc = await connect({ servers: settings.url, reconnect: false, timeout: 2000, name: 'flagwright' })
  try {
    const jsm = await jetstreamManager(nc, { timeout: 5000 })
    const bucket = await new Objm(jetstream(nc, { timeout: 5000 })).create(settings.names.bucket, { storage: StorageType.File })
    return { nc, jsm, bucket }
  } catch (error) {
    await nc.close()
    throw error
  }
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error))

// Waits out `ms` unless woken first.
class Wakeup {
  private wake: (() => void) | undefined

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.fire(), ms)
      this.wake = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  }

  fire(): void {
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }
}

export interface CommittedLog {
  // The last id known durable: nothing past it is published.
  committedId(): number
  get(id: number): StoredRecord | undefined
}

export interface PublisherStatus {
  connected: boolean
  publishedId: number
  refused: string | undefined
}

export class LogPublisher {
  private readonly wakeup = new Wakeup()
  private running: Promise<void> | undefined
  private stopped = false
  private connection: Connected | undefined
  private publishedId = 0
  private snapshotId = -1
  private refused: string | undefined

  constructor(
    private readonly settings: StreamSettings,
    private readonly log: CommittedLog,
    // The committed state as one blob, and the log id it reflects.
    private readonly snapshot: () => { lastId: number; bytes: Uint8Array },
    private readonly snapshotEvery: number,
  ) {}

  start(): void {
    this.running ??= this.run()
  }

  // A commit happened: publish it now rather than at the next poll.
  notify(): void {
    this.wakeup.fire()
  }

  status(): PublisherStatus {
    return { connected: this.connection !== undefined, publishedId: this.publishedId, refused: this.refused }
  }

  async close(): Promise<void> {
    this.stopped = true
    this.wakeup.fire()
    await this.running
  }

  private async run(): Promise<void> {
    let outage: string | undefined
    while (!this.stopped && !this.refused) {
      try {
        this.connection = await connectTo(this.settings)
        if (outage) this.settings.say(`replication: NATS at ${this.settings.url} is back; publishing from log id ${this.publishedId + 1}`)
        outage = undefined
        await this.publishWhileConnected(this.connection)
      } catch (error) {
        const reason = describe(error)
        if (outage !== reason) this.settings.say(`replication: cannot publish to NATS at ${this.settings.url} (${reason}); writes go on and the backlog is published when it returns`)
        outage = reason
      } finally {
        await this.connection?.nc.close().catch(() => undefined)
        this.connection = undefined
      }
      if (!this.stopped && !this.refused) await this.wakeup.sleep(retryMs)
    }
  }

  private async publishWhileConnected({ nc, jsm, bucket }: Connected): Promise<void> {
    const { stream, subject } = this.settings.names
    const info = await jsm.streams.info(stream).catch(async (error: unknown) => {
      if (!isApiError(error, JetStreamApiCodes.StreamNotFound)) throw error
      return jsm.streams.add({ name: stream, subjects: [subject], storage: StorageType.File, max_msgs: this.settings.retainRecords, duplicate_window: nanos(120_000) })
    })
    const streamLast = info.state.last_seq
    const refusal = await this.whyNotOurs(jsm, streamLast)
    if (refusal) {
      this.refused = refusal
      this.settings.say(`replication stopped: ${refusal}`)
      return
    }
    this.publishedId = streamLast
    const js = jetstream(nc, { timeout: 5000 })
    // Acks come back in order on one connection, so a window of publishes is in flight at once; the
    // first failure ends the connection and the next one resumes from the stream's own last sequence.
    const inFlight: { id: number; ack: Promise<unknown> }[] = []
    let nextId = this.publishedId + 1
    let snapshotting: Promise<void> | undefined
    try {
      while (!this.stopped && !nc.isClosed()) {
        const committed = this.log.committedId()
        if (!snapshotting && (this.snapshotId < 0 || committed - this.snapshotId >= this.snapshotEvery)) {
          snapshotting = this.putSnapshot(bucket).finally(() => (snapshotting = undefined))
        }
        while (nextId <= committed && inFlight.length < publishWindow) {
          const id = nextId++
          const record = this.log.get(id)
          if (!record) throw new Error(`log id ${id} is missing from the log`)
          const ack = js.publish(subject, recordCodec.pack(record), { msgID: String(id), expect: { lastSequence: id - 1 } })
          ack.catch(() => undefined)
          inFlight.push({ id, ack })
        }
        const oldest = inFlight.shift()
        if (!oldest) {
          await this.wakeup.sleep(1000)
          continue
        }
        await oldest.ack
        this.publishedId = oldest.id
      }
    } finally {
      await snapshotting?.catch(() => undefined)
    }
  }

  // The stream must hold this writer's log and nothing else: not more records than it has, and the
  // same record at its last sequence (checked byte for byte against ours).
  private async whyNotOurs(jsm: JetStreamManager, streamLast: number): Promise<string | undefined> {
    const { stream } = this.settings.names
    const committed = this.log.committedId()
    const other = `another writer, or one on another data directory, publishes to it`
    if (streamLast > committed) return `the stream ${stream} holds log id ${streamLast}, past this writer's ${committed}: ${other}`
    if (streamLast === 0) return undefined
    const stored = await jsm.streams.getMessage(stream, { seq: streamLast }).catch(() => null)
    const ours = this.log.get(streamLast)
    if (!stored) return undefined
    if (!ours || !Buffer.from(stored.data).equals(recordCodec.pack(ours))) return `the stream ${stream} holds a record ${streamLast} that is not this writer's: ${other}`
    return undefined
  }

  private async putSnapshot(bucket: ObjectStore): Promise<void> {
    const { lastId, bytes } = this.snapshot()
    await bucket.putBlob({ name: snapshotObject }, bytes)
    this.snapshotId = lastId
  }
}

export interface FollowerStatus {
  connected: boolean
  appliedId: number
  // The stream's last sequence as last seen: the writer's latest published log id.
  writerId: number
  restored: boolean
  // When the writer was last heard from (ms since the epoch): a record, or the stream's state on connecting.
  heardAt: number | undefined
}

export interface FollowTarget {
  appliedId(): number
  // Replaces all state with a snapshot blob's; false when the blob is not one this process reads.
  restore(bytes: Uint8Array): boolean
  apply(records: StoredRecord[]): void
}

export class LogFollower {
  private readonly wakeup = new Wakeup()
  private running: Promise<void> | undefined
  private stopped = false
  private connection: Connected | undefined
  private writerId = 0
  private restored = false
  private heardAt: number | undefined
  private stopConsuming: (() => void) | undefined

  constructor(
    private readonly settings: StreamSettings,
    private readonly target: FollowTarget,
  ) {}

  start(): void {
    this.running ??= this.run()
  }

  status(): FollowerStatus {
    return { connected: this.connection !== undefined, appliedId: this.target.appliedId(), writerId: Math.max(this.writerId, this.target.appliedId()), restored: this.restored, heardAt: this.heardAt }
  }

  async close(): Promise<void> {
    this.stopped = true
    this.stopConsuming?.()
    this.wakeup.fire()
    await this.running
  }

  private async run(): Promise<void> {
    let outage: string | undefined
    while (!this.stopped) {
      try {
        this.connection = await connectTo(this.settings)
        if (outage) this.settings.say(`replica: NATS at ${this.settings.url} is back; following from log id ${this.target.appliedId() + 1}`)
        outage = undefined
        await this.followWhileConnected(this.connection)
      } catch (error) {
        const reason = describe(error)
        if (outage !== reason) this.settings.say(`replica: cannot follow NATS at ${this.settings.url} (${reason}); serving what was applied, up to log id ${this.target.appliedId()}`)
        outage = reason
      } finally {
        await this.connection?.nc.close().catch(() => undefined)
        this.connection = undefined
      }
      if (!this.stopped) await this.wakeup.sleep(retryMs)
    }
  }

  // Returns when the connection ends or the replica must restore a snapshot (then the loop reconnects).
  private async followWhileConnected({ nc, jsm, bucket }: Connected): Promise<void> {
    const { stream } = this.settings.names
    const info = await jsm.streams.info(stream)
    this.writerId = info.state.last_seq
    this.heardAt = Date.now()
    // Behind the oldest record the stream still holds, or nothing applied yet: start from a snapshot.
    if (!this.restored || this.target.appliedId() + 1 < info.state.first_seq) {
      const bytes = await bucket.getBlob(snapshotObject)
      if (!bytes) throw new Error(`no snapshot yet in the object store ${this.settings.names.bucket}`)
      if (!this.target.restore(bytes)) throw new Error('the writer\'s snapshot is of a format this replica does not read')
      this.restored = true
      if (this.target.appliedId() + 1 < info.state.first_seq) {
        throw new Error(`the writer's snapshot (log id ${this.target.appliedId()}) is older than the oldest record the stream keeps (${info.state.first_seq})`)
      }
    }
    const consumer = await jetstream(nc).consumers.get(stream, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: this.target.appliedId() + 1 })
    const messages = await consumer.consume({ max_messages: 512 })
    this.stopConsuming = () => void messages.close()
    const closed = nc.closed().then(() => void messages.close())
    let batch: StoredRecord[] = []
    try {
      for await (const message of messages) {
        const applied = this.target.appliedId() + batch.length
        if (message.seq <= applied) continue
        // The stream dropped records this replica never saw: restore a snapshot instead.
        if (message.seq !== applied + 1) return
        batch.push(recordCodec.unpack(message.data) as StoredRecord)
        this.writerId = Math.max(this.writerId, message.seq + message.info.pending)
        this.heardAt = Date.now()
        if (message.info.pending === 0 || batch.length >= 256) {
          this.target.apply(batch)
          batch = []
        }
        if (this.stopped) break
      }
    } finally {
      if (batch.length > 0) this.target.apply(batch)
      this.stopConsuming = undefined
      void closed
    }
  }
}
