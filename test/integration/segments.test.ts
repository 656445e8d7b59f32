import t from 'tap'
import {
  addStrategy,
  api,
  clientToken,
  createEnabledFeature,
  createFeature,
  createProject,
  createSegment,
  deleteStrategy,
  expectOk,
  getClientFeature,
  getClientFeatures,
  listEvents,
} from '../helpers/admin-api.js'
import { expectError, expectStatus } from '../helpers/expect.js'
import { startTestServer } from '../helpers/server.js'

// Segments: CRUD over /api/admin/segments, their limits (SEMANTICS 2.3) and how a change reaches the client API.
const server = await startTestServer(t)
const P = 'seg'
const Q = 'seg-other'
expectOk(await createProject(server, { id: P, name: 'Segments' }), 'create project')
expectOk(await createProject(server, { id: Q, name: 'Other' }), 'create other project')
const token = await clientToken(server, [P])
const modern = { 'unleash-client-spec': '5.2.0' }

const eventsOfType = async (type: string) => ((await listEvents(server)).body.events as any[]).filter((e) => e.type === type)
const userIn = (...values: string[]) => ({ contextName: 'userId', operator: 'IN', values })

t.test('list, create, get, update, delete', async (t) => {
  const empty = await api(server, 'GET', '/api/admin/segments')
  expectStatus(t, empty, 200, 'list')
  t.type(empty.body.segments, Array, 'a segments array')

  const created = await createSegment(server, { name: 'beta-users', description: 'the beta testers', constraints: [userIn('alice', 'bob')] })
  if (!expectStatus(t, created, 201, 'create')) return
  const id = created.body.id
  t.type(id, 'number', 'a numeric id')
  t.match(created.body, {
    id,
    name: 'beta-users',
    description: 'the beta testers',
    project: null,
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['alice', 'bob'] }],
    usedInProjects: 0,
    usedInFeatures: 0,
  })
  t.type(created.body.createdAt, 'string', 'createdAt')
  t.equal(created.headers.get('location'), `segments/${id}`, 'Location header')

  const got = await api(server, 'GET', `/api/admin/segments/${id}`)
  expectStatus(t, got, 200, 'get')
  t.match(got.body, { id, name: 'beta-users', constraints: [{ values: ['alice', 'bob'] }] })

  const listed = await api(server, 'GET', '/api/admin/segments')
  t.ok(listed.body.segments.some((s: any) => s.id === id && s.name === 'beta-users'), 'listed')

  const updated = await api(server, 'PUT', `/api/admin/segments/${id}`, { name: 'beta-users-2', constraints: [userIn('carol')] })
  expectStatus(t, updated, 204, 'update')
  t.equal(updated.text, '', 'no body on 204')
  const after = await api(server, 'GET', `/api/admin/segments/${id}`)
  t.match(after.body, { id, name: 'beta-users-2', constraints: [{ values: ['carol'] }] }, 'the update is stored')

  const [createdEvent] = (await eventsOfType('segment-created')).filter((e) => e.data?.id === id)
  t.ok(createdEvent, 'segment-created event')
  t.match(createdEvent?.data, { id, name: 'beta-users' })
  const [updatedEvent] = (await eventsOfType('segment-updated')).filter((e) => e.data?.id === id)
  t.ok(updatedEvent, 'segment-updated event')
  t.match(updatedEvent, { data: { name: 'beta-users-2' }, preData: { name: 'beta-users' } }, 'new and old state')

  expectStatus(t, await api(server, 'DELETE', `/api/admin/segments/${id}`), 204, 'delete')
  expectError(t, await api(server, 'GET', `/api/admin/segments/${id}`), { status: 404, name: 'NotFoundError' }, 'gone')
  const [deletedEvent] = (await eventsOfType('segment-deleted')).filter((e) => e.preData?.id === id)
  t.ok(deletedEvent, 'segment-deleted event')
  t.match(deletedEvent?.preData, { name: 'beta-users-2' }, 'preData is the deleted segment')
})

t.test('validation errors', async (t) => {
  const first = expectOk(await createSegment(server, { name: 'unique-name', constraints: [] }), 'first')
  expectError(t, await createSegment(server, { name: 'unique-name', constraints: [] }), { status: 409, name: 'NameExistsError', message: 'Segment name already exists' }, 'duplicate name')
  const second = expectOk(await createSegment(server, { name: 'another-name', constraints: [] }), 'second')
  expectError(
    t,
    await api(server, 'PUT', `/api/admin/segments/${second.body.id}`, { name: 'unique-name', constraints: [] }),
    { status: 409, message: 'Segment name already exists' },
    'renaming onto an existing name',
  )
  t.ok(first.body.id !== second.body.id)

  const tooMany = Array.from({ length: 1001 }, (_, i) => `u${i}`)
  expectError(t, await createSegment(server, { name: 'too-many', constraints: [userIn(...tooMany)] }), { status: 400, message: /1000/ }, '> 1000 values')
  const split = [userIn(...tooMany.slice(0, 600)), userIn(...tooMany.slice(600))]
  expectError(t, await createSegment(server, { name: 'too-many-split', constraints: split }), { status: 400, message: /1000/ }, '> 1000 values over two constraints')
  expectStatus(t, await createSegment(server, { name: 'exactly-1000', constraints: [userIn(...tooMany.slice(0, 1000))] }), 201, 'exactly 1000 values')

  expectError(t, await createSegment(server, { name: '', constraints: [] }), { status: 400, message: /name/ }, 'empty name')
  expectError(t, await api(server, 'POST', '/api/admin/segments', { constraints: [] }), { status: 400, message: /name/ }, 'missing name')
  expectError(t, await api(server, 'POST', '/api/admin/segments', { name: 'no-constraints' }), { status: 400, message: /constraints/ }, 'missing constraints')
  expectError(
    t,
    await createSegment(server, { name: 'bad-op', constraints: [{ contextName: 'userId', operator: 'NOPE', values: ['x'] }] }),
    { status: 400, message: /operator/ },
    'unknown operator',
  )
  expectError(
    t,
    await createSegment(server, { name: 'bad-num', constraints: [{ contextName: 'age', operator: 'NUM_GT', value: 'abc' }] }),
    { status: 400, message: /number/ },
    'non-numeric NUM_GT value',
  )
  expectError(t, await createSegment(server, { name: 'no-project', project: 'nope', constraints: [] }), { status: 400, message: /nope/ }, 'unknown project')
  expectError(t, await api(server, 'GET', '/api/admin/segments/999999'), { status: 404, name: 'NotFoundError' }, 'unknown id')
  expectError(t, await api(server, 'GET', '/api/admin/segments/abc'), { status: 400, message: /id/ }, 'non-numeric id')
  expectError(t, await api(server, 'PUT', '/api/admin/segments/999999', { name: 'x-none', constraints: [] }), { status: 404 }, 'update unknown')
  expectError(t, await api(server, 'DELETE', '/api/admin/segments/999999'), { status: 404 }, 'delete unknown')
})

t.test('a project segment can only be used in its own project', async (t) => {
  const segment = expectOk(await createSegment(server, { name: 'p-only', project: P, constraints: [userIn('x')] }), 'project segment')
  const id = segment.body.id
  t.equal(segment.body.project, P)
  expectOk(await createFeature(server, Q, 'seg-foreign'), 'flag in the other project')
  expectError(
    t,
    await addStrategy(server, Q, 'seg-foreign', 'development', { name: 'default', segments: [id] }),
    { status: 400, message: `The segments p-only with id ${id} does not belong to project "${Q}".` },
    'used in another project',
  )
  expectOk(await createFeature(server, P, 'seg-own'), 'flag in the project')
  expectStatus(t, await addStrategy(server, P, 'seg-own', 'development', { name: 'default', segments: [id] }), 200, 'used in its own project')
  expectError(
    t,
    await api(server, 'PUT', `/api/admin/segments/${id}`, { name: 'p-only', project: Q, constraints: [userIn('x')] }),
    { status: 400, message: new RegExp(P) },
    'moving a used segment to another project',
  )
  expectError(
    t,
    await addStrategy(server, P, 'seg-own', 'development', { name: 'default', segments: [999999] }),
    { message: /999999/ },
    'an unknown segment id',
  )
})

t.test('a segment in use cannot be deleted', async (t) => {
  const segment = expectOk(await createSegment(server, { name: 'in-use', constraints: [userIn('a')] }), 'segment')
  const id = segment.body.id
  await createEnabledFeature(server, P, 'seg-user', 'development', { name: 'default', segments: [id] })
  const got = await api(server, 'GET', `/api/admin/segments/${id}`)
  t.match(got.body, { usedInProjects: 1, usedInFeatures: 1 }, 'usage counted')
  const strategies = await api(server, 'GET', `/api/admin/segments/${id}/strategies`)
  t.match(strategies.body.strategies, [{ projectId: P, featureName: 'seg-user', environment: 'development', strategyName: 'default' }], 'strategies using it')
  const refused = await api(server, 'DELETE', `/api/admin/segments/${id}`)
  expectError(t, refused, { status: 409 }, 'delete in use')
  expectStatus(t, await api(server, 'GET', `/api/admin/segments/${id}`), 200, 'still there')

  const strategyId = (await api(server, 'GET', `/api/admin/projects/${P}/features/seg-user/environments/development/strategies`)).body[0].id
  expectOk(await addStrategy(server, P, 'seg-user', 'development', { name: 'default' }), 'another strategy, so the env stays on')
  expectOk(await deleteStrategy(server, P, 'seg-user', 'development', strategyId), 'drop the strategy using it')
  expectStatus(t, await api(server, 'DELETE', `/api/admin/segments/${id}`), 204, 'deletable once unused')
})

t.test('updating a segment changes the client API', async (t) => {
  const segment = expectOk(await createSegment(server, { name: 'sdk-seg', constraints: [userIn('alice')] }), 'segment')
  const id = segment.body.id
  await createEnabledFeature(server, P, 'seg-client', 'development', {
    name: 'default',
    constraints: [{ contextName: 'appName', operator: 'IN', values: ['web'] }],
    segments: [id],
  })

  const before = await getClientFeatures(server, token, '', modern)
  expectStatus(t, before, 200, 'client features')
  const etag = before.headers.get('etag')
  t.ok(etag, 'an ETag')
  const feature = before.body.features.find((f: any) => f.name === 'seg-client')
  t.same(feature.strategies[0].segments, [id], 'the strategy carries the segment id')
  t.equal(feature.strategies[0].constraints.length, 1, 'only its own constraint')
  t.match(feature.strategies[0].constraints[0], { contextName: 'appName', operator: 'IN', values: ['web'] })
  const listed = before.body.segments.find((s: any) => s.id === id)
  t.match(listed, { id, name: 'sdk-seg', constraints: [{ contextName: 'userId', operator: 'IN', values: ['alice'] }] }, 'segment list')
  t.same(Object.keys(listed).sort(), ['constraints', 'id', 'name'], 'client segment fields (INTERFACE 2.11)')

  const cached = await getClientFeatures(server, token, '', { ...modern, 'if-none-match': etag! })
  t.equal(cached.status, 304, 'unchanged → 304')

  expectStatus(t, await api(server, 'PUT', `/api/admin/segments/${id}`, { name: 'sdk-seg', constraints: [userIn('bob', 'carol')] }), 204, 'update')

  const after = await getClientFeatures(server, token, '', { ...modern, 'if-none-match': etag! })
  expectStatus(t, after, 200, 'the old ETag no longer matches')
  t.not(after.headers.get('etag'), etag, 'a new ETag')
  t.match(after.body.segments.find((s: any) => s.id === id), { constraints: [{ values: ['bob', 'carol'] }] }, 'new segment constraints')

  const legacy = await getClientFeature(server, token, 'seg-client')
  expectStatus(t, legacy, 200, 'single flag without a client spec')
  t.notOk(legacy.body.strategies[0].segments, 'no segment ids for old clients')
  t.match(
    legacy.body.strategies[0].constraints,
    [{ contextName: 'appName', values: ['web'] }, { contextName: 'userId', operator: 'IN', values: ['bob', 'carol'] }],
    'segment constraints inlined, with the new values',
  )
  const legacyList = await getClientFeatures(server, token)
  t.notOk(legacyList.body.segments, 'no segments list for old clients')
})
