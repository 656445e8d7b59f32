import t from 'tap'
import {
  addStrategy,
  api,
  archiveFeature,
  createFeature,
  deleteStrategy,
  expectOk,
  getFeature,
  getFeatureEnvironment,
  getStrategy,
  listArchivedFeatures,
  listEvents,
  listStrategies,
  reviveFeature,
} from '../helpers/admin-api.js'
import { expectError, expectStatus } from '../helpers/expect.js'
import { startTestServer } from '../helpers/server.js'

// Admin behaviour a script notices (issue 24, part 2). Every expectation here was written from what
// Unleash 8.2 answered to the same requests, side by side; Unleash is not needed to run it.
const server = await startTestServer(t)
const P = 'default'
const strategies = (feature: string) => `/api/admin/projects/${P}/features/${feature}/environments/development/strategies`

const lastEventId = async (): Promise<number> => (await listEvents(server)).body.events[0]?.id ?? 0
const eventsSince = async (id: number) =>
  ((await listEvents(server)).body.events as { id: number; type: string; featureName?: string; data?: any; preData?: any }[]).filter((e) => e.id > id).reverse()

t.test('an archived flag is a 404 at its own path; its environment and strategy reads stay 200', async (t) => {
  const F = 'parity-archived'
  expectOk(await createFeature(server, P, F), 'flag')
  const strategy = expectOk(await addStrategy(server, P, F, 'development', { name: 'default' }), 'strategy').body
  expectStatus(t, await archiveFeature(server, P, F), 202, 'archive')
  // Unleash 8.2: 404 NotFoundError "Could not find feature flag with name parity-archived".
  expectError(t, await getFeature(server, P, F), { status: 404, name: 'NotFoundError', message: `Could not find feature flag with name ${F}` }, 'GET the flag')
  expectStatus(t, await getFeatureEnvironment(server, P, F, 'development'), 200, 'GET its environment')
  expectStatus(t, await listStrategies(server, P, F, 'development'), 200, 'GET its strategies')
  expectStatus(t, await getStrategy(server, P, F, 'development', strategy.id), 200, 'GET its strategy')
  expectStatus(t, await api(server, 'GET', `/api/admin/projects/${P}/features/${F}/environments/development/variants`), 200, 'GET its variants')
  t.ok((await listArchivedFeatures(server, P)).body.features.some((f: { name: string }) => f.name === F), 'the archive lists it')
  expectStatus(t, await reviveFeature(server, F), 200, 'revive')
  expectStatus(t, await getFeature(server, P, F), 200, 'revived, it is found again')
  // Left alone on purpose (ours is the better answer): reviving a flag that is not archived stays a 400.
  expectError(t, await reviveFeature(server, F), { status: 400 }, 'revive again')
})

t.test('strategy variants need weightType and a non-empty stickiness', async (t) => {
  const F = 'parity-variants'
  expectOk(await createFeature(server, P, F), 'flag')
  const withVariant = (variant: Record<string, unknown>) => ({ name: 'flexibleRollout', parameters: { rollout: '100' }, variants: [{ name: 'a', weight: 1000, ...variant }] })
  // Unleash 8.2: 400 BadDataError naming /body/variants/0/stickiness (missing) or "[0].stickiness" (empty).
  expectError(t, await api(server, 'POST', strategies(F), withVariant({ weightType: 'variable' })), { status: 400, name: 'BadDataError', message: /variants\.0\.stickiness/ }, 'no stickiness')
  expectError(t, await api(server, 'POST', strategies(F), withVariant({ weightType: 'variable', stickiness: '' })), { status: 400, name: 'BadDataError', message: /stickiness/ }, 'empty stickiness')
  expectError(t, await api(server, 'POST', strategies(F), withVariant({ stickiness: 'default' })), { status: 400, name: 'BadDataError', message: /variants\.0\.weightType/ }, 'no weightType')
  expectStatus(t, await api(server, 'POST', strategies(F), withVariant({ weightType: 'variable', stickiness: 'default' })), 200, 'both given')
})

t.test('a single-value constraint outside the legal values is a 400, like IN', async (t) => {
  const F = 'parity-legal'
  expectOk(await createFeature(server, P, F), 'flag')
  expectOk(await api(server, 'POST', '/api/admin/context', { name: 'parity-num', legalValues: [{ value: '1' }, { value: '2' }] }), 'field')
  const constraint = (c: Record<string, unknown>) => ({ name: 'default', constraints: [{ contextName: 'parity-num', ...c }] })
  // Unleash 8.2: 400 "3 is not specified as a legal value on this context field" (ours names the field too).
  expectError(t, await api(server, 'POST', strategies(F), constraint({ operator: 'NUM_EQ', value: '3' })), { status: 400, name: 'BadDataError', message: /"3" is not a legal value for the context field "parity-num"/ }, 'NUM_EQ 3')
  expectError(t, await api(server, 'POST', strategies(F), constraint({ operator: 'NUM_GT', value: '3' })), { status: 400 }, 'NUM_GT 3')
  expectError(t, await api(server, 'POST', strategies(F), constraint({ operator: 'IN', values: ['3'] })), { status: 400 }, 'IN [3]')
  // Unleash 8.2: 200; a single-value operator's `values` are not looked at.
  expectStatus(t, await api(server, 'POST', strategies(F), constraint({ operator: 'NUM_EQ', value: '1', values: ['3'] })), 200, 'NUM_EQ 1')
})

t.test('a context field a strategy constrains on cannot be deleted (409); unused, it can', async (t) => {
  const F = 'parity-ctx'
  expectOk(await createFeature(server, P, F), 'flag')
  expectOk(await api(server, 'POST', '/api/admin/context', { name: 'parity-used' }), 'field')
  const strategy = expectOk(await addStrategy(server, P, F, 'development', { name: 'default', constraints: [{ contextName: 'parity-used', operator: 'IN', values: ['x'] }] }), 'strategy').body
  expectError(
    t,
    await api(server, 'DELETE', '/api/admin/context/parity-used'),
    { status: 409, name: 'ConflictError', message: 'This context field is in use by existing flags. To delete it, first remove its usage from all flags.' },
    'in use',
  )
  t.equal((await api(server, 'GET', '/api/admin/context/parity-used')).status, 200, 'still there')
  expectOk(await deleteStrategy(server, P, F, 'development', strategy.id), 'drop the strategy')
  expectStatus(t, await api(server, 'DELETE', '/api/admin/context/parity-used'), 200, 'unused: deleted')
})

t.test('DELETE of an unknown strategy id is a 404', async (t) => {
  const F = 'parity-delete'
  expectOk(await createFeature(server, P, F), 'flag')
  const before = await lastEventId()
  // Unleash 8.2: 404 NotFoundError "Could not find strategy with id=no-such-id".
  expectError(t, await api(server, 'DELETE', `${strategies(F)}/no-such-id`), { status: 404, name: 'NotFoundError', message: /no-such-id/ }, 'unknown id')
  t.equal(await lastEventId(), before, 'nothing logged')
})

t.test('tags: a second feature-tagged for a tag the flag has, bulk changes in Unleash order, a tag outlives its last flag', async (t) => {
  for (const name of ['parity-t1', 'parity-t2']) expectOk(await createFeature(server, P, name), name)
  const tag = (value: string) => ({ type: 'simple', value })
  const before = await lastEventId()
  expectStatus(t, await api(server, 'POST', '/api/admin/features/parity-t1/tags', tag('parity-old')), 201, 'tag')
  expectStatus(t, await api(server, 'POST', '/api/admin/features/parity-t1/tags', tag('parity-old')), 201, 'tag again')
  const bulk = { features: ['parity-t1', 'parity-t2'], tags: { addedTags: [tag('parity-new')], removedTags: [tag('parity-old')] } }
  expectStatus(t, await api(server, 'PUT', `/api/admin/projects/${P}/tags`, bulk), 200, 'bulk')
  // Unleash 8.2 logged exactly this, oldest first.
  t.same(
    (await eventsSince(before)).map((e) => [e.type, e.featureName ?? null, (e.data ?? e.preData).value]),
    [
      ['tag-created', null, 'parity-old'],
      ['feature-tagged', 'parity-t1', 'parity-old'],
      ['feature-tagged', 'parity-t1', 'parity-old'],
      ['tag-created', null, 'parity-new'],
      ['feature-tagged', 'parity-t1', 'parity-new'],
      ['feature-tagged', 'parity-t2', 'parity-new'],
      ['feature-untagged', 'parity-t1', 'parity-old'],
      ['feature-untagged', 'parity-t2', 'parity-old'],
    ],
  )
  const listed = (await api(server, 'GET', '/api/admin/tags')).body.tags as { type: string; value: string }[]
  t.ok(listed.some((x) => x.value === 'parity-old'), 'GET /api/admin/tags keeps a value no flag carries any more')
  const again = await lastEventId()
  expectStatus(t, await api(server, 'POST', '/api/admin/features/parity-t2/tags', tag('parity-old')), 201, 'tag with it again')
  t.same((await eventsSince(again)).map((e) => e.type), ['feature-tagged'], 'it is not created a second time')
})

// The new event shapes replay to the same state: a child server killed without its snapshots is started
// again from the log alone.
t.test('replaying the log alone gives the same flags, tags and context fields', async (t) => {
  const child = await startTestServer(t, { mode: 'child' })
  expectOk(await createFeature(child, P, { name: 'replayed', type: 'experiment', description: 'd' }), 'flag')
  expectOk(await api(child, 'PUT', `/api/admin/projects/${P}/features/replayed`, { name: 'replayed', stale: true }), 'PUT with stale')
  expectOk(await api(child, 'POST', '/api/admin/features/replayed/tags', { type: 'simple', value: 'kept' }), 'tag')
  expectOk(await api(child, 'POST', '/api/admin/features/replayed/tags', { type: 'simple', value: 'kept' }), 'tag again')
  expectOk(await api(child, 'PUT', '/api/admin/features/replayed/tags', { addedTags: [], removedTags: [{ type: 'simple', value: 'kept' }] }), 'untag')
  expectOk(await api(child, 'POST', '/api/admin/context', { name: 'replayed-ctx', description: 'd', stickiness: true }), 'field')
  expectOk(await api(child, 'PUT', '/api/admin/context/replayed-ctx', { name: 'replayed-ctx' }), 'PUT field')
  const read = async (s: typeof child) => ({
    tags: (await api(s, 'GET', '/api/admin/tags')).body,
    flag: (await getFeature(s, P, 'replayed')).body,
    context: (await api(s, 'GET', '/api/admin/context/replayed-ctx')).body,
  })
  const before = await read(child)
  t.match(before.flag, { stale: true, type: 'release', description: null, tags: [] })
  t.ok(before.tags.tags.some((x: { value: string }) => x.value === 'kept'))
  await child.kill()
  const again = await startTestServer(t, { dataDir: child.dataDir, adminToken: child.adminToken })
  t.same(await read(again), before)
})
