import t from 'tap'
import {
  addProjectEnvironment,
  addStrategy,
  api,
  archiveFeature,
  archiveFeatures,
  createApiToken,
  createEnvironment,
  createFeature,
  createProject,
  deleteApiToken,
  deleteArchivedFeature,
  deleteFeatures,
  deleteProject,
  deleteStrategy,
  disableFeature,
  enableFeature,
  expectOk,
  getApiTokensByName,
  getClientFeatures,
  getFeature,
  getFeatureEnvironment,
  getProject,
  getStrategy,
  listApiTokens,
  listArchivedFeatures,
  listEvents,
  listFeatureEvents,
  listFeatures,
  listProjects,
  listStrategies,
  patchFeature,
  patchStrategy,
  removeProjectEnvironment,
  reviveFeature,
  reviveFeatures,
  setDefaultStrategy,
  setStrategySortOrder,
  updateApiToken,
  updateFeature,
  updateProject,
  updateStrategy,
  validateFeatureName,
  type ApiResult,
} from '../helpers/admin-api.js'
import { expectError, expectStatus, sleep } from '../helpers/expect.js'
import { startTestServer } from '../helpers/server.js'

const server = await startTestServer(t)
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const isoDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

const envOf = (feature: any, name: string) => feature.environments.find((e: any) => e.name === name)
const eventTypes = (res: ApiResult) => res.body.events.map((e: any) => e.type)
const newProject = async (id: string, extra: Record<string, unknown> = {}) => expectOk(await createProject(server, { id, name: id, ...extra }), `create project ${id}`).body
const newFeature = async (project: string, name: string, extra: Record<string, unknown> = {}) =>
  expectOk(await createFeature(server, project, { name, ...extra }), `create flag ${project}/${name}`).body
// Events of a project that came after a given id, oldest first.
const eventsSince = async (project: string, afterId: number) =>
  (await listEvents(server, project)).body.events.filter((e: any) => e.id > afterId).reverse()
const lastEventId = async () => (await listEvents(server)).body.events[0].id as number

t.test('projects', async (t) => {
  t.test('creating a project answers 201 with its settings, and it is listed', async (t) => {
    const res = await createProject(server, { id: 'alpha', name: 'Alpha', description: 'first' })
    expectStatus(t, res, 201, 'create')
    t.match(res.body, {
      id: 'alpha',
      name: 'Alpha',
      description: 'first',
      mode: 'open',
      defaultStickiness: 'default',
      featureLimit: null,
      featureNaming: { pattern: null },
      health: 100,
    })
    t.same(res.body.environments.map((e: any) => e.environment).sort(), ['development', 'production'], 'connected to every enabled environment')
    const list = await listProjects(server)
    expectStatus(t, list, 200, 'list')
    t.ok(list.body.projects.some((p: any) => p.id === 'alpha'), 'listed')
    t.ok(list.body.projects.some((p: any) => p.id === 'default'), 'the default project exists on a fresh install')
    const one = await getProject(server, 'alpha')
    expectStatus(t, one, 200, 'get')
    t.match(one.body, { id: 'alpha', name: 'Alpha', features: [] })
  })

  t.test("a project's featureCount and health follow its flags: one marked stale, one archived", async (t) => {
    await newProject('counted')
    for (const name of ['c-1', 'c-2', 'c-3', 'c-4']) await newFeature('counted', name)
    const summary = async () => {
      const one = (await getProject(server, 'counted')).body
      const listed = (await listProjects(server)).body.projects.find((p: any) => p.id === 'counted')
      t.same([listed.featureCount, listed.health], [one.featureCount, one.health], 'the list says what the project says')
      return [one.featureCount, one.health]
    }
    t.same(await summary(), [4, 100], 'four flags, none stale')
    expectOk(await patchFeature(server, 'counted', 'c-1', [{ op: 'replace', path: '/stale', value: true }]), 'mark c-1 stale')
    t.same(await summary(), [4, 75], 'one of four stale')
    expectOk(await archiveFeature(server, 'counted', 'c-2'), 'archive c-2')
    t.same(await summary(), [3, 67], 'one of three stale')
    expectOk(await patchFeature(server, 'counted', 'c-1', [{ op: 'replace', path: '/stale', value: false }]), 'c-1 not stale')
    t.same(await summary(), [3, 100], 'none stale')
  })

  t.test('a project without an id gets a slug of its name, with -1 on a clash', async (t) => {
    t.equal((await createProject(server, { name: 'My Team Project' })).body.id, 'my-team-project')
    t.equal((await createProject(server, { name: 'My Team Project' })).body.id, 'my-team-project-1')
  })

  t.test('a duplicate project id is a 409 NameExistsError', async (t) => {
    expectError(t, await createProject(server, { id: 'alpha', name: 'Again' }), { status: 409, name: 'NameExistsError', message: 'A project with this id already exists.' })
    expectError(t, await createProject(server, { id: 'not url friendly', name: 'x' }), { status: 400, name: 'BadDataError' }, 'an id that is not URL friendly')
  })

  t.test('a project is connected to the environments given, and unknown ones are a 400', async (t) => {
    expectError(t, await createProject(server, { id: 'bad-envs', name: 'x', environments: ['production', 'nope'] }), {
      status: 400,
      message: /These environments do not exist: 'nope'\./,
    })
    const project = await newProject('prod-only', { environments: ['production'] })
    t.same(project.environments.map((e: any) => e.environment), ['production'])
    await newFeature('prod-only', 'prod-only-flag')
    const flag = (await getFeature(server, 'prod-only', 'prod-only-flag')).body
    t.same(flag.environments.map((e: any) => e.name), ['production'], 'its flags get only that environment')
  })

  t.test('updating a project changes its settings and records project-updated', async (t) => {
    await newProject('beta')
    const res = await updateProject(server, 'beta', { name: 'Beta 2', description: 'changed', defaultStickiness: 'userId', mode: 'protected' })
    expectStatus(t, res, 200, 'update')
    t.match(res.body, { id: 'beta', name: 'Beta 2', description: 'changed', defaultStickiness: 'userId', mode: 'protected' })
    t.match((await getProject(server, 'beta')).body, { name: 'Beta 2', description: 'changed' })
    const events = (await listEvents(server, 'beta')).body.events
    t.match(events[0], { type: 'project-updated', project: 'beta', data: { name: 'Beta 2' }, preData: { name: 'beta' } })
    const before = events.length
    expectStatus(t, await updateProject(server, 'beta', { name: 'Beta 2', description: 'changed' }), 200, 'an update that changes nothing')
    t.equal((await listEvents(server, 'beta')).body.events.length, before, 'records no event')
    expectError(t, await updateProject(server, 'no-such-project', { name: 'x' }), { status: 404, name: 'NotFoundError' }, 'an unknown project')
  })

  t.test('deleting a project', async (t) => {
    expectError(t, await deleteProject(server, 'default'), { status: 403, name: 'InvalidOperationError', message: 'You can not delete the default project!' })
    await newProject('doomed')
    await newFeature('doomed', 'doomed-active')
    expectError(t, await deleteProject(server, 'doomed'), { status: 403, message: 'You can not delete a project with active feature flags' })
    expectStatus(t, await archiveFeature(server, 'doomed', 'doomed-active'), 202, 'archive its flag')
    const token = expectOk(await createApiToken(server, { tokenName: 'doomed-token', type: 'client', projects: ['doomed'] }), 'token').body.secret
    expectStatus(t, await getClientFeatures(server, token), 200, 'its token works while it exists')
    expectStatus(t, await deleteProject(server, 'doomed'), 200, 'delete with only archived flags')
    expectError(t, await getProject(server, 'doomed'), { status: 404, name: 'NotFoundError' }, 'then it is gone')
    t.notOk((await listArchivedFeatures(server)).body.features.some((f: any) => f.name === 'doomed-active'), 'its archived flags are gone too')
    expectStatus(t, await getClientFeatures(server, token), 401, 'a token for only that project is refused afterwards')
    expectStatus(t, await createFeature(server, 'default', 'doomed-active'), 201, 'the archived flag name is free again')
  })

  t.test('creating a flag beyond featureLimit is a 403 InvalidOperationError', async (t) => {
    await newProject('limited', { featureLimit: 2 })
    await newFeature('limited', 'limited-1')
    await newFeature('limited', 'limited-2')
    expectError(t, await createFeature(server, 'limited', 'limited-3'), {
      status: 403,
      name: 'InvalidOperationError',
      message: 'You have reached the maximum number of feature flags for this project.',
    })
    expectStatus(t, await archiveFeature(server, 'limited', 'limited-1'), 202, 'archive one')
    expectStatus(t, await createFeature(server, 'limited', 'limited-3'), 201, 'archived flags do not count')
    expectStatus(t, await updateProject(server, 'limited', { name: 'limited', featureLimit: null }), 200, 'lift the limit')
    expectStatus(t, await createFeature(server, 'limited', 'limited-4'), 201, 'no limit')
  })

  t.test('a flag name that misses the naming pattern is a 400 PatternError', async (t) => {
    await newProject('named', { featureNaming: { pattern: 'team-[a-z]+', example: 'team-x', description: 'Team prefix' } })
    const res = await createFeature(server, 'named', 'other')
    expectError(t, res, {
      status: 400,
      name: 'PatternError',
      message: `The feature flag name "other" does not match the project's naming pattern: "team-[a-z]+". Here's an example of a name that does match the pattern: "team-x"." The pattern's description is: "Team prefix"`,
    })
    t.same(res.body.details, [{ message: 'The flag name does not match the pattern.' }])
    expectError(t, await createFeature(server, 'named', 'xteam-abc'), { status: 400, name: 'PatternError' }, 'the pattern is anchored at the start')
    expectError(t, await createFeature(server, 'named', 'team-abc1'), { status: 400, name: 'PatternError' }, 'and at the end')
    expectStatus(t, await createFeature(server, 'named', 'team-abc'), 201, 'a matching name')
    expectError(t, await validateFeatureName(server, 'other', 'named'), { status: 400, name: 'PatternError' }, 'validate checks the pattern too')
    expectStatus(t, await validateFeatureName(server, 'team-free', 'named'), 200, 'validate accepts a matching free name')

    await newProject('named-plain', { featureNaming: { pattern: '[a-z]+' } })
    expectError(t, await createFeature(server, 'named-plain', 'ABC'), {
      status: 400,
      name: 'PatternError',
      message: `The feature flag name "ABC" does not match the project's naming pattern: "[a-z]+".`,
    }, 'without example and description')
  })

  t.test('an invalid naming pattern is a 400 BadDataError', async (t) => {
    const cases: [string, unknown][] = [
      ['a pattern with a space', { pattern: 'a b' }],
      ['a pattern with \\s', { pattern: 'a\\sb' }],
      ['an example that does not match', { pattern: 'x-.+', example: 'y-1' }],
      ['an example without a pattern', { example: 'x' }],
      ['a description without a pattern', { description: 'x' }],
    ]
    for (const [what, featureNaming] of cases) {
      expectError(t, await createProject(server, { id: 'bad-naming', name: 'x', featureNaming }), { status: 400, name: 'BadDataError' }, `create with ${what}`)
      expectError(t, await updateProject(server, 'alpha', { name: 'Alpha', featureNaming }), { status: 400, name: 'BadDataError' }, `update with ${what}`)
    }
    expectError(t, await getProject(server, 'bad-naming'), { status: 404 }, 'no project was created')
  })
})

t.test('project environments', async (t) => {
  expectOk(await createEnvironment(server, { name: 'staging', type: 'test' }), 'create environment staging')
  await newProject('envs', { environments: ['development'] })
  await newFeature('envs', 'envs-flag')

  t.test('adding an environment answers 200 with no body and connects existing flags, switched off', async (t) => {
    const res = await addProjectEnvironment(server, 'envs', 'staging')
    expectStatus(t, res, 200, 'add')
    t.equal(res.text, '', 'no body')
    t.ok((await getProject(server, 'envs')).body.environments.some((e: any) => e.environment === 'staging'), 'the project lists it')
    t.match(envOf((await getFeature(server, 'envs', 'envs-flag')).body, 'staging'), { enabled: false, strategies: [] }, 'the flag has it, off')
    t.match((await listEvents(server, 'envs')).body.events[0], { type: 'project-environment-added', project: 'envs', environment: 'staging' })
  })

  t.test('adding an environment twice is a 409, an unknown one a 400', async (t) => {
    expectError(t, await addProjectEnvironment(server, 'envs', 'staging'), { status: 409, name: 'NameExistsError', message: 'envs already has the environment staging enabled' })
    expectError(t, await addProjectEnvironment(server, 'envs', 'nope'), { status: 400, message: 'Environment nope does not exist' })
    expectError(t, await addProjectEnvironment(server, 'no-such-project', 'staging'), { status: 404 }, 'an unknown project')
  })

  t.test('removing an environment drops its flag configuration', async (t) => {
    expectOk(await addStrategy(server, 'envs', 'envs-flag', 'staging'), 'strategy')
    expectOk(await enableFeature(server, 'envs', 'envs-flag', 'staging'), 'on')
    const res = await removeProjectEnvironment(server, 'envs', 'staging')
    expectStatus(t, res, 200, 'remove')
    t.notOk(envOf((await getFeature(server, 'envs', 'envs-flag')).body, 'staging'), 'the flag no longer has it')
    t.match((await listEvents(server, 'envs')).body.events[0], { type: 'project-environment-removed', environment: 'staging' })
    expectOk(await addProjectEnvironment(server, 'envs', 'staging'), 'add it back')
    t.match(envOf((await getFeature(server, 'envs', 'envs-flag')).body, 'staging'), { enabled: false, strategies: [] }, 'it comes back empty and off')
  })

  t.test("removing a project's last environment is a 400", async (t) => {
    await newProject('one-env', { environments: ['development'] })
    expectError(t, await removeProjectEnvironment(server, 'one-env', 'development'), { status: 400 })
  })

  t.test('a strategy for an environment the project does not have is a 400', async (t) => {
    expectError(t, await addStrategy(server, 'prod-only', 'prod-only-flag', 'development'), {
      status: 400,
      message: 'You have not added the current environment to the project',
    })
  })
})

t.test('default strategy', async (t) => {
  await newProject('defaults')

  t.test('without a configured default, switching on adds flexibleRollout 100% with the flag as groupId', async (t) => {
    await newFeature('defaults', 'plain-on')
    const before = await lastEventId()
    expectStatus(t, await enableFeature(server, 'defaults', 'plain-on', 'development'), 200, 'on')
    const env = envOf((await getFeature(server, 'defaults', 'plain-on')).body, 'development')
    t.equal(env.enabled, true)
    t.equal(env.strategies.length, 1)
    t.match(env.strategies[0], { name: 'flexibleRollout', constraints: [], parameters: { rollout: '100', stickiness: 'default', groupId: 'plain-on' } })
    t.same(
      (await eventsSince('defaults', before)).map((e: any) => e.type),
      ['feature-strategy-add', 'feature-environment-enabled'],
      'the strategy is added before the environment is switched on',
    )
  })

  t.test('a configured default is saved, echoed, and given to a flag switched on without strategies', async (t) => {
    const strategy = {
      name: 'flexibleRollout',
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['a', 'b'], caseInsensitive: false, inverted: false }],
      parameters: { rollout: '40', stickiness: 'userId', groupId: '' },
    }
    const res = await setDefaultStrategy(server, 'defaults', 'development', strategy)
    expectStatus(t, res, 200, 'set')
    t.match(res.body, strategy, 'echoes the strategy')
    t.match((await getProject(server, 'defaults')).body.environments.find((e: any) => e.environment === 'development'), {
      defaultStrategy: { name: 'flexibleRollout', parameters: { rollout: '40' } },
    })
    t.match((await listEvents(server, 'defaults')).body.events[0], { type: 'default-strategy-updated', environment: 'development', data: { name: 'flexibleRollout' } })
    await newFeature('defaults', 'gets-default')
    expectOk(await enableFeature(server, 'defaults', 'gets-default', 'development'), 'on')
    const env = envOf((await getFeature(server, 'defaults', 'gets-default')).body, 'development')
    t.equal(env.strategies.length, 1)
    t.match(env.strategies[0], {
      name: 'flexibleRollout',
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['a', 'b'] }],
      parameters: { rollout: '40', stickiness: 'userId', groupId: 'gets-default' },
    }, 'an empty groupId becomes the flag name')
    expectOk(await enableFeature(server, 'defaults', 'gets-default', 'production'), 'on in production')
    t.match(envOf((await getFeature(server, 'defaults', 'gets-default')).body, 'production').strategies[0].parameters, { rollout: '100' }, 'other environments keep the built-in default')
  })

  t.test('the default strategy for * applies to every environment of the project', async (t) => {
    await newProject('defaults-all')
    const res = await setDefaultStrategy(server, 'defaults-all', '*', { name: 'flexibleRollout', parameters: { rollout: '25', stickiness: 'sessionId', groupId: 'shared' } })
    expectStatus(t, res, 200, 'set for *')
    for (const env of (await getProject(server, 'defaults-all')).body.environments) {
      t.match(env.defaultStrategy, { name: 'flexibleRollout', parameters: { rollout: '25' } }, `${env.environment} has it`)
    }
    await newFeature('defaults-all', 'all-default')
    for (const environment of ['development', 'production']) {
      expectOk(await enableFeature(server, 'defaults-all', 'all-default', environment), `on in ${environment}`)
      t.match(envOf((await getFeature(server, 'defaults-all', 'all-default')).body, environment).strategies[0].parameters, {
        rollout: '25',
        stickiness: 'sessionId',
        groupId: 'shared',
      }, `${environment}: a configured groupId is kept`)
    }
  })

  t.test('a default strategy other than flexibleRollout is a 400', async (t) => {
    expectError(t, await setDefaultStrategy(server, 'defaults', 'development', { name: 'default' }), {
      status: 400,
      message: /Only "flexibleRollout" strategy can be used as a default strategy for an environment/,
    })
  })

  t.test("the built-in default uses the project's default stickiness", async (t) => {
    await newProject('sticky', { defaultStickiness: 'sessionId' })
    await newFeature('sticky', 'sticky-flag')
    expectOk(await enableFeature(server, 'sticky', 'sticky-flag', 'development'), 'on')
    t.match(envOf((await getFeature(server, 'sticky', 'sticky-flag')).body, 'development').strategies[0].parameters, { stickiness: 'sessionId' })
  })
})

t.test('flags', async (t) => {
  await newProject('flags')

  t.test("creating a flag answers 201 with the flag's own fields, as Unleash 8 does, and GET shows its environments", async (t) => {
    const res = await createFeature(server, 'flags', { name: 'shape', type: 'experiment', description: 'd', impressionData: true })
    expectStatus(t, res, 201, 'create')
    t.same(Object.keys(res.body), ['name', 'description', 'type', 'project', 'stale', 'createdAt', 'impressionData', 'archived'])
    t.match(res.body, { name: 'shape', description: 'd', type: 'experiment', project: 'flags', stale: false, createdAt: isoDate, impressionData: true, archived: false })
    const read = (await getFeature(server, 'flags', 'shape')).body
    t.match(read, {
      name: 'shape',
      type: 'experiment',
      description: 'd',
      project: 'flags',
      enabled: false,
      stale: false,
      impressionData: true,
      archived: false,
      createdAt: isoDate,
      archivedAt: null,
      variants: [],
      strategies: [],
      tags: [],
      dependencies: [],
      children: [],
      lifecycle: { stage: 'initial', enteredStageAt: isoDate },
    })
    const names = read.environments.map((e: any) => e.name)
    t.ok(names.includes('development') && names.includes('production'), 'connected to the project environments')
    t.match(envOf(read, 'development'), {
      name: 'development',
      environment: 'development',
      featureName: 'shape',
      type: 'development',
      enabled: false,
      strategies: [],
      variants: [],
      variantCount: 0,
      hasStrategies: false,
      hasEnabledStrategies: false,
      lastSeenAt: null,
    })
    t.match(envOf(read, 'production'), { type: 'production' })
    t.match((await listEvents(server, 'flags')).body.events[0], {
      type: 'feature-created',
      project: 'flags',
      featureName: 'shape',
      data: { name: 'shape', description: 'd', type: 'experiment', project: 'flags', stale: false, impressionData: true, archived: false },
    })
    const defaults = await createFeature(server, 'flags', 'defaults-only')
    t.match(defaults.body, { type: 'release', description: null, impressionData: false, stale: false }, 'defaults')
  })

  t.test('flags are listed per project and overall', async (t) => {
    const names = (await listFeatures(server, 'flags')).body.features.map((f: any) => f.name)
    t.ok(names.includes('shape') && names.includes('defaults-only'))
    t.notOk(names.includes('team-abc'), 'not the flags of other projects')
    const all = (await api(server, 'GET', '/api/admin/features')).body.features.map((f: any) => f.name)
    t.ok(all.includes('shape') && all.includes('team-abc'))
  })

  t.test('a duplicate flag name is a 409, in any project, archived or not', async (t) => {
    expectError(t, await createFeature(server, 'flags', 'shape'), { status: 409, name: 'NameExistsError', message: 'A flag with that name already exists' })
    expectError(t, await createFeature(server, 'alpha', 'shape'), { status: 409, message: 'A flag with that name already exists' }, 'in another project')
    await newFeature('flags', 'to-archive')
    expectStatus(t, await archiveFeature(server, 'flags', 'to-archive'), 202, 'archive')
    expectError(t, await createFeature(server, 'flags', 'to-archive'), { status: 409, message: 'An archived flag with that name already exists' })
  })

  t.test('a flag name must be URL friendly, 1 to 100 characters', async (t) => {
    for (const name of ['my flag', 'a/b', 'a:b', 'ø', 'x'.repeat(101), '', '.', '..', 'a%20b', 'a?b', 'a#b']) {
      expectError(t, await createFeature(server, 'flags', name), { status: 400, name: 'BadDataError' }, JSON.stringify(name))
    }
    for (const name of ['x'.repeat(100), "A-z_0.9!~*'()"]) expectStatus(t, await createFeature(server, 'flags', name), 201, JSON.stringify(name))
    expectStatus(t, await getFeature(server, 'flags', "A-z_0.9!~*'()"), 200, 'and is found by its name')
  })

  t.test('a flag in an unknown project is a 404', async (t) => {
    expectError(t, await createFeature(server, 'no-such-project', 'orphan'), { status: 404, name: 'NotFoundError', message: 'Active project with id no-such-project does not exist' })
  })

  t.test('validating a name answers 200 when free, 409 when taken, 400 when invalid', async (t) => {
    expectStatus(t, await validateFeatureName(server, 'free-name'), 200, 'free')
    expectError(t, await validateFeatureName(server, 'shape'), { status: 409, name: 'NameExistsError' }, 'taken')
    expectError(t, await validateFeatureName(server, 'to-archive'), { status: 409, message: 'An archived flag with that name already exists' }, 'archived')
    expectError(t, await validateFeatureName(server, 'not valid'), { status: 400 }, 'invalid')
  })

  t.test('updating a flag changes its metadata and records feature-metadata-updated', async (t) => {
    const res = await updateFeature(server, 'flags', 'shape', { description: 'new', type: 'release', impressionData: false })
    expectStatus(t, res, 200, 'update')
    t.match(res.body, { name: 'shape', description: 'new', type: 'release', impressionData: false })
    t.match((await listEvents(server, 'flags')).body.events[0], {
      type: 'feature-metadata-updated',
      featureName: 'shape',
      data: { description: 'new', type: 'release' },
      preData: { description: 'd', type: 'experiment' },
    })
    const before = await lastEventId()
    expectStatus(t, await updateFeature(server, 'flags', 'shape', { description: 'new' }), 200, 'an update that changes nothing')
    t.equal(await lastEventId(), before, 'records no event')
    expectError(t, await updateFeature(server, 'flags', 'shape', { type: 'no-such-type' }), { status: 400 }, 'an unknown type')
    expectError(t, await updateFeature(server, 'flags', 'no-such-flag', { description: 'x' }), { status: 404 }, 'an unknown flag')
  })

  t.test('patching a flag applies a JSON patch', async (t) => {
    const res = await patchFeature(server, 'flags', 'shape', [
      { op: 'replace', path: '/description', value: 'patched' },
      { op: 'replace', path: '/type', value: 'kill-switch' },
    ])
    expectStatus(t, res, 200, 'patch')
    t.match(res.body, { description: 'patched', type: 'kill-switch' })
    const before = await lastEventId()
    expectStatus(t, await patchFeature(server, 'flags', 'shape', [{ op: 'replace', path: '/stale', value: true }]), 200, 'mark stale')
    t.equal((await getFeature(server, 'flags', 'shape')).body.stale, true)
    t.same((await eventsSince('flags', before)).map((e: any) => e.type), ['feature-metadata-updated', 'feature-stale-on'], 'SEMANTICS 9.2: a PATCH of /stale records both, in Unleash\'s order')
    expectStatus(t, await patchFeature(server, 'flags', 'shape', [{ op: 'replace', path: '/stale', value: false }]), 200, 'unmark stale')
    t.equal((await getFeature(server, 'flags', 'shape')).body.stale, false)
  })

  t.test('a failing patch is a 400 and applies nothing', async (t) => {
    const before = await lastEventId()
    const cases: [string, unknown][] = [
      ['a failed test', [{ op: 'replace', path: '/description', value: 'half' }, { op: 'test', path: '/type', value: 'experiment' }]],
      ['a missing path', [{ op: 'replace', path: '/description', value: 'half' }, { op: 'remove', path: '/no-such-field' }]],
      ['a bad pointer', [{ op: 'replace', path: '/description', value: 'half' }, { op: 'replace', path: 'description', value: 'x' }]],
      ['an invalid value', [{ op: 'replace', path: '/description', value: 'half' }, { op: 'replace', path: '/type', value: 'no-such-type' }]],
      ['an unknown op', [{ op: 'explode', path: '/description' }]],
    ]
    for (const [what, patch] of cases) {
      const res = await patchFeature(server, 'flags', 'shape', patch)
      expectError(t, res, { status: 400 }, what)
    }
    const patchError = await patchFeature(server, 'flags', 'shape', cases[0][1])
    t.match(patchError.body.message, /^Could not apply provided patch: /)
    t.equal((await getFeature(server, 'flags', 'shape')).body.description, 'patched', 'the description is unchanged')
    t.equal(await lastEventId(), before, 'no event was recorded')
    expectError(t, await patchFeature(server, 'flags', 'shape', [{ op: 'add', path: '/variants/-', value: { name: 'v' } }]), {
      status: 403,
      name: 'OperationDeniedError',
    }, 'patching /variants')
  })

  t.test('archiving answers 202; the flag moves to the archive and out of client features', async (t) => {
    await newFeature('flags', 'archived-one')
    expectOk(await addStrategy(server, 'flags', 'archived-one', 'development'), 'strategy')
    expectOk(await enableFeature(server, 'flags', 'archived-one', 'development'), 'on')
    const res = await archiveFeature(server, 'flags', 'archived-one')
    expectStatus(t, res, 202, 'archive')
    t.notOk((await listFeatures(server, 'flags')).body.features.some((f: any) => f.name === 'archived-one'), 'not listed in the project')
    for (const listing of [await listArchivedFeatures(server), await listArchivedFeatures(server, 'flags')]) {
      expectStatus(t, listing, 200, 'archive listing')
      t.match(listing.body.features.find((f: any) => f.name === 'archived-one'), { name: 'archived-one', project: 'flags', archived: true, archivedAt: isoDate })
    }
    t.notOk((await listArchivedFeatures(server, 'alpha')).body.features.some((f: any) => f.name === 'archived-one'), "not in another project's archive")
    t.match((await listEvents(server, 'flags')).body.events[0], { type: 'feature-archived', featureName: 'archived-one' })
    const token = expectOk(await createApiToken(server, { tokenName: 'archive-check', type: 'client', projects: ['flags'] }), 'token').body.secret
    t.notOk((await getClientFeatures(server, token)).body.features.some((f: any) => f.name === 'archived-one'), 'not served to SDKs')
    expectError(t, await enableFeature(server, 'flags', 'archived-one', 'development'), { status: 400, name: 'ArchivedFeatureError' }, 'switching on an archived flag')
    expectError(t, await addStrategy(server, 'flags', 'archived-one', 'development'), { status: 400, name: 'ArchivedFeatureError' }, 'adding a strategy to an archived flag')
    expectError(t, await updateFeature(server, 'flags', 'archived-one', { description: 'x' }), { status: 400, name: 'ArchivedFeatureError' }, 'updating an archived flag')
    expectStatus(t, await archiveFeature(server, 'flags', 'archived-one'), 202, 'archiving again is harmless')
  })

  t.test('reviving answers 200 and brings the flag back with every environment off', async (t) => {
    const res = await reviveFeature(server, 'archived-one')
    expectStatus(t, res, 200, 'revive')
    const flag = (await getFeature(server, 'flags', 'archived-one')).body
    t.match(flag, { archived: false, archivedAt: null, lifecycle: { stage: 'initial' } })
    t.ok(flag.environments.every((e: any) => e.enabled === false), 'every environment is off')
    t.equal(envOf(flag, 'development').strategies.length, 1, 'strategies are kept')
    t.ok((await listFeatures(server, 'flags')).body.features.some((f: any) => f.name === 'archived-one'), 'listed again')
    t.match((await listEvents(server, 'flags')).body.events[0], { type: 'feature-revived', featureName: 'archived-one' })
    expectError(t, await reviveFeature(server, 'archived-one'), { status: 400 }, 'reviving a flag that is not archived')
  })

  t.test('deleting an archived flag answers 200 and frees its name; a live flag is skipped', async (t) => {
    expectStatus(t, await deleteArchivedFeature(server, 'shape'), 200, 'delete a live flag')
    expectStatus(t, await getFeature(server, 'flags', 'shape'), 200, 'the live flag is untouched')
    expectStatus(t, await deleteArchivedFeature(server, 'to-archive'), 200, 'delete an archived flag')
    t.notOk((await listArchivedFeatures(server)).body.features.some((f: any) => f.name === 'to-archive'), 'gone from the archive')
    t.match((await listEvents(server, 'flags')).body.events[0], { type: 'feature-deleted', featureName: 'to-archive', preData: { name: 'to-archive' } })
    expectStatus(t, await createFeature(server, 'flags', 'to-archive'), 201, 'the name is free again')
  })

  t.test('bulk archive (202), revive (200) and delete (200) of a project', async (t) => {
    await newFeature('flags', 'bulk-1')
    await newFeature('flags', 'bulk-2')
    expectStatus(t, await archiveFeatures(server, 'flags', ['bulk-1', 'bulk-2']), 202, 'archive')
    t.same((await listArchivedFeatures(server, 'flags')).body.features.map((f: any) => f.name).filter((n: string) => n.startsWith('bulk-')).sort(), ['bulk-1', 'bulk-2'])
    expectStatus(t, await reviveFeatures(server, 'flags', ['bulk-1']), 200, 'revive one')
    expectStatus(t, await deleteFeatures(server, 'flags', ['bulk-1', 'bulk-2']), 200, 'delete both: only the archived one goes')
    expectStatus(t, await getFeature(server, 'flags', 'bulk-1'), 200, 'the revived one stays')
    t.notOk((await listArchivedFeatures(server, 'flags')).body.features.some((f: any) => f.name === 'bulk-2'), 'the archived one is deleted')
    expectError(t, await archiveFeatures(server, 'flags', ['no-such-flag']), { status: 404 }, 'archiving an unknown flag')
  })
})

t.test('switching flags on and off', async (t) => {
  await newProject('toggles')
  await newFeature('toggles', 'switch')

  t.test('on and off answer 200 and record events only when the state changes', async (t) => {
    expectOk(await addStrategy(server, 'toggles', 'switch', 'development'), 'strategy')
    let before = await lastEventId()
    expectStatus(t, await enableFeature(server, 'toggles', 'switch', 'development'), 200, 'on')
    t.equal(envOf((await getFeature(server, 'toggles', 'switch')).body, 'development').enabled, true)
    t.equal((await getFeature(server, 'toggles', 'switch')).body.enabled, true, 'the flag reports enabled when any environment is on')
    t.same((await eventsSince('toggles', before)).map((e: any) => e.type), ['feature-environment-enabled'], 'an existing strategy is kept, no default is added')
    t.equal(envOf((await getFeature(server, 'toggles', 'switch')).body, 'development').strategies.length, 1)
    before = await lastEventId()
    expectStatus(t, await enableFeature(server, 'toggles', 'switch', 'development'), 200, 'on again')
    t.equal(await lastEventId(), before, 'no event')
    expectStatus(t, await disableFeature(server, 'toggles', 'switch', 'development'), 200, 'off')
    t.equal(envOf((await getFeature(server, 'toggles', 'switch')).body, 'development').enabled, false)
    t.match((await listEvents(server, 'toggles')).body.events[0], { type: 'feature-environment-disabled', environment: 'development', featureName: 'switch' })
    before = await lastEventId()
    expectStatus(t, await disableFeature(server, 'toggles', 'switch', 'development'), 200, 'off again')
    t.equal(await lastEventId(), before, 'no event')
  })

  t.test('an environment the flag is not connected to is a 404', async (t) => {
    expectError(t, await enableFeature(server, 'toggles', 'switch', 'nope'), { status: 404, name: 'NotFoundError', message: 'Could not find environment nope for feature: switch' })
  })

  t.test('switching on with only disabled strategies adds the default, or re-enables them when asked', async (t) => {
    await newFeature('toggles', 'disabled-only')
    const disabled = expectOk(await addStrategy(server, 'toggles', 'disabled-only', 'development', { name: 'default', disabled: true }), 'disabled strategy').body
    expectOk(await enableFeature(server, 'toggles', 'disabled-only', 'development'), 'on')
    let env = envOf((await getFeature(server, 'toggles', 'disabled-only')).body, 'development')
    t.equal(env.strategies.length, 2, 'a default strategy was added')
    t.ok(env.strategies.some((s: any) => s.name === 'flexibleRollout' && !s.disabled))

    await newFeature('toggles', 'reactivate')
    const old = expectOk(await addStrategy(server, 'toggles', 'reactivate', 'development', { name: 'default', disabled: true }), 'disabled strategy').body
    expectOk(await enableFeature(server, 'toggles', 'reactivate', 'development', '?shouldActivateDisabledStrategies=true'), 'on, reactivating')
    env = envOf((await getFeature(server, 'toggles', 'reactivate')).body, 'development')
    t.equal(env.enabled, true)
    t.same(env.strategies.map((s: any) => [s.id, s.disabled]), [[old.id, false]], 'the disabled strategy is switched back on, none added')
    t.ok(disabled.id)
  })

  t.test('the feature environment answers with its own shape', async (t) => {
    const res = await getFeatureEnvironment(server, 'toggles', 'disabled-only', 'development')
    expectStatus(t, res, 200, 'get')
    t.match(res.body, {
      name: 'development',
      environment: 'development',
      featureName: 'disabled-only',
      type: 'development',
      enabled: true,
      sortOrder: Number,
      variantCount: 0,
      variants: [],
      lastSeenAt: null,
      hasStrategies: true,
      hasEnabledStrategies: true,
    })
    t.equal(res.body.strategies.length, 2)
    expectError(t, await getFeatureEnvironment(server, 'toggles', 'disabled-only', 'nope'), { status: 404 }, 'an unknown environment')
    expectError(t, await getFeatureEnvironment(server, 'toggles', 'no-such-flag', 'development'), { status: 404 }, 'an unknown flag')
  })
})

t.test('strategies', async (t) => {
  await newProject('strats')
  await newFeature('strats', 'strat-flag')
  await newFeature('strats', 'other-flag')
  const base = ['strats', 'strat-flag', 'development'] as const

  t.test('adding a strategy answers 200 with the saved strategy, parameters as strings', async (t) => {
    const res = await addStrategy(server, ...base, {
      name: 'flexibleRollout',
      title: 'half',
      parameters: { rollout: 50, stickiness: 'userId', extra: true, nothing: null },
      constraints: [{ contextName: 'appName', operator: 'IN', values: ['web', 'ios'] }],
      variants: [{ name: 'blue', weight: 500, weightType: 'variable', stickiness: 'default' }, { name: 'red', weight: 500, weightType: 'variable', stickiness: 'default' }],
    })
    expectStatus(t, res, 200, 'add')
    t.match(res.body, {
      id: uuid,
      name: 'flexibleRollout',
      title: 'half',
      disabled: false,
      sortOrder: Number,
      segments: [],
      parameters: { rollout: '50', stickiness: 'userId', groupId: 'strat-flag', extra: 'true', nothing: '' },
      constraints: [{ contextName: 'appName', operator: 'IN', values: ['web', 'ios'], inverted: false, caseInsensitive: false }],
      variants: [{ name: 'blue', weight: 500 }, { name: 'red', weight: 500 }],
    })
    t.match((await listEvents(server, 'strats')).body.events[0], {
      type: 'feature-strategy-add',
      environment: 'development',
      featureName: 'strat-flag',
      data: { id: res.body.id, name: 'flexibleRollout', parameters: { rollout: '50' } },
    })
    const fetched = await getStrategy(server, ...base, res.body.id)
    expectStatus(t, fetched, 200, 'get')
    t.match(fetched.body, { id: res.body.id, name: 'flexibleRollout', title: 'half' })
    const defaults = await addStrategy(server, ...base, { name: 'flexibleRollout' })
    t.match(defaults.body.parameters, { rollout: '100', stickiness: 'default', groupId: 'strat-flag' }, 'flexibleRollout defaults')
    expectOk(await deleteStrategy(server, ...base, defaults.body.id), 'clean up')
  })

  t.test('a strategy that cannot be saved is a 4xx', async (t) => {
    expectError(t, await addStrategy(server, ...base, { name: 'no-such-strategy' }), { status: 400, message: /Could not find strategy type with name no-such-strategy/ })
    expectError(t, await addStrategy(server, ...base, { name: 'flexibleRollout', variants: [{ name: 'a', weight: 100, weightType: 'fix', stickiness: 'default' }] }), {
      status: 400,
      message: /There must be at least one "variable" variant/,
    }, 'no variable variant')
    expectError(t, await addStrategy(server, 'strats', 'no-such-flag', 'development'), { status: 404, message: `There's no feature named "no-such-flag" in project "strats"` })
    expectError(t, await addStrategy(server, 'strats', 'team-abc', 'development'), {
      status: 404,
      message: `There's no feature named "team-abc" in project "strats", but there's a feature with that name in project "named"`,
    }, 'a flag of another project')
  })

  t.test('strategies are listed by sortOrder and set-sort-order reorders them', async (t) => {
    const second = expectOk(await addStrategy(server, ...base, { name: 'userWithId', parameters: { userIds: 'a,b' } }), 'second').body
    const third = expectOk(await addStrategy(server, ...base, { name: 'default' }), 'third').body
    const first = (await listStrategies(server, ...base)).body[0]
    t.same((await listStrategies(server, ...base)).body.map((s: any) => s.id), [first.id, second.id, third.id], 'in the order added')
    const res = await setStrategySortOrder(server, ...base, [
      { id: third.id, sortOrder: 0 },
      { id: first.id, sortOrder: 1 },
      { id: second.id, sortOrder: 2 },
    ])
    expectStatus(t, res, 200, 'set-sort-order')
    t.same((await listStrategies(server, ...base)).body.map((s: any) => s.id), [third.id, first.id, second.id], 'reordered')
    t.match((await listEvents(server, 'strats')).body.events[0], { type: 'strategy-order-changed', data: { strategyIds: [third.id, first.id, second.id] } })
    expectError(t, await setStrategySortOrder(server, ...base, [{ id: 'not-a-strategy-here', sortOrder: 0 }]), { status: 400 }, 'a foreign id')
    t.same((await listStrategies(server, ...base)).body.map((s: any) => s.id), [third.id, first.id, second.id], 'unchanged after the refusal')
  })

  t.test('updating a strategy with PUT answers 200 and records the old and new strategy', async (t) => {
    const [target] = (await listStrategies(server, ...base)).body
    const res = await updateStrategy(server, ...base, target.id, { name: 'flexibleRollout', parameters: { rollout: '10', stickiness: 'default', groupId: 'g' }, constraints: [] })
    expectStatus(t, res, 200, 'update')
    t.match(res.body, { id: target.id, name: 'flexibleRollout', parameters: { rollout: '10', groupId: 'g' } })
    t.match((await listEvents(server, 'strats')).body.events[0], {
      type: 'feature-strategy-update',
      data: { id: target.id, parameters: { rollout: '10' } },
      preData: { id: target.id, name: target.name },
    })
    expectError(t, await updateStrategy(server, ...base, '00000000-0000-4000-8000-000000000000', { name: 'default' }), { status: 404 }, 'an unknown id')
  })

  t.test('patching a strategy applies a JSON patch; a failing patch applies nothing', async (t) => {
    const [target] = (await listStrategies(server, ...base)).body
    const res = await patchStrategy(server, ...base, target.id, [
      { op: 'replace', path: '/parameters/rollout', value: '20' },
      { op: 'replace', path: '/title', value: 'patched' },
    ])
    expectStatus(t, res, 200, 'patch')
    t.match(res.body, { id: target.id, title: 'patched', parameters: { rollout: '20' } })
    const before = await lastEventId()
    const failing = await patchStrategy(server, ...base, target.id, [
      { op: 'replace', path: '/title', value: 'half-applied' },
      { op: 'remove', path: '/no-such-field' },
    ])
    expectError(t, failing, { status: 400, message: /^Could not apply provided patch: / })
    t.equal((await getStrategy(server, ...base, target.id)).body.title, 'patched', 'nothing applied')
    t.equal(await lastEventId(), before, 'no event')
  })

  t.test("another flag's strategy cannot be read or changed through this flag", async (t) => {
    const foreign = expectOk(await addStrategy(server, 'strats', 'other-flag', 'development'), 'foreign').body
    expectError(t, await updateStrategy(server, ...base, foreign.id, { name: 'default' }), {
      status: 403,
      message: 'You can not change the featureName for an activation strategy.',
    }, 'PUT')
    t.equal((await getStrategy(server, ...base, foreign.id)).status, 403, 'GET is a 403')
    t.equal((await patchStrategy(server, ...base, foreign.id, [{ op: 'replace', path: '/title', value: 'x' }])).status, 403, 'PATCH is a 403')
    t.equal((await getStrategy(server, 'strats', 'other-flag', 'development', foreign.id)).body.title, null, 'untouched')
  })

  t.test('deleting a strategy answers 200; an unknown id is a 404 (as Unleash 8.2)', async (t) => {
    const extra = expectOk(await addStrategy(server, ...base, { name: 'default' }), 'extra').body
    expectStatus(t, await deleteStrategy(server, ...base, extra.id), 200, 'delete')
    t.notOk((await listStrategies(server, ...base)).body.some((s: any) => s.id === extra.id), 'gone')
    t.match((await listEvents(server, 'strats')).body.events[0], { type: 'feature-strategy-remove', preData: { id: extra.id } })
    const before = await lastEventId()
    expectError(t, await deleteStrategy(server, ...base, extra.id), { status: 404, name: 'NotFoundError' }, 'delete again')
    t.equal(await lastEventId(), before, 'no event')
  })

  t.test('deleting the last strategy of an enabled environment switches it off', async (t) => {
    await newFeature('strats', 'last-one')
    const only = expectOk(await addStrategy(server, 'strats', 'last-one', 'development'), 'strategy').body
    expectOk(await enableFeature(server, 'strats', 'last-one', 'development'), 'on')
    const before = await lastEventId()
    expectStatus(t, await deleteStrategy(server, 'strats', 'last-one', 'development', only.id), 200, 'delete')
    const env = envOf((await getFeature(server, 'strats', 'last-one')).body, 'development')
    t.equal(env.enabled, false, 'switched off')
    t.same(env.strategies, [])
    t.same((await eventsSince('strats', before)).map((e: any) => e.type), ['feature-environment-disabled', 'feature-strategy-remove'])
  })

  t.test('disabling the last active strategy switches the environment off', async (t) => {
    await newFeature('strats', 'disable-last')
    const only = expectOk(await addStrategy(server, 'strats', 'disable-last', 'development'), 'strategy').body
    expectOk(await enableFeature(server, 'strats', 'disable-last', 'development'), 'on')
    expectStatus(t, await updateStrategy(server, 'strats', 'disable-last', 'development', only.id, { name: 'default', disabled: true }), 200, 'disable')
    t.equal(envOf((await getFeature(server, 'strats', 'disable-last')).body, 'development').enabled, false, 'switched off')
  })
})

t.test('events', async (t) => {
  await newProject('busy')
  // 40 flags × 3 events each puts well over 100 events in this project.
  for (let i = 0; i < 40; i += 8) {
    await Promise.all(
      Array.from({ length: 8 }, async (_, j) => {
        const name = `busy-${i + j}`
        expectOk(await createFeature(server, 'busy', name), name)
        expectOk(await addStrategy(server, 'busy', name, 'development'), name)
        expectOk(await enableFeature(server, 'busy', name, 'development'), name)
      }),
    )
  }

  t.test('without a project the newest 100 events are listed, newest first', async (t) => {
    const res = await listEvents(server)
    expectStatus(t, res, 200, 'list')
    t.equal(res.body.version, 1)
    t.equal(res.body.events.length, 100)
    const ids = res.body.events.map((e: any) => e.id)
    t.equal(ids[0], res.body.totalEvents, 'the newest id is the number of events: ids run 1..N')
    t.ok(ids.every((id: number, i: number) => i === 0 || id === ids[i - 1] - 1), 'ids decrease by one, without gaps or duplicates')
    for (const event of res.body.events) {
      t.match(event, { id: Number, type: String, createdAt: isoDate, createdBy: String }, `event ${event.id} has Unleash's fields`)
      t.ok('createdByUserId' in event && 'environment' in event && 'project' in event && 'featureName' in event && 'data' in event && 'preData' in event)
    }
    t.match(res.body.events[0], { createdBy: 'init-admin-token', createdByUserId: -42 }, 'admin-token writes carry the token name and user id -42')
  })

  t.test("with a project, all of that project's events are listed, newest first", async (t) => {
    const res = await listEvents(server, 'busy')
    expectStatus(t, res, 200, 'list')
    t.equal(res.body.events.length, 1 + 40 * 3, 'project-created plus three events per flag: not capped at 100')
    t.ok(res.body.events.every((e: any) => e.project === 'busy'))
    const ids = res.body.events.map((e: any) => e.id)
    t.ok(ids.every((id: number, i: number) => i === 0 || id < ids[i - 1]), 'newest first, no duplicates')
    t.equal(res.body.events.at(-1).type, 'project-created', 'the oldest is the creation')
  })

  t.test('an unknown project has no events', async (t) => {
    const res = await listEvents(server, 'no-such-project')
    expectStatus(t, res, 200, 'list')
    t.same(res.body.events, [])
  })

  t.test("a flag's events are listed by name", async (t) => {
    const res = await listFeatureEvents(server, 'busy-0')
    expectStatus(t, res, 200, 'list')
    t.match(res.body, { version: 1, toggleName: 'busy-0' })
    t.same(res.body.events.map((e: any) => e.type), ['feature-environment-enabled', 'feature-strategy-add', 'feature-created'])
  })

  t.test('ids across every listing are unique and run 1..N', async (t) => {
    const total = (await listEvents(server)).body.totalEvents
    const seen = new Map<number, string>()
    const projects = (await listProjects(server)).body.projects.map((p: any) => p.id)
    for (const project of projects) {
      for (const event of (await listEvents(server, project)).body.events) {
        t.notOk(seen.has(event.id) && seen.get(event.id) !== project, `id ${event.id} appears in one project only`)
        seen.set(event.id, project)
      }
    }
    for (const event of (await listEvents(server)).body.events) seen.set(event.id, 'newest')
    t.ok([...seen.keys()].every((id) => id >= 1 && id <= total), 'every id is within 1..N')
  })
})

t.test('API tokens', async (t) => {
  const hex56 = '[0-9a-f]{56}'

  t.test("creating a token answers 201 with Unleash's shape and the secret formats", async (t) => {
    const one = await createApiToken(server, { tokenName: 'one-project', type: 'client', environment: 'development', projects: ['alpha'] })
    expectStatus(t, one, 201, 'one project')
    t.equal(one.headers.get('location'), 'api-tokens')
    t.match(one.body, {
      secret: new RegExp(`^alpha:development\\.${hex56}$`),
      tokenName: 'one-project',
      type: 'client',
      environment: 'development',
      project: 'alpha',
      projects: ['alpha'],
      expiresAt: null,
      createdAt: isoDate,
    })
    t.ok('seenAt' in one.body && 'alias' in one.body)
    const all = await createApiToken(server, { tokenName: 'all-projects', type: 'backend', environment: 'production' })
    expectStatus(t, all, 201, 'all projects')
    t.match(all.body, { secret: new RegExp(`^\\*:production\\.${hex56}$`), projects: ['*'], project: '*', type: 'backend' })
    const several = await createApiToken(server, { tokenName: 'several', type: 'client', environment: 'production', projects: ['alpha', 'beta'] })
    expectStatus(t, several, 201, 'several projects')
    t.match(several.body, { secret: new RegExp(`^\\[\\]:production\\.${hex56}$`), project: 'alpha,beta' })
    t.same([...several.body.projects].sort(), ['alpha', 'beta'])
    const star = await createApiToken(server, { tokenName: 'star-in-list', type: 'client', projects: ['alpha', '*'] })
    t.match(star.body, { projects: ['*'], environment: 'development' }, 'a list with * collapses to *, the environment defaults to development')
    const singular = await createApiToken(server, { tokenName: 'singular', type: 'client', project: 'alpha' })
    t.match(singular.body, { projects: ['*'] }, 'the singular project field is ignored')
    const anyCase = await createApiToken(server, { tokenName: 'any-case', type: 'FRONTEND', environment: 'development', projects: ['alpha'] })
    expectStatus(t, anyCase, 201, 'type in any case')
    t.equal(anyCase.body.type, 'frontend')
    const secrets = new Set([one, all, several, star, singular, anyCase].map((r) => r.body.secret))
    t.equal(secrets.size, 6, 'every secret is different')
  })

  t.test('a token that cannot be made is a 400', async (t) => {
    expectError(t, await createApiToken(server, { tokenName: 'x', type: 'client', environment: '*' }), { status: 400, message: /Client token cannot be scoped to all environments/ })
    expectError(t, await createApiToken(server, { tokenName: 'x', type: 'frontend', environment: '*' }), { status: 400, message: /Frontend token cannot be scoped to all environments/ })
    expectError(t, await createApiToken(server, { tokenName: 'x', type: 'client', environment: 'nope' }), { status: 400, message: /Environment=nope does not exist/ })
    expectError(t, await createApiToken(server, { tokenName: 'x', type: 'client', projects: ['nope'] }), { status: 400, message: /Project=nope does not exist/ })
    expectError(t, await createApiToken(server, { tokenName: 'x', type: 'superuser' }), { status: 400 }, 'an unknown type')
    expectError(t, await createApiToken(server, { type: 'client' } as any), { status: 400 }, 'no tokenName')
  })

  // The issue names client, admin and frontend tokens (Unleash calls admin tokens legacy): an admin
  // token is made only with the ADMIN permission, with Unleash's *:*.<hex> secret and full scope.
  t.test('an admin token is created with the admin format and scope', async (t) => {
    const res = await createApiToken(server, { tokenName: 'ops-admin', type: 'admin', environment: 'development', projects: ['default'] } as any)
    expectStatus(t, res, 201, 'created')
    t.match(res.body.secret, /^\*:\*\.[0-9a-f]{56}$/)
    t.equal(res.body.environment, '*')
    t.same(res.body.projects, ['*'])
  })

  t.test('tokens are listed, and found by name', async (t) => {
    const list = await listApiTokens(server)
    expectStatus(t, list, 200, 'list')
    t.ok(list.body.tokens.some((tk: any) => tk.tokenName === 'one-project'))
    const byName = await getApiTokensByName(server, 'several')
    expectStatus(t, byName, 200, 'by name')
    t.equal(byName.body.tokens.length, 1)
    t.equal(byName.body.tokens[0].tokenName, 'several')
  })

  t.test('a token for many long-named projects is stored and listed', async (t) => {
    const ids: string[] = []
    for (let i = 0; i < 25; i++) {
      const id = `${String(i).padStart(2, '0')}${'p'.repeat(98)}`
      ids.push(id)
      expectOk(await createProject(server, { id, name: `long ${i}` }), `project ${i}`)
    }
    const res = await createApiToken(server, { tokenName: 'long-projects', type: 'client', projects: ids })
    expectStatus(t, res, 201, 'create')
    t.match(res.body.secret, /^\[\]:development\./)
    expectStatus(t, await getClientFeatures(server, res.body.secret), 200, 'it works')
    const joined = res.body.project
    const events = await listEvents(server, joined)
    expectStatus(t, events, 200, 'its events')
    t.match(events.body.events[0], { type: 'api-token-created', data: { tokenName: 'long-projects' } })
    expectStatus(t, await listProjects(server), 200, 'the server is still up')
  })

  t.test('updating an unknown token answers 200 and changes nothing', async (t) => {
    const before = await lastEventId()
    const res = await updateApiToken(server, '*:development.0000000000', { expiresAt: '2999-01-01T00:00:00.000Z' })
    expectStatus(t, res, 200, 'update')
    t.equal(res.text, '')
    t.equal(await lastEventId(), before, 'no event')
    expectError(t, await updateApiToken(server, '*:development.0000000000', {}), { status: 400 }, 'no expiresAt')
  })

  t.test('a deleted token is refused on the very next request', async (t) => {
    const secret = expectOk(await createApiToken(server, { tokenName: 'short-lived', type: 'client', projects: ['alpha'] }), 'create').body.secret
    expectStatus(t, await getClientFeatures(server, secret), 200, 'it works')
    const res = await deleteApiToken(server, secret)
    expectStatus(t, res, 200, 'delete')
    expectError(t, await getClientFeatures(server, secret), { status: 401 }, 'refused right after the delete')
    t.notOk((await listApiTokens(server)).body.tokens.some((tk: any) => tk.secret === secret), 'not listed')
    expectStatus(t, await deleteApiToken(server, secret), 200, 'deleting again answers 200')
    expectStatus(t, await deleteApiToken(server, 'never-existed'), 200, 'deleting an unknown token answers 200')
  })

  t.test('an expired token is refused', async (t) => {
    const past = expectOk(await createApiToken(server, { tokenName: 'to-expire', type: 'client', projects: ['alpha'] }), 'create').body.secret
    expectStatus(t, await updateApiToken(server, past, { expiresAt: new Date(Date.now() - 60_000).toISOString() }), 200, 'expire it')
    expectError(t, await getClientFeatures(server, past), { status: 401 }, 'refused once expiresAt is past')

    const soon = expectOk(await createApiToken(server, { tokenName: 'expires-soon', type: 'client', projects: ['alpha'] }), 'create').body.secret
    // Far enough ahead that a loaded machine still asks before it; then waited for, past it.
    const expiresAt = new Date(Date.now() + 4000).toISOString()
    expectStatus(t, await updateApiToken(server, soon, { expiresAt }), 200, 'expire it in 4 s')
    t.equal((await listApiTokens(server)).body.tokens.find((tk: any) => tk.tokenName === 'expires-soon').expiresAt, expiresAt, 'the new expiry is listed')
    expectStatus(t, await getClientFeatures(server, soon), 200, 'still valid before expiresAt')
    await sleep(Math.max(0, Date.parse(expiresAt) - Date.now()) + 50)
    expectError(t, await getClientFeatures(server, soon), { status: 401 }, 'refused after expiresAt')

    const admin = expectOk(await createApiToken(server, { tokenName: 'future', type: 'client', projects: ['alpha'], expiresAt: '2999-01-01T00:00:00.000Z' }), 'create with an expiry').body
    t.equal(admin.expiresAt, '2999-01-01T00:00:00.000Z')
    expectStatus(t, await getClientFeatures(server, admin.secret), 200, 'a future expiry is fine')
  })

  t.test('token events carry the token without its secret', async (t) => {
    const created = expectOk(await createApiToken(server, { tokenName: 'evented', type: 'client', environment: 'production', projects: ['beta'] }), 'create').body
    expectOk(await updateApiToken(server, created.secret, { expiresAt: '2998-01-01T00:00:00.000Z' }), 'update')
    expectOk(await deleteApiToken(server, created.secret), 'delete')
    const events = (await listEvents(server, 'beta')).body.events.filter((e: any) => e.type.startsWith('api-token-') && (e.data ?? e.preData).tokenName === 'evented')
    t.same(events.map((e: any) => e.type), ['api-token-deleted', 'api-token-updated', 'api-token-created'])
    t.match(events[2], { project: 'beta', environment: 'production', data: { tokenName: 'evented', type: 'client', environment: 'production', projects: ['beta'] } })
    t.match(events[1], { data: { expiresAt: '2998-01-01T00:00:00.000Z' }, preData: { expiresAt: null } })
    t.match(events[0], { preData: { tokenName: 'evented' }, data: null })
  })

  t.test('no token secret appears anywhere in the events', async (t) => {
    const secrets = (await listApiTokens(server)).body.tokens.map((tk: any) => tk.secret as string)
    secrets.push(server.adminToken, 'evented')
    const texts: string[] = [(await listEvents(server)).text]
    const projects = (await listProjects(server)).body.projects.map((p: any) => p.id)
    for (const project of [...projects, '*', 'alpha,beta']) texts.push((await listEvents(server, project)).text)
    const all = texts.join('\n')
    t.ok(all.includes('api-token-created'), 'token events are there')
    for (const secret of secrets) {
      if (secret === 'evented') continue
      const randomPart = secret.slice(secret.indexOf('.') + 1)
      t.notOk(all.includes(randomPart), `the secret of ${secret.slice(0, secret.indexOf('.'))} is not in any event`)
    }
  })

  t.test('a fresh data dir without INIT_ADMIN_API_TOKENS prints a working *:*.<hex> admin token, once', async (t) => {
    const child = await startTestServer(t, { mode: 'child', adminToken: null })
    t.match(child.adminToken, new RegExp(`^\\*:\\*\\.${hex56}$`))
    t.match(child.output(), /Created an admin API token/)
    expectStatus(t, await listProjects(child), 200, 'the printed token works')
    expectStatus(t, await createApiToken(child, { tokenName: 'x', type: 'client' }), 201, 'and can create tokens')
    t.equal(await child.stop(), 0, 'a clean stop exits 0')
    const again = await startTestServer(t, { mode: 'child', adminToken: child.adminToken, dataDir: child.dataDir })
    t.notMatch(again.output(), /Created an admin API token/, 'a restart does not create another one')
    expectStatus(t, await listProjects(again), 200, 'the token still works after the restart')
  })
})
