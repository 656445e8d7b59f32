import t from 'tap'
import * as v from 'valibot'
import { importIdsNeeded, prepareImport, validateImport, type ImportFacts } from '../../src/domain/feature-import.js'
import type { TagWorld } from '../../src/domain/feature-tags.js'
import { emptyInstance, type InstanceState, type Segment } from '../../src/domain/instance-state.js'
import type { ProjectState } from '../../src/domain/project-state.js'
import { clientFeature } from '../../src/read/client-features.js'
import { exportFeatures } from '../../src/read/feature-export.js'
import { importSchema } from '../../src/schemas/export-import.js'
import { Scenario, typesOf, valueOf } from './fixtures/scenario.js'

const tagWorld: TagWorld = { tagTypeExists: () => true }

const instanceWith = (segments: Segment[] = []): InstanceState => ({ ...emptyInstance(), segments: new Map(segments.map((s) => [s.id, s])) })

const factsFor = (s: Scenario, project: string, instance: InstanceState): ImportFacts => ({
  project: s.projects.get(project),
  featureLocation: (name) => s.world().featureLocation(name),
  strategyTypes: instance.strategyTypes,
  contextFields: instance.contextFields,
  segments: [...instance.segments.values()],
  environments: s.environments,
})

// A source project with what an export carries: flags, strategies, variants, tags, a dependency.
const source = () => {
  const s = new Scenario()
  s.createProject('web')
  s.createFeature('web', 'checkout', { description: 'new checkout', type: 'experiment', impressionData: true })
  s.createFeature('web', 'banner')
  s.createFeature('web', 'child')
  s.addStrategy('web', 'checkout', 'production', {
    name: 'flexibleRollout',
    parameters: { rollout: '50', stickiness: 'userId', groupId: 'g' },
    constraints: [{ contextName: 'region', operator: 'IN', values: ['eu'] }],
  })
  s.addStrategy('web', 'checkout', 'production', { name: 'default', sortOrder: 5 })
  s.toggle('web', 'checkout', 'production', true)
  s.ok('web', { type: 'variants.set', feature: 'checkout', environments: ['production'], variants: [{ name: 'a', weight: 500, weightType: 'variable', stickiness: 'default' }, { name: 'b', weight: 500, weightType: 'variable', stickiness: 'default' }] })
  s.addStrategy('web', 'banner', 'production', { name: 'default' })
  s.ok('web', { type: 'tag.add', feature: 'banner', tag: { type: 'simple', value: 'marketing' }, tags: tagWorld })
  s.ok('web', { type: 'dependency.add', feature: 'child', dependency: { feature: 'checkout', enabled: true, variants: [] } })
  return s
}

const exported = (s: Scenario, instance: InstanceState, names = ['checkout', 'banner', 'child']) =>
  exportFeatures({ instance, projects: s.projects }, names, 'production')

const clientView = (state: ProjectState, instance: InstanceState) =>
  [...state.features.values()]
    .filter((f) => !f.archived)
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((f) => clientFeature(f, f.environments.get('production'), instance.segments, false))

const runImport = (target: Scenario, project: string, data: unknown, instance: InstanceState) => {
  const input = v.parse(importSchema, { project, environment: 'production', data: JSON.parse(JSON.stringify(data)) })
  const facts = factsFor(target, project, instance)
  const validation = validateImport(input, facts)
  const prepared = prepareImport(input, facts)
  const ids = Array.from({ length: importIdsNeeded(prepared.plan) }, (_, i) => `imported-${i}`)
  return { validation, prepared, result: target.send(project, { type: 'features.import', plan: prepared.plan, ids, tags: tagWorld }) }
}

t.test('an exported project imports into an empty one with the same client view', async (t) => {
  const instance = instanceWith()
  const from = source()
  const data = exported(from, instance)
  t.same(data.features.map((f) => f.name), ['checkout', 'banner', 'child'])
  t.same(data.featureTags, [{ featureName: 'banner', tagType: 'simple', tagValue: 'marketing' }])
  t.same(data.dependencies, [{ feature: 'child', dependencies: [{ feature: 'checkout', enabled: true, variants: [] }] }])
  t.same(data.tagTypes.map((t) => t.name), ['simple'])

  const to = new Scenario()
  to.createProject('web')
  const { validation, result } = runImport(to, 'web', data, instance)
  t.same(validation.errors, [])
  const events = valueOf(result)
  t.equal(events[events.length - 1].type, 'features-imported', 'features-imported comes last')
  t.match(events[events.length - 1], { project: 'web', environment: 'production', data: { features: ['checkout', 'banner', 'child'] } })
  const types = new Set(typesOf(events))
  // tag-created is the instance's (import.prepare), recorded before this command.
  for (const type of ['feature-created', 'feature-environment-variants-updated', 'feature-tagged', 'feature-strategy-add', 'feature-environment-enabled', 'feature-dependency-added']) {
    t.ok(types.has(type as never), `emits ${type}`)
  }
  t.same(clientView(to.project('web'), instance), clientView(from.project('web'), instance))
  t.equal(to.feature('web', 'checkout').type, 'experiment')
  t.equal(to.feature('web', 'checkout').description, 'new checkout')
})

t.test('importing again over the imported flags replaces their strategies instead of adding more', async (t) => {
  const instance = instanceWith()
  const from = source()
  const data = exported(from, instance)
  const to = new Scenario()
  to.createProject('web')
  valueOf(runImport(to, 'web', data, instance).result)
  const again = runImport(to, 'web', data, instance)
  t.same(again.validation.warnings.map((w) => w.message), ['The following features already exist in this project and will be overwritten:'])
  const events = valueOf(again.result)
  t.notOk(typesOf(events).includes('feature-created'), 'nothing is created the second time')
  t.ok(typesOf(events).includes('feature-strategy-remove'))
  t.equal(to.strategies('web', 'checkout', 'production').length, 2)
  t.same(clientView(to.project('web'), instance), clientView(from.project('web'), instance))
})

t.test('segments are matched by name', async (t) => {
  const segment = (id: number, name: string): Segment => ({ id, name, description: null, project: null, constraints: [], createdAt: '', createdBy: '' })
  const from = source()
  from.worldOverrides = { segment: (id) => (id === 3 ? segment(3, 'beta') : undefined) }
  from.addStrategy('web', 'banner', 'production', { name: 'default', segments: [3] })
  const data = exported(from, instanceWith([segment(3, 'beta')]))
  t.same(data.segments, [{ id: 3, name: 'beta' }])
  const to = new Scenario()
  to.createProject('web')
  to.worldOverrides = { segment: (id) => (id === 9 ? segment(9, 'beta') : undefined) }
  const missing = runImport(to, 'web', data, instanceWith())
  t.same(missing.validation.errors, [{ message: 'We detected the following segments that need to be created first:', affectedItems: ['beta'] }])
  const { result } = runImport(to, 'web', data, instanceWith([segment(9, 'beta')]))
  valueOf(result)
  t.same(to.strategies('web', 'banner', 'production').map((s) => s.segments), [[], [9]])
})

t.test('validation reports what Unleash reports', async (t) => {
  const instance = instanceWith()
  const from = source()
  const data = exported(from, instance)
  const to = new Scenario()
  to.createProject('web', { featureLimit: 1, featureNaming: { pattern: 'web-.+', example: 'web-x' } })
  to.createProject('other')
  to.createFeature('other', 'banner')
  const bad = {
    ...data,
    features: [...data.features, data.features[0]],
    featureStrategies: [...data.featureStrategies, { ...data.featureStrategies[0], name: 'myCustom' }],
    dependencies: [{ feature: 'child', dependencies: [{ feature: 'ghost', enabled: true, variants: [] }] }],
  }
  const { validation } = runImport(to, 'web', bad, instance)
  t.same(validation.errors.map((e) => e.message), [
    'We detected the following custom strategy that needs to be created first:',
    'You cannot import a features that already exist in other projects. You already have the following features defined outside of project web:',
    'We detected the following features are duplicate in your import data:',
    `Features imported into this project must match the project's feature naming pattern: "web-.+". For example: "web-x". The following features do not match the pattern:`,
    'We detected you want to create 2 new features to a project that already has 0 existing features, exceeding the maximum limit of 1.',
    'We detected the following dependencies that need to be created first:',
  ])
  t.same(validation.errors[0].affectedItems, ['myCustom'])
  t.same(validation.errors[1].affectedItems, ['banner (in project other)'])
  t.same(validation.errors[2].affectedItems, ['checkout'])
  t.same(validation.errors[3].affectedItems, ['banner', 'checkout', 'child'])
  t.same(validation.errors[5].affectedItems, ['ghost'])
})

t.test('archived flags are left out with a warning', async (t) => {
  const instance = instanceWith()
  const data = exported(source(), instance)
  const to = new Scenario()
  to.createProject('web')
  to.createFeature('web', 'banner')
  to.ok('web', { type: 'feature.archive', names: ['banner'] })
  const { validation, prepared, result } = runImport(to, 'web', data, instance)
  t.same(validation.warnings, [
    { message: 'The following features will not be imported as they are currently archived. To import them, please unarchive them first:', affectedItems: ['banner'] },
  ])
  t.same(prepared.plan.features.map((f) => f.name), ['checkout', 'child'])
  t.same(prepared.plan.tags, [], "the archived flag's tags are left out too")
  valueOf(result)
  t.ok(to.feature('web', 'banner').archived, 'the archived flag is untouched')
})

t.test('an environment left on without active strategies is switched off', async (t) => {
  const instance = instanceWith()
  const to = new Scenario()
  to.createProject('web')
  to.createFeature('web', 'lonely')
  to.toggle('web', 'lonely', 'production', true)
  t.ok(to.feature('web', 'lonely').environments.get('production')!.enabled)
  const data = { features: [{ name: 'lonely', type: 'release' }], featureStrategies: [], featureEnvironments: [] }
  const events = valueOf(runImport(to, 'web', data, instance).result)
  t.same(typesOf(events), ['feature-strategy-remove', 'feature-environment-disabled', 'features-imported'])
})
