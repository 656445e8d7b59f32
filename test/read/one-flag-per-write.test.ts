import t from 'tap'
import type { EventDraft, EventRecord } from '../../src/domain/events.js'
import { draft } from '../../src/domain/events.js'
import { PersistentMap } from '../../src/domain/immutable.js'
import { defaultLimits, setLimits } from '../../src/domain/limits.js'
import type { Feature, ProjectState } from '../../src/domain/project-state.js'
import { ClientFeatures, type ClientQuery } from '../../src/read/client-features.js'
import { ClientRevisions } from '../../src/read/client-revisions.js'
import { Evaluators } from '../../src/read/evaluators.js'
import { FeatureSearchIndex, type FeatureSearchContext } from '../../src/read/feature-search.js'
import { featureSearchOf } from '../../src/domain/search.js'
import { Scenario, featureInput } from '../domain/fixtures/scenario.js'

// What a search reads besides the flags: nothing of it matters to these searches.
const searchContext = (s: Scenario): FeatureSearchContext => ({
  environments: s.environments,
  lifecycle: (feature) => feature.lifecycle[feature.lifecycle.length - 1],
  lastSeen: () => null,
  counts: () => ({ yes: 0, no: 0 }),
  segmentName: () => undefined,
  segmentIdsNamed: () => [],
  changeRequestIds: () => [],
  user: () => undefined,
})

// Issue 26: a write to one flag of a project of 5,000 touches that flag alone, in the state and in the
// read models fed by the commit: the project's other flags are the same objects, one chunk of its
// flag map is new, and the client features, the evaluators and the flag search each make one flag's
// part again (their counters), not the project's. Counted, not timed.
t.test('creating or changing one flag in a project of 5,000 re-serialises, recompiles and re-indexes that flag alone', async (t) => {
  // Unleash's default global limit is 5,000 flags: room for one more.
  setLimits({ ...defaultLimits, featureFlags: 10_000 })
  t.teardown(() => setLimits(defaultLimits))
  const s = new Scenario()
  s.createProject('web')
  const meta = s.meta()
  const seeded: EventDraft[] = []
  for (let i = 0; i < 5000; i++) {
    const featureName = `flag-${String(i).padStart(4, '0')}`
    const data = { name: featureName, description: null, type: 'release', project: 'web', stale: false, createdAt: meta.now, impressionData: false, archived: false }
    seeded.push(draft(meta, 'feature-created', { project: 'web', featureName, data, tags: [] }))
    seeded.push(draft(meta, 'feature-environment-enabled', { project: 'web', featureName, environment: 'development' }))
  }
  s.apply('web', seeded)

  const revisions = new ClientRevisions()
  const projects = () => s.projects
  const clientFeatures = new ClientFeatures({ projects, segments: () => new Map(), revisions })
  const evaluators = new Evaluators({ projects, segments: () => new Map(), revision: () => revisions.version() })
  const search = new FeatureSearchIndex(projects)
  const query: ClientQuery = { environment: 'development', projects: '*', inlineSegmentConstraints: false }
  let nextId = 1
  // What the commit pipeline does with a commit's records, then what the next reads do.
  const commit = (events: readonly EventDraft[]) => {
    const records = events.map((event) => ({ ...event, id: nextId++ }) as EventRecord)
    revisions.record(records, () => true)
    search.apply(records)
    evaluators.for('development')
    return clientFeatures.payload(query).plain().toString()
  }
  commit(seeded)
  search.warm()
  t.equal(clientFeatures.counters.flagsSerialised, 5000, 'the first body serialises every flag')
  t.equal(evaluators.counters.flagsCompiled, 5000, 'the first evaluation compiles every flag')
  t.equal(search.counters.rowsMade, 5000, 'the search index reads every flag once')

  const touched = (before: ProjectState, after: ProjectState, what: string) => {
    let same = 0
    for (const [name, feature] of before.features) if (after.features.get(name) === feature) same++
    const chunks = (state: ProjectState) => (state.features as PersistentMap<string, Feature>).chunkList
    const beforeChunks = new Set(chunks(before))
    t.ok(after.features instanceof PersistentMap, `${what}: the flags are a PersistentMap`)
    return { sameFeatures: same, newChunks: chunks(after).filter((chunk) => !beforeChunks.has(chunk)).length }
  }
  const counts = () => ({ serialised: clientFeatures.counters.flagsSerialised, compiled: evaluators.counters.flagsCompiled, rows: search.counters.rowsMade })
  const check = (what: string, events: EventDraft[], before: ProjectState, changed: number) => {
    const counted = counts()
    const body = commit(events)
    t.same(
      { serialised: clientFeatures.counters.flagsSerialised - counted.serialised, compiled: evaluators.counters.flagsCompiled - counted.compiled, rows: search.counters.rowsMade - counted.rows },
      { serialised: 1, compiled: 1, rows: 1 },
      `${what}: one flag re-serialised, recompiled and re-indexed`,
    )
    t.same(touched(before, s.project('web'), what), { sameFeatures: before.features.size - changed, newChunks: 1 }, `${what}: the other flags are the same objects, one chunk is new`)
    return body
  }

  const beforeCreate = s.project('web')
  const created = s.ok('web', { type: 'feature.create', input: featureInput({ name: 'new-flag', description: 'the 5,001st' }) })
  const afterCreate = check('a flag created', created, beforeCreate, 0)
  t.match(afterCreate, /"name":"new-flag"/, 'the body holds the new flag')

  const beforeToggle = s.project('web')
  const toggled = s.toggle('web', 'flag-2500', 'development', false)
  t.ok(toggled.ok, 'the toggle is decided')
  check('a flag in the middle switched off', toggled.ok ? toggled.value : [], beforeToggle, 1)

  // A change that leaves the flag's project, type, tags and segments: its search row is brought up to
  // date where it is, entered in no index again, and found with what changed.
  const indexed = search.counters.rowsIndexed
  const beforeUpdate = s.project('web')
  const updated = s.ok('web', { type: 'feature.update', name: 'flag-1234', input: { description: 'described at last' } })
  check('a flag in the middle described', updated, beforeUpdate, 1)
  t.equal(search.counters.rowsIndexed - indexed, 0, 'a flag described: its row is entered in no index again')
  const found = search.search(featureSearchOf({ query: 'described at last' }), searchContext(s))
  t.same(found.hits.map((hit) => hit.feature.name), ['flag-1234'], 'a flag described: the search finds it by its new description')
})
