import t, { type Test } from 'tap'
import type { EventRecord } from '../../src/domain/events.js'
import type { OpenStream, Principal } from '../../src/http/types.js'
import type { Delta } from '../../src/read/client-deltas.js'
import { touchOf } from '../../src/read/client-deltas.js'
import type { ClientQuery } from '../../src/read/client-features.js'
import { ClientStreams, type DeltaReader } from '../../src/read/client-streams.js'

const principal = (projects: string[], environment = 'development'): Principal => ({
  kind: 'client', name: 't', userId: null, projects, environment, can: () => false,
})
const queryOf = (p: Principal): ClientQuery => ({ environment: p.environment, projects: p.projects.includes('*') ? '*' : p.projects, inlineSegmentConstraints: false })

// A stream whose connection takes every write until told not to (a client that stopped reading); drain()
// is its client catching up.
const fakeStream = () => {
  const written: string[] = []
  let closed = false
  let buffered = 0
  let isTaking = true
  const listeners: (() => void)[] = []
  const drainListeners: (() => void)[] = []
  const stream: OpenStream = {
    write: (chunk) => {
      if (closed) return false
      written.push(String(chunk))
      if (!isTaking || buffered > 0) buffered += chunk.length
      return buffered === 0
    },
    get buffered() {
      return buffered
    },
    onDrain: (l) => void drainListeners.push(l),
    close: () => {
      closed = true
      for (const l of listeners) l()
    },
    get closed() {
      return closed
    },
    onClose: (l) => void listeners.push(l),
  }
  return {
    stream,
    written,
    stopReading: () => void (isTaking = false),
    drain: () => {
      isTaking = true
      buffered = 0
      for (const l of drainListeners) l()
    },
  }
}

// Counts how often a frame is built, to show that connections of one query share it.
const fakeDeltas = () => {
  let revision = 1
  const built: string[] = []
  const reader: DeltaReader & { bump(): void; built: string[] } = {
    built,
    bump: () => void revision++,
    revisionFor: () => revision,
    hydration: (query: ClientQuery): Delta => ({ revision, events: `{"type":"hydration","projects":${JSON.stringify(query.projects)}}`, hydration: true }),
    since: (_query: ClientQuery, since: number): Delta => {
      built.push(`since ${since}`)
      if (since === revision) return { revision, events: '', hydration: false }
      return { revision, events: `{"type":"feature-updated","eventId":${revision}}`, hydration: false }
    },
  }
  return reader
}

const options = (tokens: Map<string, Principal>, maxBufferedBytes = 1 << 20) => ({
  maxConnections: 10, heartbeatMs: 60_000, tokenCheckMs: 60_000, maxBufferedBytes, byToken: (s: string) => tokens.get(s),
})
const everything = principal(['*'])
const request = { query: queryOf(everything), secret: 's', principal: everything, lastEventId: undefined, rescope: queryOf }

// One stream open with the token 's', whose scope is project 'a' until a test changes `tokens`.
const streamOfTokenS = (t: Test) => {
  const deltas = fakeDeltas()
  const tokens = new Map([['s', principal(['a'])]])
  const streams = new ClientStreams(deltas, options(tokens))
  t.teardown(() => streams.close())
  const conn = fakeStream()
  streams.open(conn.stream, { query: queryOf(principal(['a'])), secret: 's', principal: principal(['a']), lastEventId: undefined, rescope: queryOf })
  return { deltas, tokens, streams, conn }
}

t.test('connections of one query share one frame per change', async (t) => {
  const deltas = fakeDeltas()
  const streams = new ClientStreams(deltas, options(new Map([['s', everything]])))
  t.teardown(() => streams.close())
  const a = fakeStream()
  const b = fakeStream()
  for (const s of [a, b]) streams.open(s.stream, request)
  deltas.bump()
  streams.onCommitted([])
  t.same(deltas.built, ['since 1'], 'built once for two connections')
  t.equal(a.written[1], 'event: unleash-updated\nid: 2\ndata: {"events":[{"type":"feature-updated","eventId":2}]}\n\n')
  t.equal(b.written[1], a.written[1])
})

t.test('a token whose scope changed is hydrated with the new scope; a deleted one is closed', async (t) => {
  const { deltas, tokens, streams, conn } = streamOfTokenS(t)
  tokens.set('s', principal(['a', 'b']))
  streams.onCommitted([{ id: 2, type: 'api-token-updated' } as EventRecord])
  t.equal(conn.written[1], 'event: unleash-updated\nid: 1\ndata: {"events":[{"type":"hydration","projects":["a","b"]}]}\n\n')
  tokens.delete('s')
  streams.onCommitted([{ id: 3, type: 'api-token-deleted' } as EventRecord])
  t.equal(conn.stream.closed, true)
  t.equal(streams.size, 0)
})

t.test('a stream that falls behind is written nothing more until it drains, then what changed in one frame', async (t) => {
  const deltas = fakeDeltas()
  const streams = new ClientStreams(deltas, options(new Map([['s', everything]])))
  t.teardown(() => streams.close())
  const slow = fakeStream()
  const quick = fakeStream()
  streams.open(slow.stream, request)
  streams.open(quick.stream, request)
  slow.stopReading()
  for (let i = 0; i < 3; i++) {
    deltas.bump()
    streams.onCommitted([])
  }
  t.equal(quick.written.length, 4, 'the reader gets every change')
  t.equal(slow.written.length, 2, 'the slow one is written the change it fell behind on, then nothing')
  t.equal(streams.bufferedBytes(), slow.written[1].length, 'what its connection holds')
  t.equal(slow.stream.closed, false, 'under the limit it stays open')
  slow.drain()
  t.equal(slow.written[2], 'event: unleash-updated\nid: 4\ndata: {"events":[{"type":"feature-updated","eventId":4}]}\n\n', 'one frame with what changed since revision 2')
  t.equal(deltas.built.at(-1), 'since 2')
  deltas.bump()
  streams.onCommitted([])
  t.equal(slow.written.length, 4, 'after it drained it follows every change again')
  slow.stopReading()
  deltas.bump()
  streams.onCommitted([])
  slow.drain()
  t.equal(slow.written.length, 5, 'a stream that missed nothing while it was behind is written nothing when it drains')
})

t.test('a frame that leaves a stream holding more than the limit ends it, counted; its first frame does not', async (t) => {
  const deltas = fakeDeltas()
  const streams = new ClientStreams(deltas, options(new Map([['s', everything]]), 10))
  t.teardown(() => streams.close())
  const conn = fakeStream()
  conn.stopReading()
  streams.open(conn.stream, request)
  t.equal(conn.stream.closed, false, 'a hydration the connection cannot take at once is not held against it')
  deltas.bump()
  streams.onCommitted([])
  t.equal(conn.written.length, 1, 'nothing more while it is behind')
  conn.drain()
  t.equal(conn.written.length, 2, 'caught up once drained')
  conn.stopReading()
  deltas.bump()
  streams.onCommitted([])
  t.equal(conn.stream.closed, true, 'the next frame it could not take is over the limit: ended')
  t.equal(streams.droppedSlow, 1)
  t.equal(streams.size, 0)
})

t.test('a token whose scope changed while its stream was behind catches up with a hydration of the new scope', async (t) => {
  const { deltas, tokens, streams, conn } = streamOfTokenS(t)
  conn.stopReading()
  deltas.bump()
  streams.onCommitted([])
  tokens.set('s', principal(['a', 'b']))
  streams.onCommitted([{ id: 3, type: 'api-token-updated' } as EventRecord])
  t.equal(conn.written.length, 2, 'nothing written while behind')
  conn.drain()
  t.equal(conn.written[2], 'event: unleash-updated\nid: 2\ndata: {"events":[{"type":"hydration","projects":["a","b"]}]}\n\n')
})

t.test('touchOf: what one committed record changed for SDKs', async (t) => {
  const record = (fields: Partial<EventRecord>) => ({ id: 9, createdAt: '', createdBy: '', createdByUserId: null, ...fields }) as EventRecord
  t.same(touchOf(record({ type: 'feature-environment-enabled', project: 'p', environment: 'dev', featureName: 'f' })), { id: 9, kind: 'feature', featureName: 'f', project: 'p', environment: 'dev' })
  t.same(touchOf(record({ type: 'feature-archived', project: 'p', featureName: 'f' })), { id: 9, kind: 'feature', featureName: 'f', project: 'p', environment: undefined })
  t.same(touchOf(record({ type: 'segment-deleted', preData: { id: 4, name: 's', description: null, project: null, constraints: [], createdAt: '', createdBy: '' } })), { id: 9, kind: 'segment', segmentId: 4, project: undefined })
  t.same(touchOf(record({ type: 'features-imported', project: 'p', environment: 'dev' })), { id: 9, kind: 'project', project: 'p', environment: 'dev' })
  t.equal(touchOf(record({ type: 'change-request-approved', project: 'p', featureName: 'f' })), undefined, 'a change request is not the flag')
  t.equal(touchOf(record({ type: 'project-user-added', project: 'p' })), undefined)
})
