import t from 'tap'
import {
  addStrategy,
  api,
  clientToken,
  createApiToken,
  createFeature,
  createSegment,
  enableFeature,
  expectOk,
  getFeature,
  getStrategy,
  listEvents,
  patchFeature,
  request,
  updateFeature,
  updateStrategy,
} from '../helpers/admin-api.js'
import { eventually, expectError, expectStatus } from '../helpers/expect.js'
import { startSdk } from '../helpers/sdk.js'
import { startTestServer } from '../helpers/server.js'

// PUT is a replace (issue 24, part 1). Every expectation here was written from what Unleash 8.2 answered
// to the same requests, side by side; Unleash is not needed to run it.
const server = await startTestServer(t)
const P = 'default'

const eventTypesSince = async (id: number): Promise<string[]> =>
  ((await listEvents(server)).body.events as { id: number; type: string }[])
    .filter((e) => e.id > id)
    .reverse()
    .map((e) => e.type)
const lastEventId = async (): Promise<number> => (await listEvents(server)).body.events[0]?.id ?? 0

t.test('PUT of a strategy without constraints or variants clears them: SDKs see it on for a user the old constraint excluded', async (t) => {
  const F = 'put-strategy'
  expectOk(await createFeature(server, P, F), 'flag')
  const segment = expectOk(await createSegment(server, { name: 'put-segment', constraints: [] }), 'segment').body
  const strategy = expectOk(
    await addStrategy(server, P, F, 'development', {
      name: 'flexibleRollout',
      title: 't',
      segments: [segment.id],
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'] }],
      parameters: { rollout: '100', stickiness: 'default', groupId: 'g' },
      variants: [{ name: 'a', weight: 1000, weightType: 'variable', stickiness: 'default' }],
    }),
    'strategy',
  ).body
  expectOk(await enableFeature(server, P, F, 'development'), 'on')
  const sdk = await startSdk(t, server.baseUrl, await clientToken(server, [P]))
  t.equal(sdk.isEnabled(F, { userId: '2' }), false, 'before: user 2 is excluded by the constraint')

  const res = await updateStrategy(server, P, F, 'development', strategy.id, { name: 'flexibleRollout', title: null })
  expectStatus(t, res, 200, 'PUT')
  // Unleash 8.2: constraints and variants [], parameters back to the flexibleRollout defaults; title
  // (null keeps it), disabled, segments and sortOrder kept.
  t.match(res.body, {
    name: 'flexibleRollout',
    title: 't',
    disabled: false,
    sortOrder: 0,
    constraints: [],
    variants: [],
    segments: [segment.id],
    parameters: { rollout: '100', stickiness: 'default', groupId: F },
  })
  t.equal(await eventually(() => sdk.isEnabled(F, { userId: '2' })), true, 'after: on for user 2, as Unleash evaluates it')

  // Unleash 8.2: a PUT without a name keeps the name; a title '' is a title.
  const kept = await updateStrategy(server, P, F, 'development', strategy.id, { title: '', parameters: { rollout: '20', stickiness: 'default', groupId: F } })
  t.match(kept.body, { name: 'flexibleRollout', title: '', parameters: { rollout: '20' }, segments: [segment.id] })
  t.match((await getStrategy(server, P, F, 'development', strategy.id)).body, { title: '', constraints: [] })
})

t.test('PUT of a flag resets type, description, impressionData and stale to their defaults', async (t) => {
  const F = 'put-flag'
  expectOk(await createFeature(server, P, { name: F, description: 'd', type: 'experiment', impressionData: true }), 'flag')
  expectOk(await patchFeature(server, P, F, [{ op: 'replace', path: '/stale', value: true }]), 'stale')
  const before = await lastEventId()
  const res = await updateFeature(server, P, F, { name: F })
  expectStatus(t, res, 200, 'PUT')
  // Unleash 8.2 answered exactly these fields.
  t.match(res.body, { name: F, description: null, type: 'release', project: P, stale: false, impressionData: false, archived: false })
  t.match((await getFeature(server, P, F)).body, { description: null, type: 'release', stale: false, impressionData: false })
  t.same(await eventTypesSince(before), ['feature-metadata-updated'], 'a PUT that changes stale logs feature-metadata-updated alone')

  const staleOn = await lastEventId()
  t.match((await updateFeature(server, P, F, { name: F, stale: true })).body, { stale: true })
  t.same(await eventTypesSince(staleOn), ['feature-metadata-updated'])
  const again = await lastEventId()
  expectOk(await updateFeature(server, P, F, { name: F, stale: true }), 'same PUT')
  expectOk(await updateFeature(server, P, F, { name: F, stale: true, description: '' }), 'an empty description is none')
  t.same(await eventTypesSince(again), [], 'nothing changed, nothing logged')
  expectError(t, await updateFeature(server, P, F, { name: 'other-name' }), { status: 400, name: 'BadDataError' }, 'another name')
})

t.test('PATCH of stale logs feature-metadata-updated, then feature-stale-on/off', async (t) => {
  const F = 'patch-stale'
  expectOk(await createFeature(server, P, F), 'flag')
  const before = await lastEventId()
  expectOk(await patchFeature(server, P, F, [{ op: 'replace', path: '/stale', value: true }]), 'on')
  expectOk(await patchFeature(server, P, F, [{ op: 'replace', path: '/stale', value: false }]), 'off')
  t.same(await eventTypesSince(before), ['feature-metadata-updated', 'feature-stale-on', 'feature-metadata-updated', 'feature-stale-off'])
})

t.test('PUT of a context field keeps the description it leaves out and resets the rest', async (t) => {
  const body = { name: 'put-ctx', description: 'desc', stickiness: true, sortOrder: 4, legalValues: [{ value: '1', description: 'one' }, { value: '2' }] }
  expectOk(await api(server, 'POST', '/api/admin/context', body), 'field')
  expectStatus(t, await api(server, 'PUT', '/api/admin/context/put-ctx', { name: 'put-ctx' }), 200, 'PUT')
  // Unleash 8.2: {"description":"desc","stickiness":false,"sortOrder":0,"legalValues":[]}.
  t.match((await api(server, 'GET', '/api/admin/context/put-ctx')).body, { name: 'put-ctx', description: 'desc', stickiness: false, sortOrder: 0, legalValues: [] })
})

t.test('PUT of a segment keeps the description it leaves out', async (t) => {
  const segment = expectOk(await createSegment(server, { name: 'put-seg', description: 'D', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'] }] }), 'segment').body
  expectError(t, await api(server, 'PUT', `/api/admin/segments/${segment.id}`, { name: 'put-seg' }), { status: 400, message: /constraints/ }, 'constraints are required')
  expectStatus(t, await api(server, 'PUT', `/api/admin/segments/${segment.id}`, { name: 'put-seg', constraints: [] }), 204, 'PUT')
  t.match((await api(server, 'GET', `/api/admin/segments/${segment.id}`)).body, { name: 'put-seg', description: 'D', constraints: [] })
})

t.test('PUT of a strategy type needs parameters, replaces them and keeps title and description', async (t) => {
  expectOk(await api(server, 'POST', '/api/admin/strategies', { name: 'put-type', title: 'T', description: 'D', parameters: [{ name: 'p', type: 'string', description: 'pd', required: true }] }), 'type')
  expectError(t, await api(server, 'PUT', '/api/admin/strategies/put-type', { name: 'put-type' }), { status: 400, message: /parameters/ }, 'no parameters')
  expectStatus(t, await api(server, 'PUT', '/api/admin/strategies/put-type', { name: 'put-type', parameters: [] }), 200, 'PUT')
  t.match((await api(server, 'GET', '/api/admin/strategies/put-type')).body, { name: 'put-type', title: 'T', description: 'D', parameters: [] })
})

t.test('PUT of a tag type keeps what it leaves out (Unleash 8.2 too)', async (t) => {
  expectOk(await api(server, 'POST', '/api/admin/tag-types', { name: 'put-tt', description: 'D', icon: 'I' }), 'tag type')
  expectStatus(t, await api(server, 'PUT', '/api/admin/tag-types/put-tt', { name: 'put-tt', description: 'D2' }), 200, 'PUT')
  t.match((await api(server, 'GET', '/api/admin/tag-types/put-tt')).body.tagType, { name: 'put-tt', description: 'D2', icon: 'I' })
})

t.test('frontend SDK metrics are recorded as client metrics: lastSeenAt is set and the application is listed', async (t) => {
  const F = 'fe-metrics'
  expectOk(await createFeature(server, P, F), 'flag')
  const token = expectOk(await createApiToken(server, { tokenName: 'browser', type: 'frontend', environment: 'development' }), 'token').body.secret
  const body = { appName: 'browser-app', instanceId: 'i1', bucket: { start: '2024-01-01T00:00:00.000Z', stop: '2024-01-01T00:01:00.000Z', toggles: { [F]: { yes: 1, no: 0, variants: {} } } } }
  // Unleash 8.2 answered 200 (with the unleash-sdk header a browser SDK sends).
  const res = await request(server, { method: 'POST', path: '/api/frontend/client/metrics', token, body, headers: { 'unleash-sdk': 'unleash-client-js:3.7.0' } })
  expectStatus(t, res, 200, 'metrics')
  const flag = (await getFeature(server, P, F)).body
  t.type(flag.environments.find((e: { name: string }) => e.name === 'development').lastSeenAt, 'string', "the flag's lastSeenAt in development")
  t.type(flag.lastSeenAt, 'string')
  const apps = (await api(server, 'GET', '/api/admin/metrics/applications')).body.applications as { appName: string }[]
  t.ok(apps.some((a) => a.appName === 'browser-app'), 'the browser application is listed')
})
