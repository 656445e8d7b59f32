import t from 'tap'
import { decideCreateProject, validateFeatureNaming } from '../../src/domain/projects.js'
import { statusOf } from '../../src/http/errors.js'
import { Scenario, assertBadData, environment, errorOf, projectInput, typesOf, valueOf } from './fixtures/scenario.js'
import { recordOfType } from '../../src/domain/events.js'

t.test('projects', async (t) => {
  t.test('create connects the given environments and fills the defaults', async (t) => {
    const s = new Scenario()
    const events = s.createProject('web', { environments: ['production'] })
    t.same(typesOf(events), ['project-created'])
    const [event] = events
    t.equal(event.project, 'web')
    t.match(event.data, { id: 'web', name: 'web', mode: 'open', defaultStickiness: 'default', featureLimit: null, environments: ['production'] })
    t.equal(event.createdBy, 'tester@example.com')
    t.equal(event.createdByUserId, 7)
    t.same([...s.project('web').environments.keys()], ['production'])
    t.same(s.project('web').settings.featureNaming, { pattern: null, example: null, description: null })
  })

  t.test('create without environments connects every enabled environment', async (t) => {
    const s = new Scenario([environment('development'), environment('staging', 'test', false), environment('production', 'production')])
    s.createProject('web')
    t.same([...s.project('web').environments.keys()].sort(), ['development', 'production'])
  })

  t.test('create with an unknown environment is a 400 naming it', async (t) => {
    const s = new Scenario()
    const error = errorOf(s.send('web', { type: 'project.create', id: 'web', input: projectInput({ name: 'Web', environments: ['development', 'nope'] }) }))
    assertBadData(t, error, "These environments do not exist: 'nope'.")
    t.notOk(s.projects.has('web'))
  })

  t.test('create with an id that exists is a 409', async (t) => {
    const s = new Scenario()
    s.createProject('web')
    const error = errorOf(s.decide('web', { type: 'project.create', id: 'web', input: projectInput({ name: 'Again' }) }))
    t.equal(error.kind, 'NameExistsError')
    t.equal(statusOf(error), 409)
    t.equal(error.message, 'A project with this id already exists.')
  })

  t.test('create beyond 500 projects is refused', async (t) => {
    const world = { environments: new Map(), projectCount: 500 }
    const meta = { now: '2024-01-01T00:00:00.000Z', actor: { name: 'a', userId: 1 } }
    const error = errorOf(decideCreateProject(undefined, { type: 'project.create', id: 'p', input: projectInput({ name: 'p' }), world, meta }))
    t.equal(error.kind, 'ExceedsLimitError')
    t.equal(statusOf(error), 400)
  })

  t.test('naming pattern validation', async (t) => {
    const bad = [
      { naming: { pattern: 'a b' }, because: 'a space' },
      { naming: { pattern: '[a-z]\\s+' }, because: 'the \\s escape' },
      { naming: { pattern: '\\t[a-z]+' }, because: 'the \\t escape' },
      { naming: { pattern: 'x\\n' }, because: 'the \\n escape' },
      { naming: { pattern: 'x\\r' }, because: 'the \\r escape' },
      { naming: { pattern: 'x\\f' }, because: 'the \\f escape' },
      { naming: { pattern: 'x\\v' }, because: 'the \\v escape' },
      { naming: { pattern: '[a-z]+', example: 'ABC' }, because: 'an example that does not match' },
      { naming: { example: 'abc' }, because: 'an example without a pattern' },
      { naming: { description: 'lower case' }, because: 'a description without a pattern' },
    ]
    for (const { naming, because } of bad) {
      const error = validateFeatureNaming(naming)
      t.equal(error?.kind, 'BadDataError', `refuses ${because}`)
      t.ok((error?.details?.length ?? 0) >= 1, `names the problem in details for ${because}`)
    }
    t.equal(validateFeatureNaming({ pattern: '[a-z]+-[0-9]+', example: 'web-1', description: 'area-number' }), undefined)
    t.equal(validateFeatureNaming({ pattern: null, example: null, description: null }), undefined)
    t.equal(validateFeatureNaming(undefined), undefined)

    const s = new Scenario()
    const error = errorOf(s.send('web', { type: 'project.create', id: 'web', input: projectInput({ name: 'Web', featureNaming: { pattern: 'a b' } }) }))
    t.equal(error.kind, 'BadDataError')
    t.notOk(s.projects.has('web'), 'a refused pattern creates nothing')
  })

  t.test('update validates the naming pattern too and reports old and new settings', async (t) => {
    const s = new Scenario()
    s.createProject('web')
    t.equal(errorOf(s.decide('web', { type: 'project.update', input: { name: 'web', featureNaming: { example: 'x' } } })).kind, 'BadDataError')
    const events = s.ok('web', { type: 'project.update', input: { name: 'Web shop', featureLimit: 3 } })
    t.same(typesOf(events), ['project-updated'])
    t.match(events[0].data, { name: 'Web shop', featureLimit: 3 })
    t.match(events[0].preData, { name: 'web', featureLimit: null })
    t.same(s.ok('web', { type: 'project.update', input: { name: 'Web shop', featureLimit: 3 } }), [], 'an unchanged update emits nothing')
  })

  t.test('featureLimit counts only active flags', async (t) => {
    const s = new Scenario()
    s.createProject('web', { featureLimit: 2 })
    s.createFeature('web', 'one')
    s.createFeature('web', 'two')
    const error = errorOf(s.decide('web', { type: 'feature.create', input: { name: 'three', type: 'release', impressionData: false } }))
    t.equal(error.kind, 'InvalidOperationError')
    t.equal(statusOf(error), 403)
    t.equal(error.message, 'You have reached the maximum number of feature flags for this project.')
    s.ok('web', { type: 'feature.archive', names: ['one'] })
    t.same(typesOf(s.createFeature('web', 'three')), ['feature-created'], 'an archived flag frees a place')
  })

  t.test('a featureLimit of 0 allows no flag', async (t) => {
    const s = new Scenario()
    s.createProject('web', { featureLimit: 0 })
    t.equal(errorOf(s.decide('web', { type: 'feature.create', input: { name: 'one', type: 'release', impressionData: false } })).kind, 'InvalidOperationError')
  })

  t.test('the default project cannot be deleted', async (t) => {
    const s = new Scenario()
    s.createProject('default')
    const error = errorOf(s.decide('default', { type: 'project.delete' }))
    t.equal(error.kind, 'InvalidOperationError')
    t.equal(statusOf(error), 403)
    t.equal(error.message, 'You can not delete the default project!')
  })

  t.test('a project with active flags cannot be deleted', async (t) => {
    const s = new Scenario()
    s.createProject('web')
    s.createFeature('web', 'checkout')
    const error = errorOf(s.decide('web', { type: 'project.delete' }))
    t.equal(error.kind, 'InvalidOperationError')
    t.equal(statusOf(error), 403)
    t.equal(error.message, 'You can not delete a project with active feature flags')
  })

  t.test('a project whose flags are all archived is deleted with them', async (t) => {
    const s = new Scenario()
    s.createProject('web')
    s.createFeature('web', 'checkout')
    s.ok('web', { type: 'feature.archive', names: ['checkout'] })
    const events = s.ok('web', { type: 'project.delete' })
    t.same(typesOf(events), ['project-deleted'])
    t.equal(events[0].project, 'web')
    t.notOk(s.projects.has('web'))
    t.equal(s.world().featureLocation('checkout'), undefined, 'the archived flag went with the project')
    t.same(typesOf(s.createProject('web')), ['project-created'], 'the id can be used again')
  })
})

t.test('project environments', async (t) => {
  t.test('adding an environment gives every flag that environment, off and empty', async (t) => {
    const s = new Scenario([environment('development'), environment('production', 'production'), environment('staging', 'test')])
    s.createProject('web', { environments: ['development'] })
    s.createFeature('web', 'checkout')
    const events = s.ok('web', { type: 'projectEnvironment.add', input: { environment: 'staging' }, defaultStrategy: null })
    t.same(typesOf(events), ['project-environment-added'])
    t.equal(events[0].project, 'web')
    t.equal(events[0].environment, 'staging')
    t.ok(s.project('web').environments.has('staging'))
    t.same(s.feature('web', 'checkout').environments.get('staging'), { enabled: false, strategies: [], variants: [] })
  })

  t.test('adding an environment the project has is a 409', async (t) => {
    const s = new Scenario()
    s.createProject('web')
    const error = errorOf(s.decide('web', { type: 'projectEnvironment.add', input: { environment: 'production' }, defaultStrategy: null }))
    t.equal(error.kind, 'NameExistsError')
    t.equal(statusOf(error), 409)
    t.equal(error.message, 'web already has the environment production enabled')
  })

  t.test('adding an unknown environment is a 400', async (t) => {
    const s = new Scenario()
    s.createProject('web')
    const error = errorOf(s.decide('web', { type: 'projectEnvironment.add', input: { environment: 'mars' }, defaultStrategy: null }))
    assertBadData(t, error, 'Environment mars does not exist')
  })

  t.test('removing an environment drops its flag configuration', async (t) => {
    const s = new Scenario()
    s.createProject('web')
    s.createFeature('web', 'checkout')
    s.addStrategy('web', 'checkout', 'production', { name: 'default' })
    const events = s.ok('web', { type: 'projectEnvironment.remove', environment: 'production' })
    t.same(typesOf(events), ['project-environment-removed'])
    t.equal(events[0].environment, 'production')
    t.same([...s.project('web').environments.keys()], ['development'])
    t.same([...s.feature('web', 'checkout').environments.keys()], ['development'])
  })

  t.test('the last environment cannot be removed', async (t) => {
    const s = new Scenario()
    s.createProject('web', { environments: ['development'] })
    const error = errorOf(s.decide('web', { type: 'projectEnvironment.remove', environment: 'development' }))
    t.equal(error.kind, 'BadDataError')
    t.equal(statusOf(error), 400)
  })

  t.test('removing an environment the project lacks is refused', async (t) => {
    const s = new Scenario()
    s.createProject('web', { environments: ['development'] })
    const result = s.decide('web', { type: 'projectEnvironment.remove', environment: 'production' })
    t.equal(result.ok, false)
  })
})

t.test('default strategy', async (t) => {
  const flexible = { name: 'flexibleRollout', constraints: [], parameters: { rollout: '50', stickiness: 'userId', groupId: '' } }

  t.test('only flexibleRollout can be the default strategy', async (t) => {
    const s = new Scenario()
    s.createProject('web')
    const error = errorOf(s.decide('web', { type: 'defaultStrategy.set', environment: 'development', strategy: { name: 'default' } }))
    assertBadData(t, error, 'Only "flexibleRollout" strategy can be used as a default strategy for an environment')
  })

  t.test('setting it emits new and old per environment', async (t) => {
    const s = new Scenario()
    s.createProject('web')
    const events = s.ok('web', { type: 'defaultStrategy.set', environment: 'development', strategy: flexible })
    t.same(typesOf(events), ['default-strategy-updated'])
    t.match(events[0], { project: 'web', environment: 'development', data: flexible, preData: null })
    t.same(s.project('web').environments.get('development')?.defaultStrategy, flexible)
    t.same(s.ok('web', { type: 'defaultStrategy.set', environment: 'development', strategy: flexible }), [], 'the same strategy again emits nothing')
  })

  t.test('"*" sets it in every project environment', async (t) => {
    const s = new Scenario()
    s.createProject('web')
    const events = s.ok('web', { type: 'defaultStrategy.set', environment: '*', strategy: flexible })
    t.same(events.map((e) => e.environment).sort(), ['development', 'production'])
    for (const env of s.project('web').environments.values()) t.same(env.defaultStrategy, flexible)
  })

  t.test('an environment the project lacks is refused', async (t) => {
    const s = new Scenario()
    s.createProject('web', { environments: ['development'] })
    t.equal(s.decide('web', { type: 'defaultStrategy.set', environment: 'production', strategy: flexible }).ok, false)
  })

  t.test('switching a flag on uses the configured default, groupId defaulting to the flag name', async (t) => {
    const s = new Scenario()
    s.createProject('web')
    s.ok('web', { type: 'defaultStrategy.set', environment: 'development', strategy: flexible })
    s.createFeature('web', 'checkout')
    const events = valueOf(s.toggle('web', 'checkout', 'development', true))
    t.same(typesOf(events), ['feature-strategy-add', 'feature-environment-enabled'])
    t.match(events[0].data, { name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'userId', groupId: 'checkout' } })
  })

  t.test('a configured groupId is kept', async (t) => {
    const s = new Scenario()
    s.createProject('web')
    s.ok('web', { type: 'defaultStrategy.set', environment: 'development', strategy: { ...flexible, parameters: { ...flexible.parameters, groupId: 'shared' } } })
    s.createFeature('web', 'checkout')
    const events = valueOf(s.toggle('web', 'checkout', 'development', true))
    t.equal(recordOfType(events, 'feature-strategy-add').data.parameters.groupId, 'shared')
  })

  t.test('an empty configured stickiness becomes the project default', async (t) => {
    const s = new Scenario()
    s.createProject('web', { defaultStickiness: 'sessionId' })
    s.ok('web', { type: 'defaultStrategy.set', environment: 'development', strategy: { ...flexible, parameters: { rollout: '20', stickiness: '', groupId: '' } } })
    s.createFeature('web', 'checkout')
    const events = valueOf(s.toggle('web', 'checkout', 'development', true))
    t.same(recordOfType(events, 'feature-strategy-add').data.parameters, { rollout: '20', stickiness: 'sessionId', groupId: 'checkout' })
  })
})
