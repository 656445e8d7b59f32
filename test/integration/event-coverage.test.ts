import t from 'tap'
import { eventTypes, type EventType } from '../../src/domain/events.js'
import { api, type ApiResult } from '../helpers/admin-api.js'
import { fakeClock, startClockedServer } from '../helpers/clocked-server.js'
import { eventually } from '../helpers/expect.js'

// Drives the admin API route by route, reads GET /api/admin/events after each, and maps every event
// type of INTERFACE section 6 to the route that emitted it. Every route must answer and emit what it is
// listed with; the types no route here emits are named at the end, so a new one is noticed.

const clock = fakeClock(new Date().toISOString())
const server = await startClockedServer(t, { clock, env: { POTENTIALLY_STALE_CHECK_MS: '30' } })
const P = 'cov'
const F = 'cov-flag'
const fp = (feature = F) => `/api/admin/projects/${P}/features/${feature}`
const call = (method: string, path: string, body?: unknown) => api(server, method, path, body)
const ok = async (res: Promise<ApiResult>) => {
  const r = await res
  if (r.status >= 300) throw new Error(`${r.status} ${r.text.slice(0, 300)}`)
  return r
}

interface Driver {
  route: string
  expect: EventType[]
  run: () => Promise<unknown>
}

const ids: Record<string, unknown> = {}
const required = (route: string, expect: EventType[], run: () => Promise<unknown>): Driver => ({ route, expect, run })

const drivers: Driver[] = [
  required('POST /api/admin/projects', ['project-created'], () => ok(call('POST', '/api/admin/projects', { id: P, name: 'Coverage' }))),
  required('PUT /api/admin/projects/:projectId', ['project-updated'], () => ok(call('PUT', `/api/admin/projects/${P}`, { name: 'Coverage 2' }))),
  required('POST /api/admin/environments', ['environment-created'], () => ok(call('POST', '/api/admin/environments', { name: 'cov-env', type: 'test' }))),
  required('PUT /api/admin/environments/update/:name', ['environment-updated'], () => ok(call('PUT', '/api/admin/environments/update/cov-env', { type: 'staging' }))),
  required('POST /api/admin/projects/:projectId/environments', ['project-environment-added'], () => ok(call('POST', `/api/admin/projects/${P}/environments`, { environment: 'cov-env' }))),
  required('POST .../environments/:environment/default-strategy', ['default-strategy-updated'], () =>
    ok(call('POST', `/api/admin/projects/${P}/environments/cov-env/default-strategy`, { name: 'flexibleRollout', parameters: { rollout: '50' } })),
  ),
  required('DELETE /api/admin/projects/:projectId/environments/:environment', ['project-environment-removed'], () => ok(call('DELETE', `/api/admin/projects/${P}/environments/cov-env`))),
  required('POST /api/admin/projects/:projectId/features', ['feature-created'], () => ok(call('POST', `/api/admin/projects/${P}/features`, { name: F }))),
  required('PUT /api/admin/projects/:projectId/features/:featureName', ['feature-metadata-updated'], () => ok(call('PUT', fp(), { description: 'covered' }))),
  required('PATCH /api/admin/projects/:projectId/features/:featureName', ['feature-stale-on'], () => ok(call('PATCH', fp(), [{ op: 'replace', path: '/stale', value: true }]))),
  required('POST /api/admin/projects/:projectId/stale', ['feature-stale-off'], () => ok(call('POST', `/api/admin/projects/${P}/stale`, { features: [F], stale: false }))),
  required('POST .../environments/:environment/on', ['feature-strategy-add', 'feature-environment-enabled'], () => ok(call('POST', `${fp()}/environments/development/on`))),
  required('POST .../environments/:environment/strategies', ['feature-strategy-add'], async () => {
    ids.strategy = (await ok(call('POST', `${fp()}/environments/development/strategies`, { name: 'default' }))).body.id
  }),
  required('PUT .../strategies/:strategyId', ['feature-strategy-update'], () => ok(call('PUT', `${fp()}/environments/development/strategies/${ids.strategy}`, { name: 'default', title: 'covered' }))),
  required('POST .../strategies/set-sort-order', ['strategy-order-changed'], async () => {
    const strategies = (await call('GET', `${fp()}/environments/development/strategies`)).body as { id: string }[]
    return ok(call('POST', `${fp()}/environments/development/strategies/set-sort-order`, strategies.map((s, i) => ({ id: s.id, sortOrder: strategies.length - i }))))
  }),
  required('DELETE .../strategies/:strategyId', ['feature-strategy-remove'], () => ok(call('DELETE', `${fp()}/environments/development/strategies/${ids.strategy}`))),
  required('POST .../environments/:environment/off', ['feature-environment-disabled'], () => ok(call('POST', `${fp()}/environments/development/off`))),
  required('PUT .../environments/:environment/variants', ['feature-environment-variants-updated'], () =>
    ok(call('PUT', `${fp()}/variants-batch`, { variants: [{ name: 'a', weight: 1000 }], environments: ['development'] })),
  ),
  required('PUT .../features/:featureName/variants (legacy)', ['feature-variants-updated'], () => ok(call('PUT', `${fp()}/variants`, [{ name: 'b', weight: 1000 }]))),
  required('POST /api/admin/projects/:projectId/features (parent)', ['feature-created'], () => ok(call('POST', `/api/admin/projects/${P}/features`, { name: 'cov-parent' }))),
  required('POST .../features/:featureName/dependencies', ['feature-dependency-added'], () => ok(call('POST', `${fp()}/dependencies`, { feature: 'cov-parent' }))),
  required('DELETE .../features/:featureName/dependencies/:parent', ['feature-dependency-removed'], () => ok(call('DELETE', `${fp()}/dependencies/cov-parent`))),
  required('DELETE .../features/:featureName/dependencies', ['feature-dependencies-removed'], async () => {
    await ok(call('POST', `${fp()}/dependencies`, { feature: 'cov-parent' }))
    return ok(call('DELETE', `${fp()}/dependencies`))
  }),
  required('POST /api/admin/tag-types', ['tag-type-created'], () => ok(call('POST', '/api/admin/tag-types', { name: 'cov-type' }))),
  required('PUT /api/admin/tag-types/:name', ['tag-type-updated'], () => ok(call('PUT', '/api/admin/tag-types/cov-type', { description: 'covered' }))),
  required('POST /api/admin/features/:featureName/tags', ['tag-created', 'feature-tagged'], () => ok(call('POST', `/api/admin/features/${F}/tags`, { type: 'cov-type', value: 'cov-value' }))),
  required('DELETE /api/admin/features/:featureName/tags/:type/:value', ['feature-untagged'], () => ok(call('DELETE', `/api/admin/features/${F}/tags/cov-type/cov-value`))),
  required('DELETE /api/admin/tag-types/:name', ['tag-type-deleted'], () => ok(call('DELETE', '/api/admin/tag-types/cov-type'))),
  required('POST .../features/:featureName/favorites', ['feature-favorited'], () => ok(call('POST', `${fp()}/favorites`))),
  required('DELETE .../features/:featureName/favorites', ['feature-unfavorited'], () => ok(call('DELETE', `${fp()}/favorites`))),
  required('POST /api/admin/projects/:projectId/favorites', ['project-favorited'], () => ok(call('POST', `/api/admin/projects/${P}/favorites`))),
  required('DELETE /api/admin/projects/:projectId/favorites', ['project-unfavorited'], () => ok(call('DELETE', `/api/admin/projects/${P}/favorites`))),
  required('POST .../lifecycle/complete', ['feature-completed'], () => ok(call('POST', `${fp()}/lifecycle/complete`, { status: 'kept' }))),
  required('POST .../lifecycle/uncomplete', ['feature-uncompleted'], () => ok(call('POST', `${fp()}/lifecycle/uncomplete`))),
  required('PUT /api/admin/feature-types/:id/lifetime', ['feature-type-updated'], () => ok(call('PUT', '/api/admin/feature-types/permission/lifetime', { lifetimeDays: 30 }))),
  required('POST /api/admin/features-batch/export', ['features-exported'], () => ok(call('POST', '/api/admin/features-batch/export', { features: [F], environment: 'development' }))),
  required('POST /api/admin/features-batch/import', ['features-imported', 'feature-created'], async () => {
    const data = (await ok(call('POST', '/api/admin/features-batch/export', { features: [F], environment: 'development' }))).body
    const renamed = JSON.parse(JSON.stringify(data).replaceAll(`"${F}"`, '"cov-imported"'))
    return ok(call('POST', '/api/admin/features-batch/import', { project: P, environment: 'development', data: renamed }))
  }),
  required('DELETE /api/admin/projects/:projectId/features/:featureName', ['feature-archived'], () => ok(call('DELETE', fp('cov-imported')))),
  required('POST /api/admin/archive/revive/:featureName', ['feature-revived'], () => ok(call('POST', '/api/admin/archive/revive/cov-imported'))),
  required('DELETE /api/admin/archive/:featureName', ['feature-deleted'], async () => {
    await ok(call('DELETE', fp('cov-imported')))
    return ok(call('DELETE', '/api/admin/archive/cov-imported'))
  }),
  required('POST /api/admin/strategies', ['strategy-created'], () => ok(call('POST', '/api/admin/strategies', { name: 'covStrategy', parameters: [] }))),
  required('PUT /api/admin/strategies/:name', ['strategy-updated'], () => ok(call('PUT', '/api/admin/strategies/covStrategy', { name: 'covStrategy', description: 'covered', parameters: [] }))),
  required('POST /api/admin/strategies/:name/deprecate', ['strategy-deprecated'], () => ok(call('POST', '/api/admin/strategies/covStrategy/deprecate'))),
  required('POST /api/admin/strategies/:name/reactivate', ['strategy-reactivated'], () => ok(call('POST', '/api/admin/strategies/covStrategy/reactivate'))),
  required('DELETE /api/admin/strategies/:name', ['strategy-deleted'], () => ok(call('DELETE', '/api/admin/strategies/covStrategy'))),
  required('POST /api/admin/context', ['context-field-created'], () => ok(call('POST', '/api/admin/context', { name: 'covField' }))),
  required('PUT /api/admin/context/:name', ['context-field-updated'], () => ok(call('PUT', '/api/admin/context/covField', { description: 'covered' }))),
  required('DELETE /api/admin/context/:name', ['context-field-deleted'], () => ok(call('DELETE', '/api/admin/context/covField'))),
  required('POST /api/admin/segments', ['segment-created'], async () => {
    ids.segment = (await ok(call('POST', '/api/admin/segments', { name: 'cov-segment', constraints: [] }))).body.id
  }),
  required('PUT /api/admin/segments/:id', ['segment-updated'], () => ok(call('PUT', `/api/admin/segments/${ids.segment}`, { name: 'cov-segment', description: 'covered', constraints: [] }))),
  required('DELETE /api/admin/segments/:id', ['segment-deleted'], () => ok(call('DELETE', `/api/admin/segments/${ids.segment}`))),
  required('POST /api/admin/api-tokens', ['api-token-created'], async () => {
    ids.token = (await ok(call('POST', '/api/admin/api-tokens', { tokenName: 'cov', type: 'client', environment: 'development' }))).body.secret
  }),
  required('PUT /api/admin/api-tokens/:token', ['api-token-updated'], () => ok(call('PUT', `/api/admin/api-tokens/${ids.token}`, { expiresAt: '2999-01-01T00:00:00.000Z' }))),
  required('DELETE /api/admin/api-tokens/:token', ['api-token-deleted'], () => ok(call('DELETE', `/api/admin/api-tokens/${ids.token}`))),
  required('POST /api/admin/user-admin', ['user-created'], async () => {
    ids.user = (await ok(call('POST', '/api/admin/user-admin', { email: 'cov@example.com', name: 'Cov', rootRole: 3 }))).body.id
  }),
  required('PUT /api/admin/user-admin/:id', ['user-updated'], () => ok(call('PUT', `/api/admin/user-admin/${ids.user}`, { name: 'Cov 2' }))),
  required('POST /api/admin/projects/:projectId/access', ['project-access-added'], () => ok(call('POST', `/api/admin/projects/${P}/access`, { roles: [5], users: [ids.user], groups: [] }))),
  required('PUT /api/admin/projects/:projectId/users/:userId/roles', ['project-access-user-roles-updated'], () => ok(call('PUT', `/api/admin/projects/${P}/users/${ids.user}/roles`, { roles: [4] }))),
  required('DELETE /api/admin/projects/:projectId/users/:userId/roles', ['project-access-user-roles-deleted'], () => ok(call('DELETE', `/api/admin/projects/${P}/users/${ids.user}/roles`))),
  required('DELETE /api/admin/user-admin/:id', ['user-deleted'], () => ok(call('DELETE', `/api/admin/user-admin/${ids.user}`))),
  required('POST /api/admin/roles', ['role-created'], async () => {
    ids.role = (await ok(call('POST', '/api/admin/roles', { name: 'cov-role', type: 'custom', permissions: [] }))).body.id
  }),
  required('PUT /api/admin/roles/:id', ['role-updated'], () => ok(call('PUT', `/api/admin/roles/${ids.role}`, { name: 'cov-role', type: 'custom', description: 'covered', permissions: [] }))),
  required('DELETE /api/admin/roles/:id', ['role-deleted'], () => ok(call('DELETE', `/api/admin/roles/${ids.role}`))),
  required('POST /api/admin/groups', ['group-created'], async () => {
    ids.group = (await ok(call('POST', '/api/admin/groups', { name: 'cov-group', users: [] }))).body.id
  }),
  required('PUT /api/admin/groups/:id', ['group-updated'], () => ok(call('PUT', `/api/admin/groups/${ids.group}`, { name: 'cov-group', description: 'covered', users: [] }))),
  required('DELETE /api/admin/groups/:id', ['group-deleted'], () => ok(call('DELETE', `/api/admin/groups/${ids.group}`))),
  required('POST /api/admin/service-account', ['service-account-created'], async () => {
    ids.serviceAccount = (await ok(call('POST', '/api/admin/service-account', { name: 'cov-sa', username: 'cov-sa', rootRole: 3 }))).body.id
  }),
  required('POST /api/admin/service-account/:id/token', ['pat-created'], () =>
    ok(call('POST', `/api/admin/service-account/${ids.serviceAccount}/token`, { description: 'cov', expiresAt: '2999-01-01T00:00:00.000Z' })),
  ),
  required('PUT /api/admin/service-account/:id', ['service-account-updated'], () => ok(call('PUT', `/api/admin/service-account/${ids.serviceAccount}`, { name: 'cov-sa-2', rootRole: 3 }))),
  required('DELETE /api/admin/service-account/:id', ['service-account-deleted'], () => ok(call('DELETE', `/api/admin/service-account/${ids.serviceAccount}`))),
  required('POST /api/admin/invite-link/tokens', ['public-signup-token-created'], async () => {
    ids.signup = (await ok(call('POST', '/api/admin/invite-link/tokens', { name: 'cov', expiresAt: new Date(clock.now().getTime() + 86_400_000).toISOString() }))).body.secret
  }),
  required('PUT /api/admin/invite-link/tokens/:token', ['public-signup-token-updated'], () => ok(call('PUT', `/api/admin/invite-link/tokens/${ids.signup}`, { enabled: false }))),
  required('PUT .../environments/:environment/change-requests/config', ['change-request-configuration-updated'], () =>
    ok(call('PUT', `/api/admin/projects/${P}/environments/production/change-requests/config`, { changeRequestsEnabled: true, requiredApprovals: 1 })),
  ),
  required('DELETE /api/admin/projects/:projectId', ['project-deleted'], async () => {
    await ok(call('POST', '/api/admin/projects', { id: 'cov-doomed', name: 'Doomed' }))
    return ok(call('DELETE', '/api/admin/projects/cov-doomed'))
  }),
  required('(job) potentially-stale check', ['feature-potentially-stale-on'], async () => {
    clock.advanceDays(41)
    return eventually(async () => (await call('GET', fp())).body.potentiallyStale === true)
  }),
]

const emittedBy = new Map<string, Set<string>>()
const totalEvents = async () => (await call('GET', '/api/admin/events')).body.totalEvents as number

await t.test('each route emits its event types', async (t) => {
for (const driver of drivers) {
  const before = await totalEvents()
  let failure: unknown
  await driver.run().catch((error: unknown) => {
    failure = error
  })
  const after = await totalEvents()
  const latest = after > before ? ((await call('GET', '/api/admin/events')).body.events as { type: string }[]).slice(0, after - before) : []
  const types = new Set(latest.map((e) => e.type))
  for (const type of types) emittedBy.set(type, (emittedBy.get(type) ?? new Set()).add(driver.route))
  t.notOk(failure, `${driver.route} answers (${failure ?? ''})`)
  for (const type of driver.expect) t.ok(types.has(type), `${driver.route} emits ${type}`)
}
})

t.test('every emitted type is one of INTERFACE section 6', async (t) => {
  for (const type of emittedBy.keys()) t.ok((eventTypes as readonly string[]).includes(type), type)
})

const notDrivenHere = [
  'application-created',
  'feature-updated',
  'feature-project-change',
  'feature-import',
  'feature-tag-import',
  'drop-feature-tags',
  'drop-features',
  'strategy-import',
  'drop-strategies',
  'project-access-group-roles-updated',
  'project-access-group-roles-deleted',
  'project-access-updated',
  'project-import',
  'project-user-added',
  'project-user-removed',
  'project-user-role-changed',
  'project-group-role-changed',
  'project-group-added',
  'project-group-removed',
  'drop-projects',
  'tag-deleted',
  'tag-import',
  'drop-tags',
  'tag-type-import',
  'drop-tag-types',
  'addon-config-created',
  'addon-config-updated',
  'addon-config-deleted',
  'db-pool-update',
  'drop-environments',
  'environment-import',
  'environment-deleted',
  'group-user-added',
  'group-user-removed',
  'setting-created',
  'setting-updated',
  'setting-deleted',
  'client-metrics',
  'client-register',
  'pat-deleted',
  'public-signup-token-user-added',
  'change-request-created',
  'change-request-discarded',
  'change-added',
  'change-discarded',
  'change-edited',
  'change-request-rejected',
  'change-request-approved',
  'change-request-approval-added',
  'change-request-cancelled',
  'change-request-sent-to-review',
  'change-request-schedule-suspended',
  'change-request-applied',
  'change-request-scheduled',
  'change-request-scheduled-application-success',
  'change-request-scheduled-application-failure',
  'banner-created',
  'banner-updated',
  'banner-deleted',
  'segment-import',
  'signal-endpoint-created',
  'signal-endpoint-updated',
  'signal-endpoint-deleted',
  'signal-endpoint-token-created',
  'signal-endpoint-token-updated',
  'signal-endpoint-token-deleted',
  'actions-created',
  'actions-updated',
  'actions-deleted',
]

t.test('the event types no route here emits are exactly the known ones', async (t) => {
  const lines = eventTypes.filter((type) => emittedBy.has(type)).map((type) => `${type} <- ${[...emittedBy.get(type)!].join(' | ')}`)
  t.comment(`event types emitted (${lines.length} of ${eventTypes.length}):\n${lines.join('\n')}`)
  const missing = eventTypes.filter((type) => !emittedBy.has(type))
  // Emitted by routes this walk does not drive (change requests, moves, imports: their own tests),
  // or by nothing here (Enterprise areas, Unleash's database imports). A route that starts or stops
  // emitting one of these changes the list.
  t.same(missing, notDrivenHere)
})
