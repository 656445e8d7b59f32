import type { EventRecord } from '../domain/events.js'
import type { OpenStream, Principal } from '../http/types.js'
import { cacheKey, type ClientQuery } from './client-features.js'
import { deltaBytes, hasEvents, type ClientDeltas, type Delta } from './client-deltas.js'

// What the streams read: the delta read model's three questions.
export type DeltaReader = Pick<ClientDeltas, 'revisionFor' | 'hydration' | 'since'>

export interface StreamOptions {
  // Above this many open streams a new one is told to poll instead (fetch-mode: polling).
  maxConnections: number
  // SSE comments keep idle connections open through proxies (Edge's own interval is 30 s).
  heartbeatMs: number
  // How often token expiry is checked; deletions and scope changes are seen on commit.
  tokenCheckMs: number
  // A stream that a frame leaves holding more than this (its client reads slower than changes come) is
  // ended: its SDK reconnects and is hydrated from the current state.
  maxBufferedBytes: number
  byToken: (secret: string) => Principal | undefined
}

export interface StreamRequest {
  query: ClientQuery
  secret: string
  principal: Principal
  // The client's Last-Event-ID, when it reconnects.
  lastEventId: number | undefined
  // The query the same request would make with a token whose scope changed.
  rescope: (principal: Principal) => ClientQuery
}

interface Connection {
  stream: OpenStream
  secret: string
  scope: string
  rescope: (principal: Principal) => ClientQuery
  group: Group
  // Set while the stream is behind (its connection holds a frame it did not take whole): the revision its
  // client is at once that has gone. Changes meanwhile are not written; when it drains, it is sent them in
  // one frame, each flag once as it is now, so a slow client costs one frame, not every frame it missed.
  behindAt: number | undefined
  // Its token's scope changed while it was behind: it catches up with a hydration of the new scope.
  needsHydration: boolean
}

// Connections that share a query share every frame: one serialisation per change per query.
interface Group {
  key: string
  query: ClientQuery
  revision: number
  connections: Set<Connection>
}

const scopeOf = (principal: Principal) => `${principal.environment}\u0000${principal.projects.join('\u0001')}`

type FrameEvent = 'unleash-connected' | 'unleash-updated'

// Also what a stream that was behind is written to learn whether it has drained (Reply.drainProbe).
export const keepAlive = Buffer.from(': keep-alive\n\n')
const toPolling = Buffer.from('event: fetch-mode\ndata: polling\n\n')

// Server-sent events as unleash-client's streaming mode reads them (unleash-connected, unleash-updated,
// fetch-mode), fed by committed records.
export class ClientStreams {
  private readonly groups = new Map<string, Group>()
  private readonly connections = new Set<Connection>()
  private readonly timers: NodeJS.Timeout[] = []
  private slowDropped = 0
  // ClientDeltas hands out one Delta per change and query, so the streams that connect or catch up at the
  // same point share its frame's bytes instead of each encoding the same hydration again.
  private readonly frames: Record<FrameEvent, WeakMap<Delta, Buffer>> = { 'unleash-connected': new WeakMap(), 'unleash-updated': new WeakMap() }

  constructor(
    private readonly deltas: DeltaReader,
    private readonly options: StreamOptions,
  ) {
    const every = (ms: number, work: () => void) => {
      const timer = setInterval(work, ms)
      timer.unref()
      this.timers.push(timer)
    }
    every(options.heartbeatMs, () => {
      for (const connection of this.connections) this.send(connection, keepAlive, connection.group.revision)
    })
    every(options.tokenCheckMs, () => this.checkTokens())
  }

  get size(): number {
    return this.connections.size
  }

  // Streams ended because they held more than maxBufferedBytes, since start.
  get droppedSlow(): number {
    return this.slowDropped
  }

  // What the connections of all streams hold for clients that are behind.
  bufferedBytes(): number {
    let bytes = 0
    for (const connection of this.connections) bytes += connection.stream.buffered
    return bytes
  }

  // Whether a poller may be invited to stream (fetch-mode: streaming).
  hasRoom(): boolean {
    return this.connections.size < this.options.maxConnections
  }

  open(stream: OpenStream, request: StreamRequest): void {
    if (!this.hasRoom()) {
      stream.write(toPolling)
      stream.close()
      return
    }
    const group = this.groupFor(request.query)
    const connection: Connection = {
      stream, secret: request.secret, scope: scopeOf(request.principal), rescope: request.rescope, group, behindAt: undefined, needsHydration: false,
    }
    group.connections.add(connection)
    this.connections.add(connection)
    stream.onClose(() => this.forget(connection))
    stream.onDrain(() => this.catchUp(connection))
    const delta = request.lastEventId === undefined ? this.deltas.hydration(request.query) : this.deltas.since(request.query, request.lastEventId)
    // The first frame is not held against the limit: a stream that cannot take its hydration at once costs
    // what a poll of the same body does, and ending it would only bring its SDK back for the same bytes.
    if (!stream.write(this.frame('unleash-connected', delta)) && !stream.closed) connection.behindAt = delta.revision
  }

  onCommitted(records: readonly EventRecord[]): void {
    if (records.some((r) => r.type.startsWith('api-token-'))) this.checkTokens()
    for (const group of this.groups.values()) {
      const revision = this.deltas.revisionFor(group.query)
      if (revision === group.revision) continue
      const delta = this.deltas.since(group.query, group.revision)
      group.revision = revision
      if (!hasEvents(delta)) continue
      const bytes = this.frame('unleash-updated', delta)
      for (const connection of group.connections) this.send(connection, bytes, delta.revision)
    }
  }

  close(): void {
    for (const timer of this.timers) clearInterval(timer)
    for (const connection of [...this.connections]) connection.stream.close()
  }

  // A deleted or expired token loses its streams at once; a token whose scope changed is hydrated anew.
  private checkTokens(): void {
    for (const connection of [...this.connections]) {
      const principal = this.options.byToken(connection.secret)
      if (!principal) {
        connection.stream.close()
        continue
      }
      const scope = scopeOf(principal)
      if (scope === connection.scope) continue
      const query = connection.rescope(principal)
      this.leave(connection)
      const group = this.groupFor(query)
      connection.group = group
      connection.scope = scope
      group.connections.add(connection)
      if (connection.behindAt !== undefined) {
        connection.needsHydration = true
        continue
      }
      const hydration = this.deltas.hydration(query)
      this.send(connection, this.frame('unleash-updated', hydration), hydration.revision)
    }
  }

  private frame(event: FrameEvent, delta: Delta): Buffer {
    const made = this.frames[event]
    let bytes = made.get(delta)
    if (!bytes) made.set(delta, (bytes = deltaBytes(delta, `event: ${event}\nid: ${delta.revision}\ndata: {"events":[`, ']}\n\n')))
    return bytes
  }

  // Writes a frame to a stream that is not behind; one the frame leaves behind is ended past the limit.
  private send(connection: Connection, bytes: Buffer, revision: number): void {
    if (connection.behindAt !== undefined) return
    const stream = connection.stream
    if (stream.write(bytes) || stream.closed) return
    connection.behindAt = revision
    if (stream.buffered > this.options.maxBufferedBytes) {
      this.slowDropped++
      stream.close()
    }
  }

  // A stream that was behind has drained: it is sent what changed since, in one frame.
  private catchUp(connection: Connection): void {
    const since = connection.behindAt
    if (since === undefined) return
    connection.behindAt = undefined
    const query = connection.group.query
    const delta = connection.needsHydration ? this.deltas.hydration(query) : this.deltas.since(query, since)
    connection.needsHydration = false
    if (!hasEvents(delta)) return
    this.send(connection, this.frame('unleash-updated', delta), delta.revision)
  }

  private groupFor(query: ClientQuery): Group {
    const key = cacheKey(query)
    let group = this.groups.get(key)
    if (!group) {
      group = { key, query, revision: this.deltas.revisionFor(query), connections: new Set() }
      this.groups.set(key, group)
    }
    return group
  }

  private leave(connection: Connection): void {
    const group = connection.group
    group.connections.delete(connection)
    if (group.connections.size === 0) this.groups.delete(group.key)
  }

  private forget(connection: Connection): void {
    if (!this.connections.delete(connection)) return
    this.leave(connection)
  }
}
