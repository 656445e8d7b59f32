import { join } from 'node:path'
import t from 'tap'
import { snapshotEntries, snapshotFormat } from '../../src/actors/recovery.js'
import { emptyInstance } from '../../src/domain/instance-state.js'
import type { EventDraft, EventRecord, EventType } from '../../src/domain/events.js'
import { ProjectInsights, type ProjectInsightsSnapshot } from '../../src/read/project-insights.js'
import { EventLog } from '../../src/store/log.js'

// Events with only the fields the insights read: not every payload is whole.
const ev = (type: EventType, at: string, fields: object = {}): EventDraft =>
  ({
    type,
    createdAt: `${at}T00:00:00.000Z`,
    createdBy: 'tester',
    createdByUserId: 1,
    ...fields,
  }) as EventDraft
const created = (name: string, at: string, type = 'release') =>
  ev('feature-created', at, { project: 'p', featureName: name, data: { name, type, createdAt: `${at}T00:00:00.000Z` } })
const enabled = (name: string, environment: string, at: string) => ({ ...ev('feature-environment-enabled', at, { project: 'p', featureName: name, environment }), createdAt: at })

// "Now" is 2024-06-30: the current window starts 2024-05-31, the past one 2024-05-01.
const now = new Date('2024-06-30T00:00:00.000Z')

const history = (): EventDraft[] => [
  ev('environment-created', '2024-01-01', { environment: 'production', data: { name: 'production', type: 'production' } }),
  ev('environment-created', '2024-01-01', { environment: 'development', data: { name: 'development', type: 'development' } }),
  ev('project-created', '2024-04-01', { project: 'p', data: { id: 'p', owner: 9 } }),
  created('a', '2024-04-10'), // before both windows
  created('b', '2024-05-10'), // past window
  created('c', '2024-06-10'), // current window
  created('d', '2024-06-15', 'experiment'), // current window, not a release flag
  created('e', '2024-05-20'), // past window, archived in the current one
  created('f', '2024-04-05'), // archived in the past window
  enabled('a', 'production', '2024-04-20T00:00:00.000Z'), // 10 days
  enabled('b', 'development', '2024-05-11T00:00:00.000Z'), // not production
  enabled('b', 'production', '2024-05-13T12:00:00.000Z'), // 3.5 days: 3 whole days
  ev('feature-environment-disabled', '2024-05-20', { project: 'p', featureName: 'b', environment: 'production' }),
  enabled('b', 'production', '2024-06-01T00:00:00.000Z'), // not the first: ignored
  enabled('c', 'production', '2024-06-10T01:00:00.000Z'), // 0 days
  enabled('d', 'production', '2024-06-16T00:00:00.000Z'), // experiment: ignored
  ev('feature-archived', '2024-06-20', { project: 'p', featureName: 'e' }),
  ev('feature-archived', '2024-05-15', { project: 'p', featureName: 'f' }),
  ev('project-access-added', '2024-06-05', { project: 'p', data: { roles: [{ roleId: 5, userIds: [1, 2], groupIds: [] }, { roleId: 4, userIds: [2], groupIds: [3] }] } }),
  created('x', '2024-06-10'),
  ev('project-created', '2024-06-01', { project: 'other', data: { id: 'other' } }),
  { ...created('elsewhere', '2024-06-02'), project: 'other' },
]

t.test('stats of a hand-computed history', async (t) => {
  const insights = new ProjectInsights(() => now)
  insights.apply(history())
  // Activity of p, current window (>= 05-31): created c, d, x; enabled b (06-01), c, d; archived e; access added = 8.
  // Past window [05-01, 05-31): created b, e; enabled b (dev, prod); disabled b; archived f = 6.
  t.same(insights.stats('p'), {
    avgTimeToProdCurrentWindow: 4.3, // (10 + 3 + 0) / 3
    createdCurrentWindow: 3, // c, d, x
    createdPastWindow: 1, // b (e is archived)
    archivedCurrentWindow: 1, // e
    archivedPastWindow: 1, // f
    projectActivityCurrentWindow: 8,
    projectActivityPastWindow: 6,
    projectMembersAddedCurrentWindow: 2, // users 1 and 2; the owner was added before the window
  })
  t.same(insights.stats('other').createdCurrentWindow, 1)
  t.same(insights.stats('nope'), {
    avgTimeToProdCurrentWindow: 0,
    createdCurrentWindow: 0,
    createdPastWindow: 0,
    archivedCurrentWindow: 0,
    archivedPastWindow: 0,
    projectActivityCurrentWindow: 0,
    projectActivityPastWindow: 0,
    projectMembersAddedCurrentWindow: 0,
  })
})

t.test('time to production rounds to one decimal, and is 0.1 rather than 0 when there is data', async (t) => {
  const insights = new ProjectInsights(() => now)
  insights.apply(history().slice(0, 3))
  insights.apply([created('q', '2024-06-10'), enabled('q', 'production', '2024-06-10T05:00:00.000Z')])
  t.equal(insights.stats('p').avgTimeToProdCurrentWindow, 0.1)
})

t.test('revive, delete, type changes and project deletion are followed', async (t) => {
  const insights = new ProjectInsights(() => now)
  insights.apply(history())
  insights.apply([
    ev('feature-revived', '2024-06-25', { project: 'p', featureName: 'e' }),
    ev('feature-deleted', '2024-06-25', { project: 'p', featureName: 'f' }),
    ev('feature-metadata-updated', '2024-06-25', { project: 'p', featureName: 'c', data: { type: 'operational' } }),
  ])
  const stats = insights.stats('p')
  t.equal(stats.createdPastWindow, 2, 'revived e counts as created again')
  t.equal(stats.archivedCurrentWindow, 0)
  t.equal(stats.archivedPastWindow, 0, 'deleted f is gone')
  t.equal(stats.avgTimeToProdCurrentWindow, 6.5, 'c is no longer a release flag: (10 + 3) / 2')
  insights.apply([ev('project-deleted', '2024-06-26', { project: 'p' })])
  t.equal(insights.stats('p').projectActivityCurrentWindow, 0)
})

t.test('the windows move with the clock', async (t) => {
  let clock = now
  const insights = new ProjectInsights(() => clock)
  insights.apply(history())
  clock = new Date('2024-07-31T00:00:00.000Z')
  const stats = insights.stats('p')
  t.equal(stats.createdCurrentWindow, 0)
  t.equal(stats.createdPastWindow, 3, 'c, d and x moved to the past window')
  t.equal(stats.archivedPastWindow, 1)
})

t.test('a snapshot written through the log, restored and followed by the tail gives the stats of the whole history', async (t) => {
  const events = history()
  const whole = new ProjectInsights(() => now)
  whole.apply(events)

  const dir = t.testdir()
  const log = EventLog.open(join(dir, 'data'))
  for (const event of events) await log.append<EventRecord>([event]).committed
  const atSnapshot = new ProjectInsights(() => now)
  atSnapshot.apply(events.slice(0, 12))
  await log.saveSnapshots(snapshotFormat, snapshotEntries(emptyInstance(), new Map(), new Map(), 12, [{ key: 'insights', restore: () => undefined, apply: () => undefined, snapshot: () => atSnapshot.snapshot() }]))
  // Changes after the snapshot was taken must not reach it.
  atSnapshot.apply(events.slice(12))
  await log.close()

  const reopened = EventLog.open(join(dir, 'data'))
  // (These events are not a project's whole history, so recover() is not run over them: recovery.test.ts
  // checks that it hands read models their entries.)
  const entry = reopened.loadSnapshots(snapshotFormat)?.find((e) => e.key === 'read:insights')
  t.equal(entry?.lastId, 12)
  const restored = new ProjectInsights(() => now)
  restored.restore(entry?.state as ProjectInsightsSnapshot)
  const tail = [...reopened.from(13)] as EventRecord[]
  t.equal(tail.length, events.length - 12, 'only the tail is read')
  restored.apply(tail)
  await reopened.close()
  t.same(restored.stats('p'), whole.stats('p'))
  t.same(restored.stats('p').projectActivityCurrentWindow, 8)
  t.same(restored.stats('other'), whole.stats('other'))
})

t.test('activity older than the two windows is not kept: the lists do not grow with every event for ever', async (t) => {
  let today = now
  const insights = new ProjectInsights(() => today)
  insights.apply([ev('project-created', '2024-01-01', { project: 'p', data: { id: 'p' } })])
  insights.apply(Array.from({ length: 1000 }, (_, i) => ev('feature-stale-on', '2024-03-01', { project: 'p', featureName: `old-${i}` })))
  insights.apply([ev('feature-stale-on', '2024-05-10', { project: 'p', featureName: 'past' }), ev('feature-stale-on', '2024-06-20', { project: 'p', featureName: 'current' })])
  const activityOf = () => insights.snapshot().projects.find(([id]) => id === 'p')![1].activityMs
  t.same([...activityOf()], [Date.parse('2024-05-10T00:00:00.000Z'), Date.parse('2024-06-20T00:00:00.000Z')])
  t.equal(insights.stats('p').projectActivityPastWindow, 1)
  t.equal(insights.stats('p').projectActivityCurrentWindow, 1)

  today = new Date('2024-07-20T00:00:00.000Z')
  insights.apply([ev('feature-stale-on', '2024-07-19', { project: 'p', featureName: 'later' })])
  t.same([...activityOf()], [Date.parse('2024-06-20T00:00:00.000Z'), Date.parse('2024-07-19T00:00:00.000Z')], 'a month on, the May event is dropped')
})
