import t from 'tap'
import type { EventRecord, EventType } from '../../src/domain/events.js'
import type { Environment } from '../../src/domain/instance-state.js'
import type { Feature, FeatureEnvironment, ProjectState } from '../../src/domain/project-state.js'
import { featureSearchOf } from '../../src/domain/search.js'
import type { FeatureSearchQuery } from '../../src/schemas/search.js'
import { FeatureSearchIndex, featureSearchView, type FeatureSearchContext } from '../../src/read/feature-search.js'

// The flag search read model over plain project states: filters, orders, pages, and a committed event
// re-reading only the flags it names.

const environments = new Map<string, Environment>([
  ['development', { name: 'development', type: 'development', enabled: true, sortOrder: 2, protected: false, createdAt: '2024-01-01T00:00:00.000Z' }],
  ['production', { name: 'production', type: 'production', enabled: true, sortOrder: 3, protected: false, createdAt: '2024-01-01T00:00:00.000Z' }],
])

const env = (enabled = false, more: Partial<FeatureEnvironment> = {}): FeatureEnvironment => ({ enabled, strategies: [], variants: [], ...more })

let minute = 0
const flag = (name: string, more: Partial<Feature> = {}): Feature => {
  const createdAt = new Date(Date.parse('2024-03-01T00:00:00.000Z') + 60_000 * minute++).toISOString()
  return {
    name,
    project: 'default',
    type: 'release',
    description: null,
    impressionData: false,
    stale: false,
    archived: false,
    archivedAt: null,
    createdAt,
    environments: new Map([['development', env()], ['production', env()]]),
    dependencies: [],
    tags: [],
    lifecycle: [{ stage: 'initial', enteredStageAt: createdAt }],
    createdByUserId: -42,
    ...more,
  }
}

const projectOf = (id: string, features: Feature[]): ProjectState => ({
  access: { users: new Map(), groups: new Map(), addedAt: new Map() },
  settings: { id, name: id, description: null, mode: 'open', defaultStickiness: 'default', featureLimit: null, featureNaming: { pattern: null, example: null, description: null }, createdAt: '2024-01-01T00:00:00.000Z', updatedAt: null },
  environments: new Map(),
  features: new Map(features.map((f) => [f.name, { ...f, project: id }])),
})

const strategy = (segments: number[], disabled = false) => ({ id: `s${segments.join('-')}`, name: 'default', title: null, disabled, sortOrder: 0, constraints: [], parameters: {}, variants: [], segments })

// The flags of the integration test (written from what Unleash 8.2 listed for the same data), plus a
// second project.
const world = () => {
  minute = 0
  const blue = { type: 'simple', value: 'blue' }
  const red = { type: 'simple', value: 'red' }
  const projects = new Map<string, ProjectState>([
    [
      'default',
      projectOf('default', [
        flag('alpha', { description: 'Checkout redesign', tags: [blue, red], environments: new Map([['development', env(true, { strategies: [strategy([])] })], ['production', env()]]) }),
        flag('beta', { type: 'experiment', tags: [blue], environments: new Map([['development', env()], ['production', env(false, { strategies: [strategy([], true)] })]]) }),
        flag('gamma', { type: 'kill-switch', description: 'old kill switch', stale: true }),
        flag('delta', { type: 'operational', dependencies: [{ feature: 'alpha', enabled: true, variants: [] }] }),
        flag('old', { archived: true, archivedAt: '2024-03-02T00:00:00.000Z' }),
        flag('seg', { environments: new Map([['development', env(false, { strategies: [strategy([7])] })], ['production', env()]]), favoritedBy: ['user:1'] }),
        flag('eps', { lifecycle: [{ stage: 'initial', enteredStageAt: '2024-03-01T00:00:00.000Z' }, { stage: 'completed', enteredStageAt: '2024-03-01T01:00:00.000Z', status: 'kept' }] }),
      ]),
    ],
    ['web', projectOf('web', [flag('web-one', { createdByUserId: 5 })])],
  ])
  return projects
}

const seen = new Map<string, string>([
  ['seg\u0000production', '2024-04-01T10:00:00.000Z'],
  ['beta\u0000development', '2024-04-02T10:00:00.000Z'],
  ['gamma\u0000development', '2024-04-03T10:00:00.000Z'],
  ['gamma\u0000production', '2024-03-30T10:00:00.000Z'],
])

const context = (viewer?: string): FeatureSearchContext => ({
  viewer,
  environments,
  lifecycle: (feature) => {
    for (const stage of ['archived', 'completed', 'live', 'pre-live', 'initial']) {
      const found = feature.lifecycle.find((l) => l.stage === stage)
      if (found) return found
    }
    return { stage: 'initial', enteredStageAt: feature.createdAt }
  },
  lastSeen: (feature, environment) => seen.get(`${feature}\u0000${environment}`) ?? null,
  counts: (feature, environment) => (feature === 'alpha' && environment === 'development' ? { yes: 3, no: 1 } : { yes: 0, no: 0 }),
  segmentName: (id) => (id === 7 ? 'vip' : undefined),
  segmentIdsNamed: (names) => (names.includes('vip') ? [7] : []),
  changeRequestIds: (feature, environment) => (feature === 'alpha' && environment === 'production' ? [3] : []),
  user: (id) => (id === 5 ? { name: null, username: 'jo', email: 'Jo@Example.com' } : undefined),
})

const searchWith = (index: FeatureSearchIndex, query: FeatureSearchQuery, viewer?: string) => index.search(featureSearchOf(query), context(viewer))
const names = (index: FeatureSearchIndex, query: FeatureSearchQuery, viewer?: string) => searchWith(index, query, viewer).hits.map((h) => h.feature.name)

t.test('filters', async (t) => {
  const projects = world()
  const index = new FeatureSearchIndex(() => projects)
  t.same(names(index, {}), ['alpha', 'beta', 'gamma', 'delta', 'seg', 'eps', 'web-one'], 'active flags, oldest first')
  t.same(names(index, { archived: 'IS:true' }), ['old'])
  t.same(names(index, { query: 'CHECKOUT' }), ['alpha'], 'the description counts')
  t.same(names(index, { query: 'a%a' }), ['alpha', 'gamma'])
  t.same(names(index, { project: 'IS:web' }), ['web-one'])
  t.same(names(index, { project: 'IS_NOT:default' }), ['web-one'])
  t.same(names(index, { type: 'IS_NONE_OF:release,experiment' }), ['gamma', 'delta'])
  t.same(names(index, { createdBy: 'IS:5' }), ['web-one'])
  t.same(names(index, { state: 'IS:stale' }), ['gamma'])
  t.same(names(index, { lifecycle: 'IS:completed' }), ['eps'])
  t.same(names(index, { lifecycle: 'IS_ANY_OF:archived,completed' }), ['old', 'eps'])
  t.same(names(index, { segment: 'INCLUDE:vip' }), ['seg'])
  t.same(names(index, { segment: 'DO_NOT_INCLUDE:vip', project: 'IS:default' }), ['alpha', 'beta', 'gamma', 'delta', 'eps'])
  t.same(names(index, { favorite: 'IS:true' }, 'user:1'), ['seg'])
  t.same(names(index, { favorite: 'IS:true' }), [], 'nobody asking has no favorites')
  t.same(names(index, { createdAt: 'IS_BEFORE:2024-03-01' }), [])
  t.same(names(index, { lastSeenAt: 'IS_ON_OR_AFTER:2024-04-02' }), ['beta', 'gamma'])
  t.same(names(index, { lastSeenAt: 'IS_BEFORE:2030-01-01' }), ['beta', 'gamma', 'seg'], 'never-seen flags match neither operator')
})

t.test('tag and status filters list only the matching tags and environments', async (t) => {
  const projects = world()
  const index = new FeatureSearchIndex(() => projects)
  const tagged = searchWith(index, { tag: 'INCLUDE_ANY_OF:simple:blue' })
  t.same(tagged.hits.map((h) => [h.feature.name, h.tags.map((tag) => tag.value)]), [['alpha', ['blue']], ['beta', ['blue']]])
  t.same(names(index, { tag: 'INCLUDE_ALL_OF:simple:blue,simple:red' }), ['alpha'])
  t.same(names(index, { tag: 'EXCLUDE_IF_ANY_OF:simple:red', project: 'IS:default' }), ['beta', 'gamma', 'delta', 'seg', 'eps'])
  const on = searchWith(index, { status: ['development:enabled', 'production:enabled'] })
  t.same(on.hits.map((h) => [h.feature.name, h.environments]), [['alpha', ['development']]])
  // beta was seen in development only: Unleash 8.2 listed only the environment seen.
  const lastSeen = searchWith(index, { lastSeenAt: 'IS_ON_OR_AFTER:2024-04-02', query: 'beta' })
  t.same(lastSeen.hits.map((h) => h.environments), [['development']], 'only the environments seen then are listed')
})

t.test('orders: ties stay in creation order, nulls last', async (t) => {
  const projects = world()
  const index = new FeatureSearchIndex(() => projects)
  const q = (more: FeatureSearchQuery, viewer?: string) => names(index, { project: 'IS:default', ...more }, viewer)
  t.same(q({ sortOrder: 'desc' }), ['eps', 'seg', 'delta', 'gamma', 'beta', 'alpha'])
  t.same(q({ sortBy: 'name' }), ['alpha', 'beta', 'delta', 'eps', 'gamma', 'seg'])
  t.same(q({ sortBy: 'name', sortOrder: 'desc' }), ['seg', 'gamma', 'eps', 'delta', 'beta', 'alpha'])
  t.same(q({ sortBy: 'type' }), ['beta', 'gamma', 'delta', 'alpha', 'seg', 'eps'])
  t.same(q({ sortBy: 'type', sortOrder: 'desc' }), ['alpha', 'seg', 'eps', 'delta', 'gamma', 'beta'])
  t.same(q({ sortBy: 'stale', sortOrder: 'desc' }), ['gamma', 'alpha', 'beta', 'delta', 'seg', 'eps'])
  t.same(q({ sortBy: 'environment:development', sortOrder: 'desc' }), ['alpha', 'beta', 'gamma', 'delta', 'seg', 'eps'])
  t.same(q({ sortBy: 'environment:development' }), ['beta', 'gamma', 'delta', 'seg', 'eps', 'alpha'])
  t.same(q({ sortBy: 'lastSeenAt' }), ['gamma', 'seg', 'beta', 'alpha', 'delta', 'eps'], "by each flag's earliest sighting; never seen last")
  t.same(q({ sortBy: 'lastSeenAt', sortOrder: 'desc' }), ['gamma', 'beta', 'seg', 'alpha', 'delta', 'eps'], 'by its latest')
  t.same(names(index, { sortBy: 'lastSeenAt', status: ['production:disabled'], query: 'a' }), ['gamma', 'alpha', 'beta', 'delta'], 'by the environments listed only')
  t.same(q({ favoritesFirst: 'true', sortBy: 'name', sortOrder: 'desc' }, 'user:1'), ['seg', 'gamma', 'eps', 'delta', 'beta', 'alpha'])
})

t.test('pages: offset and limit, and a total of 0 past the last flag (as Unleash)', async (t) => {
  const projects = world()
  const index = new FeatureSearchIndex(() => projects)
  const page = searchWith(index, { limit: '2', offset: '2' })
  t.same([page.hits.map((h) => h.feature.name), page.total], [['gamma', 'delta'], 7])
  t.same(searchWith(index, { offset: '7' }), { hits: [], total: 0 })
})

t.test('a committed event re-reads the flags it names; a bulk change re-sorts once', async (t) => {
  const projects = world()
  const index = new FeatureSearchIndex(() => projects)
  t.same(names(index, { type: 'IS:experiment' }), ['beta'])
  // The index reads a record's type, project and flag name alone: the payload is left out.
  const record = (type: EventType, featureName: string | null, project = 'default'): EventRecord =>
    ({ id: 1, type, createdAt: '2024-05-01T00:00:00.000Z', createdBy: 't', createdByUserId: 1, project, featureName }) as EventRecord
  const setFlags = (project: string, change: (features: Map<string, Feature>) => void) => {
    const state = projects.get(project)!
    const features = new Map(state.features)
    change(features)
    projects.set(project, { ...state, features })
  }

  setFlags('default', (features) => features.set('gamma', { ...features.get('gamma')!, type: 'experiment' }))
  t.same(names(index, { type: 'IS:experiment' }), ['beta'], 'nothing committed yet')
  index.apply([record('feature-metadata-updated', 'gamma')])
  t.same(names(index, { type: 'IS:experiment' }), ['beta', 'gamma'])

  setFlags('default', (features) => features.set('aaa-new', flag('aaa-new', { project: 'default', type: 'experiment' })))
  index.apply([record('feature-created', 'aaa-new')])
  t.same(names(index, { type: 'IS:experiment' }), ['beta', 'gamma', 'aaa-new'])
  t.same(names(index, { type: 'IS:experiment', sortBy: 'name' }), ['aaa-new', 'beta', 'gamma'])

  setFlags('default', (features) => features.delete('beta'))
  index.apply([record('feature-deleted', 'beta')])
  t.same(names(index, { type: 'IS:experiment', sortBy: 'name' }), ['aaa-new', 'gamma'])

  // A move names the flag in its new project; the old project no longer has it.
  setFlags('default', (features) => features.delete('gamma'))
  setFlags('web', (features) => features.set('gamma', { ...world().get('default')!.features.get('gamma')!, project: 'web' }))
  index.apply([record('feature-project-change', 'gamma', 'web')])
  t.same(names(index, { project: 'IS:web' }), ['gamma', 'web-one'])

  // Archiving the child takes the parent's dependencyType away.
  t.equal(index.dependencyType(projects.get('default')!.features.get('alpha')!), 'parent')
  setFlags('default', (features) => features.set('delta', { ...features.get('delta')!, archived: true, dependencies: [] }))
  index.apply([record('feature-archived', 'delta')])
  t.equal(index.dependencyType(projects.get('default')!.features.get('alpha')!), null)

  const many = Array.from({ length: 600 }, (_, i) => `bulk-${String(i).padStart(3, '0')}`)
  setFlags('web', (features) => {
    for (const name of many) features.set(name, flag(name, { project: 'web' }))
  })
  index.apply(many.map((name) => record('feature-created', name, 'web')))
  const web = names(index, { project: 'IS:web', sortBy: 'name', sortOrder: 'desc', limit: '3' })
  t.same(web, ['web-one', 'gamma', 'bulk-599'])
  t.equal(searchWith(index, { project: 'IS:web' }).total, 602)
  // A few flags among hundreds: found through the project and tag sets, then put in order.
  t.same(names(index, { project: 'IS:default', sortBy: 'name' }), ['aaa-new', 'alpha', 'eps', 'seg'])
  t.same(names(index, { project: 'IS:default' }), ['alpha', 'seg', 'eps', 'aaa-new'])
  t.same(names(index, { tag: 'INCLUDE_ANY_OF:simple:blue,simple:red', sortOrder: 'desc' }), ['alpha'])

  projects.delete('web')
  index.apply([record('project-deleted', null, 'web')])
  t.equal(searchWith(index, { project: 'IS:web' }).total, 0, 'a deleted project takes its flags along')
  t.same(names(index, {}), ['alpha', 'seg', 'eps', 'aaa-new'])
})

t.test('the listed row: Unleash 8.2 fields', async (t) => {
  const projects = world()
  const index = new FeatureSearchIndex(() => projects)
  const ctx = context('user:1')
  const view = (name: string) => {
    const hit = index.search(featureSearchOf({ query: name, project: 'IS_ANY_OF:default,web' }), ctx).hits.find((h) => h.feature.name === name)!
    return featureSearchView(hit, index.dependencyType(hit.feature), ctx)
  }
  t.same(view('alpha'), {
    type: 'release',
    description: 'Checkout redesign',
    project: 'default',
    favorite: false,
    name: 'alpha',
    createdAt: '2024-03-01T00:00:00.000Z',
    stale: false,
    archivedAt: null,
    impressionData: false,
    dependencyType: 'parent',
    environments: [
      { name: 'development', enabled: true, type: 'development', sortOrder: 2, variantCount: 0, lastSeenAt: null, hasStrategies: true, hasEnabledStrategies: true, yes: 3, no: 1, changeRequestIds: [] },
      { name: 'production', enabled: false, type: 'production', sortOrder: 3, variantCount: 0, lastSeenAt: null, hasStrategies: false, hasEnabledStrategies: false, yes: 0, no: 0, changeRequestIds: [3] },
    ],
    segments: [],
    createdBy: { id: -42, name: 'Unleash Admin Token User', imageUrl: 'https://gravatar.com/avatar/3dc16570162d3b0b99d893698516645520622ab41162256213fb7b04eb969d84?s=42&d=retro&r=g' },
    lifecycle: { stage: 'initial', enteredStageAt: '2024-03-01T00:00:00.000Z' },
    tags: [
      { value: 'blue', type: 'simple', color: null },
      { value: 'red', type: 'simple', color: null },
    ],
  })
  const beta = view('beta')
  t.same(beta.environments.map((e) => [e.hasStrategies, e.hasEnabledStrategies, e.lastSeenAt]), [[false, false, '2024-04-02T10:00:00.000Z'], [true, false, null]])
  t.notOk('tags' in view('gamma'), 'no tags: no tags field (as Unleash)')
  t.equal(view('delta').dependencyType, 'child')
  t.same(view('seg').segments, ['vip'])
  t.equal(view('seg').favorite, true)
  t.same(view('eps').lifecycle, { stage: 'completed', status: 'kept', enteredStageAt: '2024-03-01T01:00:00.000Z' })
  t.same(view('web-one').createdBy, { id: 5, name: 'jo', imageUrl: 'https://gravatar.com/avatar/f4e19df2e6c609fbd59a42b9063d0fadf44260218531ea21ad8c575f205c0453?s=42&d=retro&r=g' }, 'a user: name, else username, else email; the gravatar of the lower-cased email')
})

const record = (type: EventType, featureName: string): EventRecord => ({ id: 1, type, createdAt: '2024-05-01T00:00:00.000Z', createdBy: 't', createdByUserId: 1, project: 'default', featureName }) as EventRecord

// A change to one flag of project default, as a commit makes it: a new state, then its record applied.
const changeOf = (projects: Map<string, ProjectState>, index: FeatureSearchIndex) => (name: string, feature: Feature | undefined, type: EventType) => {
  const state = projects.get('default')!
  const features = new Map(state.features)
  if (feature) features.set(name, feature)
  else features.delete(name)
  projects.set('default', { ...state, features })
  index.apply([record(type, name)])
}

t.test('orders kept one change at a time over thousands of flags match orders sorted from scratch', async (t) => {
  minute = 0
  let seed = 24
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
  const projects = new Map([['default', projectOf('default', [])]])
  const index = new FeatureSearchIndex(() => projects)
  index.warm()
  const change = changeOf(projects, index)
  // One at a time: the chunks of both orders fill and split.
  for (let i = 0; i < 3000; i++) {
    const name = `flag-${Math.floor(random() * 1e6)}-${i}`
    change(name, { ...flag(name), createdAt: new Date(Date.parse('2024-03-01T00:00:00.000Z') + Math.floor(random() * 5000) * 60_000).toISOString() }, 'feature-created')
  }
  // A run of neighbours in name order removed: whole chunks empty out.
  for (const name of [...projects.get('default')!.features.keys()].sort().slice(500, 1700)) change(name, undefined, 'feature-deleted')
  for (let step = 0; step < 1500; step++) {
    const state = projects.get('default')!
    const features = new Map(state.features)
    const names = [...features.keys()]
    const roll = random()
    let type: EventType
    let name: string
    if (roll < 0.4) {
      name = `new-${Math.floor(random() * 1e6)}-${step}`
      features.set(name, { ...flag(name), project: 'default', createdAt: new Date(Date.parse('2024-03-01T00:00:00.000Z') + Math.floor(random() * 5000) * 60_000).toISOString() })
      type = 'feature-created'
    } else if (roll < 0.7) {
      name = names[Math.floor(random() * names.length)]
      features.delete(name)
      type = 'feature-deleted'
    } else if (roll < 0.85) {
      // Created again: a new creation time, the same name.
      name = names[Math.floor(random() * names.length)]
      features.set(name, { ...features.get(name)!, createdAt: new Date(Date.parse('2024-03-01T00:00:00.000Z') + Math.floor(random() * 5000) * 60_000).toISOString() })
      type = 'feature-created'
    } else {
      name = names[Math.floor(random() * names.length)]
      features.set(name, { ...features.get(name)!, description: `step ${step}` })
      type = 'feature-metadata-updated'
    }
    projects.set('default', { ...state, features })
    index.apply([record(type, name)])
  }
  const fresh = new FeatureSearchIndex(() => projects)
  for (const query of [{ limit: '100000' }, { sortBy: 'name', limit: '100000' }, { sortBy: 'name', sortOrder: 'desc', limit: '100000' }, { sortOrder: 'desc', limit: '100000' }] as FeatureSearchQuery[]) {
    t.same(names(index, query), names(fresh, query), `${JSON.stringify(query)}: the same order`)
  }
  t.equal(searchWith(index, { limit: '1' }).total, projects.get('default')!.features.size)
})

t.test('a warm-up in slices reads every flag, pausing between slices, and keeps the changes applied meanwhile', async (t) => {
  minute = 0
  const projects = new Map([
    ['default', projectOf('default', Array.from({ length: 300 }, (_, i) => flag(`f-${String(i).padStart(3, '0')}`)))],
    ['other', projectOf('other', [flag('o-1'), flag('o-2')])],
  ])
  const index = new FeatureSearchIndex(() => projects)
  const change = changeOf(projects, index)
  let pauses = 0
  const pause = async () => {
    pauses++
    if (pauses === 10) change('new-1', { ...flag('new-1'), project: 'default' }, 'feature-created')
    if (pauses === 20) change('f-250', undefined, 'feature-deleted')
    if (pauses === 30) {
      change('f-005', { ...projects.get('default')!.features.get('f-005')!, description: 'read before' }, 'feature-metadata-updated')
      change('f-200', { ...projects.get('default')!.features.get('f-200')!, description: 'read after' }, 'feature-metadata-updated')
    }
  }
  // A slice of 0 ms: a pause after every flag.
  await index.warmInSlices(pause, 0)
  t.ok(pauses >= 301, `paused between the flags (${pauses} pauses)`)
  const fresh = new FeatureSearchIndex(() => projects)
  for (const query of [{ limit: '1000' }, { sortBy: 'name', limit: '1000' }, { sortOrder: 'desc', limit: '1000' }] as FeatureSearchQuery[]) {
    t.same(names(index, query), names(fresh, query), `${JSON.stringify(query)}: what an index built now finds`)
  }
  t.equal(searchWith(index, { limit: '1' }).total, 302, '300 flags, one created and one deleted meanwhile, and two in another project')
  t.same(names(index, { query: 'new-1' }), ['new-1'], 'the flag created meanwhile is there')
  t.same(names(index, { query: 'f-250' }), [], 'the flag deleted meanwhile is not')
  const description = (name: string) => searchWith(index, { query: name }).hits.find((h) => h.feature.name === name)?.feature.description
  t.equal(description('f-005'), 'read before', 'a flag changed after the warm-up read it')
  t.equal(description('f-200'), 'read after', 'a flag changed before the warm-up read it')
})

t.test('a search during a warm-up in slices reads the flags left at once', async (t) => {
  minute = 0
  const projects = new Map([['default', projectOf('default', Array.from({ length: 50 }, (_, i) => flag(`g-${String(i).padStart(2, '0')}`)))]])
  const index = new FeatureSearchIndex(() => projects)
  let resume: () => void = () => {}
  let paused = 0
  const warming = index.warmInSlices(() => {
    paused++
    return new Promise<void>((resolve) => (resume = resolve))
  }, 0)
  t.equal(paused, 1, 'paused after the first flag')
  t.equal(searchWith(index, { limit: '100' }).total, 50, 'the search finds every flag')
  t.equal(index.counters.rowsMade, 50, 'each flag read once')
  resume()
  await warming
  t.equal(paused, 1, 'the warm-up ends at its next turn: nothing is left to read')
  t.equal(index.counters.rowsMade, 50, 'and reads nothing again')
})

t.test('a project filter finds its flags through the state, a type filter walks them all, and a deleted project takes its rows with it', async (t) => {
  const many = new Map(world())
  many.set('big', projectOf('big', Array.from({ length: 100 }, (_, i) => flag(`big-${i}`))))
  const index = new FeatureSearchIndex(() => many)
  t.same(searchWith(index, { project: 'IS:web' }).hits.map((h) => h.feature.name), ['web-one'], 'one flag of 108')
  t.same(searchWith(index, { project: 'IS_ANY_OF:web,default', sortBy: 'name' }).hits.map((h) => h.feature.name), ['alpha', 'beta', 'delta', 'eps', 'gamma', 'seg', 'web-one'])
  t.equal(searchWith(index, { type: 'IS:kill-switch' }).total, 1, 'a type filter walks the flags')
  many.delete('web')
  index.apply([{ id: 1, type: 'project-deleted', project: 'web', createdAt: '2024-04-01T00:00:00.000Z' } as EventRecord])
  t.equal(searchWith(index, { query: 'web-one' }).total, 0, "the deleted project's flag is gone from the rows")
  t.equal(searchWith(index, { project: 'IS:web' }).total, 0)
})
