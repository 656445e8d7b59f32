import t from 'tap'
import {
  api,
  archiveFeature,
  clientToken,
  createEnabledFeature,
  createFeature,
  createProject,
  disableFeature,
  enableFeature,
  expectOk,
  getClientFeature,
  getFeature,
  listEvents,
} from '../helpers/admin-api.js'
import { expectError, expectStatus } from '../helpers/expect.js'
import { startSdk, untilChanged } from '../helpers/sdk.js'
import { startTestServer } from '../helpers/server.js'

// Flag dependencies (SEMANTICS 4, INTERFACE 2.9/2.10/4.15).
const server = await startTestServer(t)
const P = 'deps'
const Q = 'deps-other'
expectOk(await createProject(server, { id: P, name: 'Dependencies' }), 'create project')
expectOk(await createProject(server, { id: Q, name: 'Other' }), 'create other project')
const token = await clientToken(server, [P])

const deps = (child: string) => `/api/admin/projects/${P}/features/${child}/dependencies`
const addDependency = (child: string, body: Record<string, unknown>) => api(server, 'POST', deps(child), body)
const eventsFor = async (type: string, feature: string) =>
  ((await listEvents(server)).body.events as any[]).filter((e) => e.type === type && e.featureName === feature)

t.test('add, read back, remove, remove all', async (t) => {
  for (const name of ['d-parent', 'd-child', 'd-parent2']) expectOk(await createFeature(server, P, name), name)
  const added = await addDependency('d-child', { feature: 'd-parent' })
  expectStatus(t, added, 200, 'add')

  const child = (await getFeature(server, P, 'd-child')).body
  t.same(child.dependencies, [{ feature: 'd-parent', enabled: true, variants: [] }], 'dependencies on the admin flag')
  t.same(child.children, [], 'the child has no children')
  const parent = (await getFeature(server, P, 'd-parent')).body
  t.same(parent.children, ['d-child'], 'children on the parent')
  t.same(parent.dependencies, [], 'the parent has no dependencies')
  const [addedEvent] = await eventsFor('feature-dependency-added', 'd-child')
  t.match(addedEvent, { project: P, featureName: 'd-child', data: { feature: 'd-parent', enabled: true } }, 'feature-dependency-added')

  // One parent per child: adding another replaces it.
  expectStatus(t, await addDependency('d-child', { feature: 'd-parent2', enabled: true, variants: ['v1'] }), 200, 'add another parent')
  t.same((await getFeature(server, P, 'd-child')).body.dependencies, [{ feature: 'd-parent2', enabled: true, variants: ['v1'] }], 'replaced')
  t.same((await getFeature(server, P, 'd-parent')).body.children, [], 'the old parent lost its child')

  expectStatus(t, await api(server, 'DELETE', `${deps('d-child')}/d-parent2`), 200, 'remove one')
  t.same((await getFeature(server, P, 'd-child')).body.dependencies, [], 'gone')
  t.match((await eventsFor('feature-dependency-removed', 'd-child'))[0], { data: { feature: 'd-parent2' } }, 'feature-dependency-removed')
  expectStatus(t, await api(server, 'DELETE', `${deps('d-child')}/d-parent2`), 200, 'removing again is a no-op')

  expectOk(await addDependency('d-child', { feature: 'd-parent' }), 'add back')
  expectStatus(t, await api(server, 'DELETE', deps('d-child')), 200, 'remove all')
  t.same((await getFeature(server, P, 'd-child')).body.dependencies, [], 'none left')
  t.equal((await eventsFor('feature-dependencies-removed', 'd-child')).length, 1, 'feature-dependencies-removed')
})

t.test('the rules', async (t) => {
  for (const name of ['r-parent', 'r-child', 'r-grandchild', 'r-other', 'r-archived']) expectOk(await createFeature(server, P, name), name)
  expectOk(await createFeature(server, Q, 'r-foreign'), 'foreign')
  expectOk(await addDependency('r-child', { feature: 'r-parent' }), 'r-child → r-parent')
  expectOk(await archiveFeature(server, P, 'r-archived'), 'archive')

  expectError(t, await addDependency('r-other', { feature: 'r-other' }), { status: 403, name: 'InvalidOperationError', message: 'A feature flag cannot depend on itself.' }, 'self')
  expectError(
    t,
    await addDependency('r-grandchild', { feature: 'r-child' }),
    { status: 403, message: 'Transitive dependency detected. Cannot add a dependency to the feature that has parent dependency.' },
    'the parent has a parent',
  )
  expectError(
    t,
    await addDependency('r-parent', { feature: 'r-other' }),
    { status: 403, message: 'Transitive dependency detected. Cannot add a dependency to the feature that other features depend on.' },
    'the child has children',
  )
  expectError(t, await addDependency('r-other', { feature: 'r-foreign' }), { status: 403, message: 'Parent and child features should be in the same project' }, 'other project')
  expectError(t, await addDependency('r-other', { feature: 'r-missing' }), { status: 403, message: 'No active feature r-missing exists' }, 'missing parent')
  expectError(t, await addDependency('r-other', { feature: 'r-archived' }), { status: 403, message: 'No active feature r-archived exists' }, 'archived parent')
  expectError(t, await addDependency('r-other', {}), { status: 400, message: /feature/ }, 'no parent named')
  expectError(t, await addDependency('r-other', { feature: 'r-parent', enabled: 'yes' }), { status: 400, message: /enabled/ }, 'enabled not a boolean')
  expectError(t, await api(server, 'POST', `/api/admin/projects/${P}/features/r-none/dependencies`, { feature: 'r-parent' }), { status: 404 }, 'unknown child')
  t.same((await getFeature(server, P, 'r-other')).body.dependencies, [], 'nothing was stored')

  expectError(
    t,
    await archiveFeature(server, P, 'r-parent'),
    { status: 403, message: 'You can not archive/delete this feature since other features depend on it.' },
    'archiving a parent with children',
  )
  expectError(
    t,
    await api(server, 'POST', `/api/admin/projects/${P}/archive`, { features: ['r-parent'] }),
    { status: 403, message: /depend on it/ },
    'bulk archive of a parent with children',
  )
  t.equal((await getFeature(server, P, 'r-parent')).body.archived, false, 'still active')
  expectStatus(t, await archiveFeature(server, P, 'r-child'), 202, 'archive the child')
  expectStatus(t, await archiveFeature(server, P, 'r-parent'), 202, 'then the parent')
})

t.test('parent-variants lists strategy and environment variants, sorted and unique', async (t) => {
  await createEnabledFeature(server, P, 'pv-parent', 'development', {
    name: 'flexibleRollout',
    parameters: { rollout: '100', stickiness: 'default', groupId: 'pv' },
    variants: [
      { name: 'zeta', weight: 500, weightType: 'variable', stickiness: 'default' },
      { name: 'alpha', weight: 500, weightType: 'variable', stickiness: 'default' },
    ],
  })
  expectOk(await api(server, 'PUT', `/api/admin/projects/${P}/features/pv-parent/environments/production/variants`, [
    { name: 'alpha', weight: 0 },
    { name: 'mid', weight: 0 },
  ]), 'env variants')
  const res = await api(server, 'GET', `/api/admin/projects/${P}/features/pv-parent/parent-variants`)
  expectStatus(t, res, 200, 'parent-variants')
  t.same(res.body, ['alpha', 'mid', 'zeta'])
  expectOk(await createFeature(server, P, 'pv-none'), 'no variants')
  t.same((await api(server, 'GET', `/api/admin/projects/${P}/features/pv-none/parent-variants`)).body, [], 'empty')
  const missing = await api(server, 'GET', `/api/admin/projects/${P}/features/pv-missing/parent-variants`)
  t.same([missing.status, missing.body], [200, []], 'an unknown flag has no variants: 200 [], as Unleash (its flag page asks before it knows of a parent)')
  expectError(t, await api(server, 'GET', '/api/admin/projects/no-such-project/features/pv-parent/parent-variants'), { status: 404 }, 'unknown project')
  expectError(t, await api(server, 'GET', `/api/admin/projects/${P}/features/pv-parent/parent-variants`, undefined, null), { status: 401 }, 'no token')
})

t.test('dependencies on the client flag', async (t) => {
  for (const name of ['c-parent', 'c-child-on', 'c-child-off']) await createEnabledFeature(server, P, name)
  expectOk(await addDependency('c-child-on', { feature: 'c-parent', variants: ['alpha', 'beta'] }), 'with variants')
  expectOk(await addDependency('c-child-off', { feature: 'c-parent', enabled: false, variants: ['alpha'] }), 'enabled:false with variants')
  const on = await getClientFeature(server, token, 'c-child-on')
  t.same(on.body.dependencies, [{ feature: 'c-parent', enabled: true, variants: ['alpha', 'beta'] }], 'enabled with variants')
  const off = await getClientFeature(server, token, 'c-child-off')
  t.same(off.body.dependencies, [{ feature: 'c-parent', enabled: false }], 'enabled:false drops the variants')
  t.same((await getFeature(server, P, 'c-child-off')).body.dependencies, [{ feature: 'c-parent', enabled: false, variants: [] }], 'also in storage')
  const parent = await getClientFeature(server, token, 'c-parent')
  t.notOk('dependencies' in parent.body, 'no dependencies field when there are none')
})

t.test('the SDK evaluates a child false while its parent is off', async (t) => {
  await createEnabledFeature(server, P, 's-parent')
  await createEnabledFeature(server, P, 's-child')
  await createEnabledFeature(server, P, 's-not-child')
  expectOk(await addDependency('s-child', { feature: 's-parent' }), 'dependency')
  expectOk(await addDependency('s-not-child', { feature: 's-parent', enabled: false }), 'negative dependency')
  expectOk(await disableFeature(server, P, 's-parent', 'development'), 'parent off')
  const sdk = await startSdk(t, server.baseUrl, token)
  t.equal(sdk.isEnabled('s-parent'), false, 'parent off')
  t.equal(sdk.isEnabled('s-child'), false, 'the child is off because of its parent')
  t.equal(sdk.isEnabled('s-not-child'), true, 'enabled:false holds while the parent is off')
  t.match(sdk.getVariant('s-child'), { name: 'disabled', enabled: false }, 'disabled variant')
  const changed = untilChanged(sdk, () => sdk.isEnabled('s-child'))
  expectOk(await enableFeature(server, P, 's-parent', 'development'), 'parent on')
  await changed
  t.equal(sdk.isEnabled('s-child'), true, 'the child follows its parent')
  t.equal(sdk.isEnabled('s-not-child'), false, 'and the negative dependency flips')
})
