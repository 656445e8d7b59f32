import t from 'tap'
import { addStrategy, api, createFeature, createProject, deleteStrategy, expectOk, listEvents, updateStrategy } from '../helpers/admin-api.js'
import { expectError, expectStatus } from '../helpers/expect.js'
import { startTestServer } from '../helpers/server.js'

// Strategy types: /api/admin/strategies (built-ins from the first start, custom types, deprecation).
const server = await startTestServer(t)
const P = 'stypes'
expectOk(await createProject(server, { id: P, name: 'Strategy types' }), 'create project')

const builtIns = [
  'default',
  'userWithId',
  'gradualRolloutUserId',
  'gradualRolloutSessionId',
  'gradualRolloutRandom',
  'remoteAddress',
  'applicationHostname',
  'flexibleRollout',
]
const eventsOfType = async (type: string) => ((await listEvents(server)).body.events as any[]).filter((e) => e.type === type)
const path = (name: string) => `/api/admin/strategies/${encodeURIComponent(name)}`

t.test('the built-in types are present from the first start', async (t) => {
  const res = await api(server, 'GET', '/api/admin/strategies')
  expectStatus(t, res, 200, 'list')
  t.equal(res.body.version, 1, 'version 1')
  const names = (res.body.strategies as any[]).map((s) => s.name)
  for (const name of builtIns) t.ok(names.includes(name), `${name} is listed`)
  for (const s of res.body.strategies as any[]) {
    if (!builtIns.includes(s.name)) continue
    t.match(s, { name: s.name, editable: false, deprecated: false, parameters: Array }, `${s.name} shape`)
    t.type(s.description, 'string', `${s.name} has a description`)
  }
  const flexible = (res.body.strategies as any[]).find((s) => s.name === 'flexibleRollout')
  t.same(flexible.parameters.map((p: any) => p.name).sort(), ['groupId', 'rollout', 'stickiness'], 'flexibleRollout parameters')
  const one = await api(server, 'GET', path('userWithId'))
  expectStatus(t, one, 200, 'get one')
  t.match(one.body, { name: 'userWithId', parameters: [{ name: 'userIds', type: 'list' }] })
  expectError(t, await api(server, 'GET', path('no-such-type')), { status: 404, message: 'Could not find strategy type with name no-such-type' }, 'unknown type')
})

t.test('built-in types cannot be changed or deleted', async (t) => {
  const update = await api(server, 'PUT', path('default'), { name: 'default', description: 'mine now', parameters: [] })
  expectError(t, update, { status: 403, message: /built-in.*default/ }, 'update a built-in')
  expectError(t, await api(server, 'DELETE', path('flexibleRollout')), { status: 403, message: /built-in.*flexibleRollout/ }, 'delete a built-in')
  expectError(t, await api(server, 'POST', path('default') + '/deprecate'), { status: 403, message: /default/ }, 'deprecate default')
  const res = await api(server, 'GET', path('default'))
  t.match(res.body, { name: 'default', deprecated: false, editable: false }, 'default unchanged')
  t.not(res.body.description, 'mine now')
})

t.test('custom type: create, update, deprecate, reactivate, delete', async (t) => {
  const body = {
    name: 'by-country',
    title: 'By country',
    description: 'On for some countries',
    parameters: [
      { name: 'countries', type: 'list', description: 'ISO codes', required: true },
      { name: 'percent', type: 'percentage' },
    ],
  }
  const created = await api(server, 'POST', '/api/admin/strategies', body)
  if (!expectStatus(t, created, 201, 'create')) return
  t.match(created.body, {
    name: 'by-country',
    description: 'On for some countries',
    editable: true,
    deprecated: false,
    parameters: [
      { name: 'countries', type: 'list', description: 'ISO codes', required: true },
      { name: 'percent', type: 'percentage', required: false },
    ],
  })
  t.notOk('builtIn' in created.body, 'no internal fields')
  expectError(t, await api(server, 'POST', '/api/admin/strategies', body), { status: 409, message: 'Strategy with name by-country already exists' }, 'duplicate')
  const [createdEvent] = (await eventsOfType('strategy-created')).filter((e) => e.data?.name === 'by-country')
  t.match(createdEvent, { type: 'strategy-created', data: { name: 'by-country', parameters: [{ name: 'countries' }, { name: 'percent' }] } }, 'strategy-created event')

  const listed = await api(server, 'GET', '/api/admin/strategies')
  t.ok(listed.body.strategies.some((s: any) => s.name === 'by-country'), 'listed')

  const updated = await api(server, 'PUT', path('by-country'), { ...body, description: 'Countries only', parameters: [{ name: 'countries', type: 'list', required: true }] })
  expectStatus(t, updated, 200, 'update')
  t.match(updated.body, { name: 'by-country', description: 'Countries only' })
  t.equal(updated.body.parameters.length, 1, 'parameters replaced')
  const [updatedEvent] = (await eventsOfType('strategy-updated')).filter((e) => e.data?.name === 'by-country')
  t.match(updatedEvent, { data: { description: 'Countries only' }, preData: { description: 'On for some countries' } }, 'strategy-updated event with old state')
  expectError(t, await api(server, 'PUT', path('by-country'), { ...body, name: 'renamed' }), { status: 403, message: /name/ }, 'renaming through PUT')
  expectError(t, await api(server, 'PUT', path('nope-type'), { ...body, name: 'nope-type' }), { status: 404 }, 'update an unknown type')

  expectStatus(t, await api(server, 'POST', path('by-country') + '/deprecate'), 200, 'deprecate')
  t.equal((await api(server, 'GET', path('by-country'))).body.deprecated, true, 'deprecated')
  t.ok((await eventsOfType('strategy-deprecated')).some((e) => e.data?.name === 'by-country'), 'strategy-deprecated event')
  expectStatus(t, await api(server, 'POST', path('by-country') + '/reactivate'), 200, 'reactivate')
  t.equal((await api(server, 'GET', path('by-country'))).body.deprecated, false, 'active again')
  t.ok((await eventsOfType('strategy-reactivated')).some((e) => e.data?.name === 'by-country'), 'strategy-reactivated event')
  expectError(t, await api(server, 'POST', path('nope-type') + '/deprecate'), { status: 404 }, 'deprecate an unknown type')

  // In use by a flag: can be used with its parameters, and not deleted while used.
  expectOk(await createFeature(server, P, 'st-user'), 'flag')
  const strategy = await addStrategy(server, P, 'st-user', 'development', { name: 'by-country', parameters: { countries: 'NO,SE' } })
  expectStatus(t, strategy, 200, 'a flag strategy of the custom type')
  t.match(strategy.body, { name: 'by-country', parameters: { countries: 'NO,SE' } })
  expectError(t, await api(server, 'DELETE', path('by-country')), { message: /by-country/ }, 'delete while used')
  expectOk(await deleteStrategy(server, P, 'st-user', 'development', strategy.body.id), 'drop the strategy')

  expectStatus(t, await api(server, 'DELETE', path('by-country')), 200, 'delete')
  expectError(t, await api(server, 'GET', path('by-country')), { status: 404 }, 'gone')
  const [deletedEvent] = (await eventsOfType('strategy-deleted')).filter((e) => e.preData?.name === 'by-country')
  t.ok(deletedEvent, 'strategy-deleted event')
  expectError(t, await api(server, 'DELETE', path('by-country')), { status: 404 }, 'delete again')
})

t.test('validation of a strategy type', async (t) => {
  expectError(t, await api(server, 'POST', '/api/admin/strategies', { parameters: [] }), { status: 400, message: /name/ }, 'missing name')
  expectError(t, await api(server, 'POST', '/api/admin/strategies', { name: 'has space' }), { status: 400, message: /name/ }, 'name not URL friendly')
  expectError(
    t,
    await api(server, 'POST', '/api/admin/strategies', { name: 'bad-param', parameters: [{ name: 'x', type: 'colour' }] }),
    { status: 400, message: /type/ },
    'unknown parameter type',
  )
  expectError(
    t,
    await api(server, 'POST', '/api/admin/strategies', { name: 'bad-param2', parameters: [{ type: 'string' }] }),
    { status: 400, message: /name/ },
    'parameter without a name',
  )
  expectError(t, await api(server, 'POST', '/api/admin/strategies', { name: 'bad-params', parameters: 'x' }), { status: 400, message: /parameters/ }, 'parameters not an array')
})

t.test('a flag strategy must name a registered type', async (t) => {
  expectOk(await createFeature(server, P, 'st-unknown'), 'flag')
  expectError(
    t,
    await addStrategy(server, P, 'st-unknown', 'development', { name: 'not-registered' }),
    { status: 400, message: 'Could not find strategy type with name not-registered' },
    'add',
  )
  const ok = expectOk(await addStrategy(server, P, 'st-unknown', 'development', { name: 'default' }), 'a known type')
  expectError(
    t,
    await updateStrategy(server, P, 'st-unknown', 'development', ok.body.id, { name: 'not-registered-either' }),
    { status: 400, message: 'Could not find strategy type with name not-registered-either' },
    'update',
  )
  for (const name of builtIns) {
    const res = await addStrategy(server, P, 'st-unknown', 'development', { name, parameters: {} })
    expectStatus(t, res, 200, `a ${name} strategy is accepted`)
  }
})
