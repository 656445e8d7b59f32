import t from 'tap'
import type { EventRecord } from '../../src/domain/events.js'
import { eventSummary, searchEvents, type EventSource } from '../../src/read/event-search.js'
import type { EventSearch } from '../../src/domain/search.js'

// The event search over a log in memory, and the label and summary of each event. The expected words
// are what Unleash 8.2 answered for the same events (its URL replaced by ours).

const url = 'http://flags.example'

// Records as Unleash 8.2 showed them, with only the fields its words read: not every payload is whole.
const record = (id: number, more: object): EventRecord =>
  ({
    id,
    type: 'feature-created',
    createdAt: `2024-03-0${Math.min(id, 9)}T12:00:00.000Z`,
    createdBy: 'anchor-admin',
    createdByUserId: -42,
    ...more,
  }) as EventRecord

const log: EventRecord[] = [
  record(1, { type: 'segment-created', data: { id: 1, name: 'srch-seg-users', constraints: [] } }),
  record(2, { project: 'default', featureName: 'srch-alpha', data: { name: 'srch-alpha', description: 'Checkout redesign', type: 'release' }, tags: [] }),
  record(3, { type: 'feature-tagged', project: 'default', featureName: 'srch-alpha', data: { type: 'simple', value: 'srch-blue' }, tags: [{ type: 'simple', value: 'srch-blue' }] }),
  record(4, { type: 'feature-environment-enabled', project: 'default', featureName: 'srch-alpha', environment: 'development', tags: [{ type: 'simple', value: 'srch-blue' }] }),
  record(5, { type: 'internal:feature-moved-out', project: 'default', featureName: 'srch-alpha' }),
  record(6, { type: 'feature-archived', project: 'default', featureName: 'srch-old', createdByUserId: 7, createdBy: 'jo' }),
]

const source: EventSource = {
  newestFirst: () => [...log].reverse(),
  idsFor: (key) =>
    log
      .filter((r) => key === `project:${r.project}` || key === `feature:${r.featureName}`)
      .map((r) => r.id)
      .reverse(),
  get: (id) => log.find((r) => r.id === id),
}

const ids = async (search: Partial<EventSearch>, projectEventsOnly = false) => {
  const found = await searchEvents(source, { offset: 0, limit: 50, ...search }, { projectEventsOnly })
  return [found.events.map((e) => e.id), found.total]
}

t.test('a search reads the log in slices, with a pause between them, and answers the same', async (t) => {
  const long = Array.from({ length: 1000 }, (_, i) => record(i + 1, i % 10 === 0 ? { type: 'feature-archived', project: 'default' } : { project: 'default' }))
  const longSource: EventSource = { newestFirst: () => [...long].reverse(), idsFor: () => [], get: (id) => long[id - 1] }
  const readAtPauses: number[] = []
  let read = 0
  const counting: EventSource = {
    ...longSource,
    *newestFirst() {
      for (const r of longSource.newestFirst()) {
        read++
        yield r
      }
    },
  }
  // A slice of 0 ms: a pause at each look at the clock, every 32 records.
  const found = await searchEvents(counting, { offset: 0, limit: 3, types: ['feature-archived'] }, { projectEventsOnly: false }, async () => void readAtPauses.push(read), 0)
  t.same(found.events.map((e) => e.id), [991, 981, 971])
  t.equal(found.total, 100, 'every match counted')
  t.same(readAtPauses, Array.from({ length: 31 }, (_, i) => 32 * (i + 1)), 'a pause after each 32 records read')
})

t.test('newest first; filters keep the listed values; internal records never show', async (t) => {
  t.same(await ids({}), [[6, 4, 3, 2, 1], 5])
  t.same(await ids({ limit: 2, offset: 1 }), [[4, 3], 5])
  t.same(await ids({ types: ['feature-created', 'feature-archived'] }), [[6, 2], 2])
  t.same(await ids({ features: ['srch-alpha'] }), [[4, 3, 2], 3])
  t.same(await ids({ projects: ['default'], environments: ['development'] }), [[4], 1])
  t.same(await ids({ projects: ['nope'] }), [[], 0])
  t.same(await ids({ ids: [1, 5, 6, 99] }), [[6, 1], 2])
  t.same(await ids({ createdByUserIds: [7] }), [[6], 1])
  t.same(await ids({ from: Date.parse('2024-03-03T00:00:00.000Z'), to: Date.parse('2024-03-05T00:00:00.000Z') }), [[4, 3], 2])
  t.same(await ids({ groupIds: ['1'] }), [[], 0], 'events carry no transaction group here')
  t.same(await ids({}, true), [[6, 4, 3, 2], 4], 'callers who are not admins see project events only')
})

t.test('the query is ILIKE %query% over the JSON of data, preData and tags', async (t) => {
  t.same(await ids({ query: 'CHECKOUT' }), [[2], 1])
  t.same(await ids({ query: 'srch-blue' }), [[4, 3], 2], 'tags count')
  t.same(await ids({ query: 'srch-old' }), [[], 0], 'the flag name alone does not')
  t.same(await ids({ query: 'name":"srch' }), [[2, 1], 2], 'the JSON text as stored')
  t.same(await ids({ query: '%' }), [[6, 4, 3, 2, 1], 5], '% matches every event: tags are at least []')
})

t.test('labels and summaries', async (t) => {
  const summary = (event: EventRecord) => eventSummary(event, url)
  t.same(summary(log[1]), { label: 'Flag created', summary: `**anchor-admin** created **[srch-alpha](${url}/projects/default/features/srch-alpha)** in project **[default](${url}/projects/default)**` })
  t.same(summary(log[2]), { label: 'Flag tagged', summary: `**anchor-admin** tagged **[srch-alpha](${url}/projects/default/features/srch-alpha)** with **simple:srch-blue** in project **[default](${url}/projects/default)**` })
  t.same(summary(log[3]), {
    label: 'Flag enabled',
    summary: `**anchor-admin** enabled **[srch-alpha](${url}/projects/default/features/srch-alpha)** for the **development** environment in project **[default](${url}/projects/default)**`,
  })
  t.same(summary(log[0]), { label: 'Segment created', summary: '**anchor-admin** created segment **srch-seg-users**' })
  t.same(summary(log[5]), { label: 'Flag archived', summary: `**jo** archived **srch-old** in project **[default](${url}/projects/default)**` })
  t.same(summary(record(9, { type: 'tag-created', data: { type: 'simple', value: 'x' } })), { label: 'tag-created', summary: '**anchor-admin** triggered **tag-created**' }, 'a type Unleash has no words for')
  const update = record(10, {
    type: 'feature-strategy-update',
    project: 'default',
    featureName: 'srch-alpha',
    environment: 'development',
    data: {
      id: 's1',
      name: 'flexibleRollout',
      title: null,
      constraints: [
        { values: ['a', 'b'], operator: 'IN', contextName: 'appName' },
        { value: '1.0.0', values: [], inverted: true, operator: 'SEMVER_GT', contextName: 'version' },
      ],
      parameters: { groupId: 'srch-alpha', rollout: '50', stickiness: 'userId' },
      segments: [1],
    },
    preData: { id: 's1', name: 'flexibleRollout', title: null, segments: [], parameters: { groupId: 'srch-alpha', rollout: '100', stickiness: 'default' }, constraints: [] },
  })
  t.same(summary(update), {
    label: 'Flag strategy updated',
    summary:
      `**anchor-admin** updated **[srch-alpha](${url}/projects/default/features/srch-alpha)** in project **[default](${url}/projects/default)** by updating strategy **flexibleRollout** in **development**` +
      ' stickiness from default to userId; rollout from 100% to 50%; constraints from empty set of constraints to [appName is one of (a,b), version not is a SemVer greater than 1.0.0]; segments from empty set of segments to (1)',
  })
  const ips = record(10, { ...update, data: { name: 'remoteAddress', parameters: { IPs: '10.0.0.1,10.0.0.2' }, constraints: [], segments: [] }, preData: { name: 'remoteAddress', parameters: { IPs: '' }, constraints: [], segments: [] } })
  t.match(summary(ips).summary, /by updating strategy \*\*remoteAddress\*\* in \*\*development\*\* IPs from empty set of IPs to \[10\.0\.0\.1,10\.0\.0\.2\]$/)
  const changeRequest = record(11, { type: 'change-request-approved', project: 'default', environment: 'production', data: { changeRequestId: 4 } })
  t.same(summary(changeRequest).summary, `**anchor-admin** approved change request **[#4](${url}/projects/default/change-requests/4)** in the **production** environment in project **[default](${url}/projects/default)**`)
})
