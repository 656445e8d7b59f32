import t from 'tap'
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

const fakeStream = () => {
  const written: string[] = []
  let closed = false
  const listeners: (() => void)[] = []
  const stream: OpenStream = {
    write: (chunk) => {
      written.push(String(chunk))
      return true
    },
    buffered: 0,
    onDrain: () => {},
    close: () => {
      closed = true
      for (const l of listeners) l()
    },
    get closed() {
      return closed
    },
    onClose: (l) => void listeners.push(l),
  }
  return { stream, written }
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
      return { revision, events: `{"type":"feature-updated","eventId":${revision}}`, hydration: false }
    },
  }
  return reader
}

t.test('connections of one query share one frame per change', async (t) => {
  const deltas = fakeDeltas()
  const tokens = new Map([['s', principal(['*'])]])
  const streams = new ClientStreams(deltas, { maxConnections: 10, heartbeatMs: 60_000, tokenCheckMs: 60_000, byToken: (s) => tokens.get(s) })
  t.teardown(() => streams.close())
  const a = fakeStream()
  const b = fakeStream()
  for (const s of [a, b]) streams.open(s.stream, { query: queryOf(principal(['*'])), secret: 's', principal: principal(['*']), lastEventId: undefined, rescope: queryOf })
  deltas.bump()
  streams.onCommitted([])
  t.same(deltas.built, ['since 1'], 'built once for two connections')
  t.equal(a.written[1], 'event: unleash-updated\nid: 2\ndata: {"events":[{"type":"feature-updated","eventId":2}]}\n\n')
  t.equal(b.written[1], a.written[1])
})

t.test('a token whose scope changed is hydrated with the new scope; a deleted one is closed', async (t) => {
  const deltas = fakeDeltas()
  const tokens = new Map([['s', principal(['a'])]])
  const streams = new ClientStreams(deltas, { maxConnections: 10, heartbeatMs: 60_000, tokenCheckMs: 60_000, byToken: (s) => tokens.get(s) })
  t.teardown(() => streams.close())
  const conn = fakeStream()
  streams.open(conn.stream, { query: queryOf(principal(['a'])), secret: 's', principal: principal(['a']), lastEventId: undefined, rescope: queryOf })
  tokens.set('s', principal(['a', 'b']))
  streams.onCommitted([{ id: 2, type: 'api-token-updated' } as EventRecord])
  t.equal(conn.written[1], 'event: unleash-updated\nid: 1\ndata: {"events":[{"type":"hydration","projects":["a","b"]}]}\n\n')
  tokens.delete('s')
  streams.onCommitted([{ id: 3, type: 'api-token-deleted' } as EventRecord])
  t.equal(conn.stream.closed, true)
  t.equal(streams.size, 0)
})

t.test('touchOf: what one committed record changed for SDKs', async (t) => {
  const record = (fields: Partial<EventRecord>) => ({ id: 9, createdAt: '', createdBy: '', createdByUserId: null, ...fields }) as EventRecord
  t.same(touchOf(record({ type: 'feature-environment-enabled', project: 'p', environment: 'dev', featureName: 'f' })), { id: 9, kind: 'feature', featureName: 'f', project: 'p', environment: 'dev' })
  t.same(touchOf(record({ type: 'feature-archived', project: 'p', featureName: 'f' })), { id: 9, kind: 'feature', featureName: 'f', project: 'p', environment: undefined })
  t.same(touchOf(record({ type: 'segment-deleted', preData: { id: 4, project: null } })), { id: 9, kind: 'segment', segmentId: 4, project: undefined })
  t.same(touchOf(record({ type: 'features-imported', project: 'p', environment: 'dev' })), { id: 9, kind: 'project', project: 'p', environment: 'dev' })
  t.equal(touchOf(record({ type: 'change-request-approved', project: 'p', featureName: 'f' })), undefined, 'a change request is not the flag')
  t.equal(touchOf(record({ type: 'project-user-added', project: 'p' })), undefined)
})
