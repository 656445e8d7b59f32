import t from 'tap'
import { addStrategy, api, createFeature, createProject, createSegment, expectOk, listEvents, updateStrategy } from '../helpers/admin-api.js'
import { expectError, expectStatus } from '../helpers/expect.js'
import { startTestServer } from '../helpers/server.js'

// Context fields: /api/admin/context, and legal values enforced on constraints (SEMANTICS 2.4).
const server = await startTestServer(t)
const P = 'ctx'
expectOk(await createProject(server, { id: P, name: 'Context' }), 'create project')

const eventsOfType = async (type: string) => ((await listEvents(server)).body.events as any[]).filter((e) => e.type === type)
const path = (name: string) => `/api/admin/context/${encodeURIComponent(name)}`

t.test('the built-in fields', async (t) => {
  const res = await api(server, 'GET', '/api/admin/context')
  expectStatus(t, res, 200, 'list')
  t.type(res.body, Array, 'a bare array')
  const names = (res.body as any[]).map((f) => f.name)
  for (const name of ['appName', 'currentTime', 'environment', 'remoteAddress', 'sessionId', 'userId']) t.ok(names.includes(name), `${name} is there`)
  const userId = (res.body as any[]).find((f) => f.name === 'userId')
  t.match(userId, { name: 'userId', stickiness: true, legalValues: [], sortOrder: Number }, 'userId shape')
  const got = await api(server, 'GET', path('sessionId'))
  expectStatus(t, got, 200, 'get one')
  t.match(got.body, { name: 'sessionId', stickiness: true })
  expectError(t, await api(server, 'GET', path('nope')), { status: 404, name: 'NotFoundError', message: /nope/ }, 'unknown field')
})

t.test('create, update, delete, with events', async (t) => {
  const body = { name: 'region', description: 'Where the user is', stickiness: false, legalValues: [{ value: 'eu', description: 'Europe' }, { value: 'us' }] }
  const created = await api(server, 'POST', '/api/admin/context', body)
  if (!expectStatus(t, created, 201, 'create')) return
  t.match(created.body, { name: 'region', description: 'Where the user is', stickiness: false, legalValues: [{ value: 'eu', description: 'Europe' }, { value: 'us' }] })
  t.equal(created.headers.get('location'), 'context/region', 'Location header')
  expectError(t, await api(server, 'POST', '/api/admin/context', body), { status: 409, message: /region/ }, 'duplicate')
  t.match((await eventsOfType('context-field-created')).find((e) => e.data?.name === 'region'), { data: { name: 'region', legalValues: [{ value: 'eu' }, { value: 'us' }] } }, 'context-field-created')

  const listed = await api(server, 'GET', '/api/admin/context')
  t.ok((listed.body as any[]).some((f) => f.name === 'region'), 'listed')

  const updated = await api(server, 'PUT', path('region'), { description: 'Region', stickiness: true, legalValues: [{ value: 'eu' }, { value: 'us' }, { value: 'apac' }] })
  expectStatus(t, updated, 200, 'update')
  const after = await api(server, 'GET', path('region'))
  t.match(after.body, { name: 'region', description: 'Region', stickiness: true })
  t.same(after.body.legalValues.map((v: any) => v.value), ['eu', 'us', 'apac'], 'legal values replaced')
  t.match((await eventsOfType('context-field-updated')).find((e) => e.data?.name === 'region'), { data: { description: 'Region' }, preData: { description: 'Where the user is' } }, 'context-field-updated')
  expectError(t, await api(server, 'PUT', path('region'), { name: 'other-name' }), { status: 400, message: /name/ }, 'renaming')
  expectError(t, await api(server, 'PUT', path('no-such-field'), {}), { status: 404 }, 'update unknown')

  expectStatus(t, await api(server, 'DELETE', path('region')), 200, 'delete')
  expectError(t, await api(server, 'GET', path('region')), { status: 404 }, 'gone')
  t.match((await eventsOfType('context-field-deleted')).find((e) => e.preData?.name === 'region'), { preData: { name: 'region' } }, 'context-field-deleted')
  expectError(t, await api(server, 'DELETE', path('region')), { status: 404 }, 'delete again')
})

t.test('validation', async (t) => {
  expectError(t, await api(server, 'POST', '/api/admin/context', {}), { status: 400, message: /name/ }, 'missing name')
  expectError(t, await api(server, 'POST', '/api/admin/context', { name: '' }), { status: 400, message: /name/ }, 'empty name')
  expectError(t, await api(server, 'POST', '/api/admin/context', { name: 'has space' }), { status: 400, message: /URL friendly/ }, 'not URL friendly')
  expectError(t, await api(server, 'POST', '/api/admin/context', { name: 'dup-values', legalValues: [{ value: 'a' }, { value: 'a' }] }), { status: 400, message: /legalValues/ }, 'legal value twice')
  expectError(t, await api(server, 'POST', '/api/admin/context', { name: 'empty-value', legalValues: [{ value: '' }] }), { status: 400, message: /legalValues/ }, 'empty legal value')
  expectError(t, await api(server, 'POST', '/api/admin/context', { name: 'bad-stick', stickiness: 'yes' }), { status: 400, message: /stickiness/ }, 'stickiness not a boolean')
  expectError(t, await api(server, 'POST', '/api/admin/context', { name: 'bad-legal', legalValues: 'eu' }), { status: 400, message: /legalValues/ }, 'legalValues not an array')
})

t.test('legal values are enforced on constraints', async (t) => {
  expectOk(await api(server, 'POST', '/api/admin/context', { name: 'plan', legalValues: [{ value: 'free' }, { value: 'pro' }] }), 'field with legal values')
  expectOk(await api(server, 'POST', '/api/admin/context', { name: 'team' }), 'field without legal values')
  expectOk(await createFeature(server, P, 'ctx-flag'), 'flag')
  const inPlan = (...values: string[]) => ({ name: 'default', constraints: [{ contextName: 'plan', operator: 'IN', values }] })

  const legal = await addStrategy(server, P, 'ctx-flag', 'development', inPlan('free', 'pro'))
  expectStatus(t, legal, 200, 'legal values accepted')
  expectError(
    t,
    await addStrategy(server, P, 'ctx-flag', 'development', inPlan('pro', 'enterprise')),
    { status: 400, message: /"enterprise" is not a legal value for the context field "plan"/ },
    'an illegal value on add',
  )
  expectError(
    t,
    await updateStrategy(server, P, 'ctx-flag', 'development', legal.body.id, inPlan('gold')),
    { status: 400, message: /"gold".*"plan"/ },
    'an illegal value on update',
  )
  expectError(
    t,
    await createSegment(server, { name: 'plan-seg', constraints: [{ contextName: 'plan', operator: 'NOT_IN', values: ['platinum'] }] }),
    { status: 400, message: /"platinum".*"plan"/ },
    'an illegal value in a segment',
  )
  expectStatus(t, await createSegment(server, { name: 'plan-seg', constraints: [{ contextName: 'plan', operator: 'NOT_IN', values: ['free'] }] }), 201, 'a legal segment')
  expectStatus(
    t,
    await addStrategy(server, P, 'ctx-flag', 'development', { name: 'default', constraints: [{ contextName: 'team', operator: 'IN', values: ['anything'] }] }),
    200,
    'a field without legal values takes anything',
  )
  const stored = await api(server, 'GET', `/api/admin/projects/${P}/features/ctx-flag/environments/development/strategies`)
  t.equal(stored.body.length, 2, 'the refused strategy was not stored')

  // Widening the legal values makes the value acceptable.
  expectOk(await api(server, 'PUT', path('plan'), { legalValues: [{ value: 'free' }, { value: 'pro' }, { value: 'enterprise' }] }), 'widen')
  expectStatus(t, await addStrategy(server, P, 'ctx-flag', 'development', inPlan('enterprise')), 200, 'accepted after widening')
})
