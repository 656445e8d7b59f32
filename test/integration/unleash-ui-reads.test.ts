import t from 'tap'
import { api, createApiToken, createFeature, createProject, enableFeature, expectOk } from '../helpers/admin-api.js'
import { expectError } from '../helpers/expect.js'
import { callAs, createPerson, grantProjectRoles, startPeopleServer, type Caller } from '../helpers/people.js'

// The reads only Unleash's own admin UI makes (its dashboard, project page, flag page and playground),
// answered from this server's state in the shapes that UI reads.

const server = await startPeopleServer(t, { env: { LOG_LEVEL: 'error' } })
const P = 'ui-reads'
expectOk(await createProject(server, { id: P, name: 'UI reads' }), 'create project')
const dana = await createPerson(server, { username: 'dana', rootRole: 'Editor', name: 'Dana Scully' })
const as = (caller: Caller, method: string, path: string, body?: unknown) => callAs(server, caller, method, path, body)
const clientToken = async (projects: string[]) => {
  const created = await createApiToken(server, { tokenName: `sdk-${projects.join('-')}`, type: 'client', environment: 'development', projects })
  expectOk(created, 'a client token')
  return created.body.secret as string
}

t.test('GET /api/admin/ui-config answers as Unleash OSS, with this server\'s URL, limits and the UI flags it supports', async (t) => {
  const res = await api(server, 'GET', '/api/admin/ui-config')
  t.equal(res.status, 200)
  t.match(res.body, { environment: 'Open Source', baseUriPath: '', unleashUrl: server.baseUrl, authenticationType: 'open-source', versionInfo: { current: { enterprise: '' } } })
  t.match(res.body.flags, { enableLegacyVariants: true, regexConstraintOperator: true, semverGteConstraintOperators: true })
  t.match(res.body.resourceLimits, { featureFlags: 5000, segments: 300, strategySegments: 5 })
  expectError(t, await api(server, 'GET', '/api/admin/ui-config', undefined, null), { status: 401 }, 'no credentials')
  expectError(t, await api(server, 'GET', '/api/admin/ui-config', undefined, await clientToken(['*'])), { status: 403 }, 'a client token')
})

t.test('the project overview says how far the project is in onboarding, and has no link templates', async (t) => {
  expectOk(await createProject(server, { id: 'onboarding', name: 'Onboarding' }), 'create project')
  const overview = () => api(server, 'GET', '/api/admin/projects/onboarding/overview')
  t.same((await overview()).body.onboardingStatus, { status: 'onboarding-started' }, 'no flag yet')
  t.same((await overview()).body.linkTemplates, [])
  expectOk(await createFeature(server, 'onboarding', 'first-one'), 'create flag')
  expectOk(await createFeature(server, 'onboarding', 'second-one'), 'create flag')
  t.same((await overview()).body.onboardingStatus, { status: 'first-flag-created', feature: 'first-one' })
  const sdk = await clientToken(['onboarding'])
  const now = new Date().toISOString()
  t.equal((await api(server, 'POST', '/api/client/metrics', { appName: 'web', bucket: { start: now, stop: now, toggles: { 'second-one': { yes: 1, no: 0 } } } }, sdk)).status, 202)
  t.same((await overview()).body.onboardingStatus, { status: 'onboarded' }, 'an SDK reported one of its flags')
})

t.test('GET .../client-metrics/features/:name counts the last hour per environment; .../raw every hour per application', async (t) => {
  expectOk(await createFeature(server, P, 'counted'), 'create flag')
  const sdk = await clientToken([P])
  const now = new Date().toISOString()
  const post = (appName: string, yes: number, no: number) =>
    api(server, 'POST', '/api/client/metrics', { appName, bucket: { start: now, stop: now, toggles: { counted: { yes, no, variants: { blue: yes } } } } }, sdk)
  t.equal((await post('web', 3, 1)).status, 202)
  t.equal((await post('web', 1, 0)).status, 202)
  t.equal((await post('api', 0, 2)).status, 202)
  const summary = await api(server, 'GET', '/api/admin/client-metrics/features/counted')
  t.equal(summary.status, 200)
  t.match(summary.body, { version: 1, maturity: 'stable', featureName: 'counted', seenApplications: ['api', 'web'] })
  t.match(summary.body.lastHourUsage, [{ environment: 'development', yes: 4, no: 3 }])
  const raw = await api(server, 'GET', '/api/admin/client-metrics/features/counted/raw?hoursBack=3')
  t.equal(raw.status, 200)
  t.equal(raw.body.data.length, 3 * 2, 'three hours for each of two applications')
  const reported = raw.body.data.filter((b: { yes: number; no: number }) => b.yes + b.no > 0)
  t.match(reported.find((b: { appName: string }) => b.appName === 'web'), { environment: 'development', yes: 4, no: 1, variants: { blue: 4 } })
  t.match(reported.find((b: { appName: string }) => b.appName === 'api'), { environment: 'development', yes: 0, no: 2 })
  t.equal(reported.length, 2, 'the other hours are zero')
  t.equal((await api(server, 'GET', '/api/admin/client-metrics/features/counted/raw')).body.data.length, 24 * 2, '24 hours when not asked')
  const unknown = await api(server, 'GET', '/api/admin/client-metrics/features/never-reported')
  t.same([unknown.status, unknown.body.lastHourUsage, unknown.body.seenApplications], [200, [], []], 'a name nothing reported: no usage, as Unleash')
  expectError(t, await api(server, 'GET', '/api/admin/client-metrics/features/counted/raw?hoursBack=49'), { status: 400, message: /hoursBack/ })
  expectError(t, await api(server, 'GET', '/api/admin/client-metrics/features/counted/raw?hoursBack=two'), { status: 400, message: /hoursBack/ })
})

t.test('GET .../projects/:id/status: activity per day, health, lifecycle, stale flags and resources', async (t) => {
  expectOk(await createProject(server, { id: 'status', name: 'Status' }), 'create project')
  expectOk(await createFeature(server, 'status', 'fresh'), 'create flag')
  expectOk(await createFeature(server, 'status', 'old-news'), 'create flag')
  expectOk(await api(server, 'PATCH', '/api/admin/projects/status/features/old-news', [{ op: 'replace', path: '/stale', value: true }]), 'mark stale')
  expectOk(await createFeature(server, 'status', 'gone'), 'create flag')
  expectOk(await api(server, 'DELETE', '/api/admin/projects/status/features/gone'), 'archive')
  await clientToken(['status'])
  await clientToken(['*'])
  expectOk(await api(server, 'POST', '/api/admin/segments', { name: 'status-segment', project: 'status', constraints: [] }), 'a project segment')
  await grantProjectRoles(server, 'status', [5], [dana.id])
  const res = await api(server, 'GET', '/api/admin/projects/status/status')
  t.equal(res.status, 200)
  const today = new Date().toISOString().slice(0, 10)
  t.same(res.body.activityCountByDate.map((d: { date: string }) => d.date), [today], 'one day of activity')
  t.ok(res.body.activityCountByDate[0].count >= 5, 'each event of the project counts')
  t.same(res.body.resources, { members: 1, apiTokens: 1, segments: 1 }, 'its member, the token made for it (not the one for every project), its segment')
  t.same(res.body.staleFlags, { total: 1 })
  t.same([res.body.health.current, res.body.technicalDebt.current], [50, 50], 'one of two active flags is stale')
  t.match(res.body.lifecycleSummary, { initial: { currentFlags: 2, averageDays: 0 }, preLive: { currentFlags: 0, averageDays: null }, archived: { currentFlags: 1, last30Days: 1 } })
  expectError(t, await api(server, 'GET', '/api/admin/projects/nowhere/status'), { status: 404 })
})

t.test('GET .../projects/:id/flag-creators names who created its active flags', async (t) => {
  expectOk(await createProject(server, { id: 'creators', name: 'Creators' }), 'create project')
  await grantProjectRoles(server, 'creators', [5], [dana.id])
  expectOk(await as(dana.session, 'POST', '/api/admin/projects/creators/features', { name: 'by-dana' }), 'dana creates a flag')
  expectOk(await createFeature(server, 'creators', 'by-token'), 'the admin token creates one')
  const creators = await api(server, 'GET', '/api/admin/projects/creators/flag-creators')
  t.equal(creators.status, 200)
  t.same(
    creators.body.map((c: { id: number; name: string }) => [c.id, c.name]).sort(),
    [[-42, creators.body.find((c: { id: number }) => c.id === -42)?.name], [dana.id, 'Dana Scully']].sort(),
    'a user by name, the admin token as -42',
  )
  expectOk(await as(dana.session, 'DELETE', '/api/admin/projects/creators/features/by-dana'), 'archive her flag')
  t.same((await api(server, 'GET', '/api/admin/projects/creators/flag-creators')).body.map((c: { id: number }) => c.id), [-42], 'archived flags do not count')
  expectError(t, await api(server, 'GET', '/api/admin/projects/nowhere/flag-creators'), { status: 404 })
})

t.test('the personal dashboard lists the user\'s flags, projects, owners and admins; its project details', async (t) => {
  expectOk(await createProject(server, { id: 'mine', name: 'Mine' }), 'create project')
  await grantProjectRoles(server, 'mine', [4], [dana.id])
  expectOk(await as(dana.session, 'POST', '/api/admin/projects/mine/features', { name: 'dana-made' }), 'dana creates a flag')
  expectOk(await createFeature(server, 'mine', 'dana-likes'), 'another flag')
  expectOk(await as(dana.session, 'POST', '/api/admin/projects/mine/features/dana-likes/favorites'), 'which she favorites')
  const dashboard = await as(dana.session, 'GET', '/api/admin/personal-dashboard')
  t.equal(dashboard.status, 200)
  t.same(dashboard.body.flags.map((f: { name: string }) => f.name).sort(), ['dana-likes', 'dana-made'], 'her flags: made or favorited')
  t.same(dashboard.body.projects.map((p: { id: string }) => p.id), ['creators', 'mine', 'status'], 'the projects where she has a role')
  t.match(dashboard.body.projects.find((p: { id: string }) => p.id === 'mine'), { name: 'Mine', health: 100, technicalDebt: 0, memberCount: 1, featureCount: 2 })
  t.match(dashboard.body.projectOwners, [{ ownerType: 'user', name: 'Dana Scully', email: 'dana@example.com' }])
  t.match(dashboard.body.admins, [{ username: 'admin' }])
  expectError(t, await api(server, 'GET', '/api/admin/personal-dashboard'), { status: 400 }, 'an API token has no dashboard')

  const details = await as(dana.session, 'GET', '/api/admin/personal-dashboard/mine')
  t.equal(details.status, 200)
  t.match(details.body.latestEvents[0], {
    summary: `**dana@example.com** favorited **[dana-likes](${server.baseUrl}/projects/mine/features/dana-likes)** in project **[mine](${server.baseUrl}/projects/mine)**`,
    createdBy: 'dana@example.com',
  })
  t.ok(details.body.latestEvents.length <= 10)
  t.same(details.body.onboardingStatus, { status: 'first-flag-created', feature: 'dana-made' })
  t.match(details.body.owners, [{ ownerType: 'user', name: 'Dana Scully' }])
  t.same(details.body.roles, [{ id: 4, name: 'Owner', type: 'project' }])
  t.match(details.body.insights, { totalFlags: 2, activeFlags: 2, staleFlags: 0, potentiallyStaleFlags: 0, health: 100, avgHealthCurrentWindow: null })
  t.same((await as(dana.session, 'GET', '/api/admin/personal-dashboard/status')).body.owners, [{ ownerType: 'system' }], 'a project without owners')
  expectError(t, await as(dana.session, 'GET', '/api/admin/personal-dashboard/nowhere'), { status: 404 })
})

t.test('GET /api/admin/user/profile: the user\'s root role, projects and groups', async (t) => {
  expectOk(await api(server, 'POST', '/api/admin/groups', { name: 'Readers', users: [{ user: { id: dana.id } }] }), 'a group')
  const profile = await as(dana.session, 'GET', '/api/admin/user/profile')
  t.equal(profile.status, 200)
  t.match(profile.body, { rootRole: { id: 2, name: 'Editor', type: 'root' }, subscriptions: [], features: [], canChangePassword: true })
  t.same([...profile.body.projects].sort(), ['creators', 'mine', 'status'])
  t.match(profile.body.groups, [{ name: 'Readers' }])
  expectError(t, await api(server, 'GET', '/api/admin/user/profile'), { status: 400 }, 'an API token has no profile')
})

t.test('GET /api/admin/environments/project/:id: every environment as the project uses it', async (t) => {
  expectOk(await createFeature(server, P, 'switched-on'), 'create flag')
  expectOk(await enableFeature(server, P, 'switched-on', 'development'), 'enable')
  expectOk(await createFeature(server, P, 'switched-on-archived'), 'create a flag to archive')
  expectOk(await enableFeature(server, P, 'switched-on-archived', 'development'), 'enable it')
  expectOk(await api(server, 'DELETE', `/api/admin/projects/${P}/features/switched-on-archived`), 'archive it: it counts no more')
  await clientToken([P])
  expectOk(await api(server, 'POST', '/api/admin/environments', { name: 'staging', type: 'test' }), 'an environment the project has not')
  const res = await api(server, 'GET', `/api/admin/environments/project/${P}`)
  t.equal(res.status, 200)
  const byName = Object.fromEntries(res.body.environments.map((e: { name: string }) => [e.name, e]))
  t.match(byName.development, { type: 'development', visible: true, projectEnabledToggleCount: 1, requiredApprovals: null })
  t.ok(byName.development.projectApiTokenCount >= 2, 'tokens for the project and for every project count')
  t.match(byName.staging, { visible: false, projectEnabledToggleCount: 0 })
  expectError(t, await api(server, 'GET', '/api/admin/environments/project/nowhere'), { status: 404 })
})

t.test('GET /api/admin/tags/:type lists the values of one type', async (t) => {
  expectOk(await createFeature(server, P, 'tagged'), 'create flag')
  expectOk(await api(server, 'POST', '/api/admin/features/tagged/tags', { type: 'simple', value: 'checkout' }), 'tag it')
  expectOk(await api(server, 'POST', '/api/admin/tag-types', { name: 'team' }), 'another type')
  expectOk(await api(server, 'POST', '/api/admin/tags', { type: 'team', value: 'payments' }), 'a tag of it')
  t.same((await api(server, 'GET', '/api/admin/tags/simple')).body, { version: 1, tags: [{ value: 'checkout', type: 'simple' }] })
  t.same((await api(server, 'GET', '/api/admin/tags/team')).body.tags, [{ value: 'payments', type: 'team' }])
  expectError(t, await api(server, 'GET', '/api/admin/tags/no-such-type'), { status: 404 })
})

t.test('GET .../projects/:id/dependencies says whether any flag of the project has a parent', async (t) => {
  expectOk(await createProject(server, { id: 'deps', name: 'Deps' }), 'create project')
  expectOk(await createFeature(server, 'deps', 'parent'), 'create flag')
  expectOk(await createFeature(server, 'deps', 'child'), 'create flag')
  t.same((await api(server, 'GET', '/api/admin/projects/deps/dependencies')).body, false)
  expectOk(await api(server, 'POST', '/api/admin/projects/deps/features/child/dependencies', { feature: 'parent' }), 'add a dependency')
  const res = await api(server, 'GET', '/api/admin/projects/deps/dependencies')
  t.same([res.status, res.body], [200, true])
  expectError(t, await api(server, 'GET', '/api/admin/projects/nowhere/dependencies'), { status: 404 })
})

t.test('GET .../projects/:id/context has no fields of its own; ?include=root adds the instance\'s', async (t) => {
  const root = (await api(server, 'GET', '/api/admin/context')).body
  t.same((await api(server, 'GET', `/api/admin/projects/${P}/context?include=root`)).body, root)
  t.same((await api(server, 'GET', `/api/admin/projects/${P}/context`)).body, [])
  expectError(t, await api(server, 'GET', '/api/admin/projects/nowhere/context?include=root'), { status: 404 })
})

t.test('POST /api/admin/playground/advanced evaluates every combination of comma-separated values in each environment', async (t) => {
  expectOk(await createProject(server, { id: 'advanced', name: 'Advanced' }), 'create project')
  expectOk(await createFeature(server, 'advanced', 'for-alice'), 'create flag')
  expectOk(
    await api(server, 'POST', '/api/admin/projects/advanced/features/for-alice/environments/development/strategies', {
      name: 'flexibleRollout',
      parameters: { rollout: '100', stickiness: 'default', groupId: 'for-alice' },
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['alice'] }],
    }),
    'a strategy for alice',
  )
  expectOk(await enableFeature(server, 'advanced', 'for-alice', 'development'), 'enable')
  const body = { environments: ['development', 'production'], projects: ['advanced'], context: { appName: 'web', userId: 'alice,bob', properties: { tier: 'gold,silver' }, count: 3 } }
  const res = await api(server, 'POST', '/api/admin/playground/advanced', body)
  t.equal(res.status, 200)
  t.same(res.body.input, body)
  t.same(res.body.warnings, { invalidContextProperties: ['count'] }, 'a value that is not a string is left out, and named')
  t.same(res.body.features.map((f: { name: string }) => f.name), ['for-alice'])
  const development = res.body.features[0].environments.development as { context: Record<string, string>; isEnabled: boolean; environment: string }[]
  t.same(
    development.map((e) => [e.context.userId, e.context.tier, e.isEnabled]),
    [['alice', 'gold', true], ['alice', 'silver', true], ['bob', 'gold', false], ['bob', 'silver', false]],
  )
  t.same(development[0].context, { appName: 'web', userId: 'alice', tier: 'gold' }, 'properties join the flat context')
  t.ok(res.body.features[0].environments.production.every((e: { isEnabled: boolean }) => !e.isEnabled), 'off in production')
  t.match(development[0], { projectId: 'advanced', environment: 'development', strategies: { result: true, data: [{ links: { edit: /environmentId=development/ } }] } })
  expectError(t, await api(server, 'POST', '/api/admin/playground/advanced', { ...body, environments: [] }), { status: 400, message: /environments/ })
  expectError(t, await api(server, 'POST', '/api/admin/playground/advanced', { ...body, environments: ['nowhere'] }), { status: 404 })
  expectError(t, await api(server, 'POST', '/api/admin/playground/advanced', { environments: ['development'], context: {} }), { status: 400, message: /appName/ })
  const many = Array.from({ length: 200 }, (_, i) => `u${i}`).join(',')
  expectError(
    t,
    await api(server, 'POST', '/api/admin/playground/advanced', { environments: ['development'], context: { appName: 'web', userId: many, sessionId: many } }),
    { status: 400, message: /exceeding 15000 limit/ },
    'too many evaluations',
  )
})

t.test('POST /api/admin/record-ui-error takes a crash report of the admin UI', async (t) => {
  const res = await api(server, 'POST', '/api/admin/record-ui-error', { errorMessage: 'TypeError: x is undefined', errorStack: 'at Page' })
  t.same([res.status, res.text], [204, ''])
  expectError(t, await api(server, 'POST', '/api/admin/record-ui-error', { errorStack: 'no message' }), { status: 400, message: /errorMessage/ })
})

t.test('POST /api/admin/constraints/validate checks a constraint as a saved strategy\'s is checked', async (t) => {
  t.equal((await api(server, 'POST', '/api/admin/constraints/validate', { contextName: 'userId', operator: 'IN', values: ['a', 'b'] })).status, 204)
  expectError(t, await api(server, 'POST', '/api/admin/constraints/validate', { contextName: 'userId', operator: 'NUM_EQ', value: 'x' }), { status: 400, message: /must be a number/ })
  expectError(t, await api(server, 'POST', '/api/admin/constraints/validate', { operator: 'IN', values: [] }), { status: 400, message: /contextName/ })
  expectOk(await api(server, 'POST', '/api/admin/context', { name: 'tier', legalValues: [{ value: 'gold' }] }), 'a field with legal values')
  expectError(t, await api(server, 'POST', '/api/admin/constraints/validate', { contextName: 'tier', operator: 'IN', values: ['tin'] }), { status: 400, message: /not a legal value/ })
})

t.test('POST /api/admin/splash/:id notes a hint the user has seen; GET /api/admin/user lists them', async (t) => {
  const res = await as(dana.session, 'POST', '/api/admin/splash/strategy-drag-tooltip')
  t.same([res.status, res.body], [200, { splashId: 'strategy-drag-tooltip', userId: dana.id, seen: true }])
  t.same((await as(dana.session, 'GET', '/api/admin/user')).body.splash, { 'strategy-drag-tooltip': true })
  t.equal((await as(dana.session, 'POST', '/api/admin/splash/strategy-drag-tooltip')).status, 200, 'again: still 200')
  expectError(t, await api(server, 'POST', '/api/admin/splash/strategy-drag-tooltip'), { status: 400 }, 'an API token has no hints')
  expectError(t, await as(dana.session, 'POST', '/api/admin/splash/a%20b'), { status: 400, message: /splashId/ })
})

t.test('GET /api/admin/instance-admin/statistics counts what the instance holds', async (t) => {
  const res = await as(dana.session, 'GET', '/api/admin/instance-admin/statistics')
  t.equal(res.status, 200)
  const features = (await api(server, 'GET', '/api/admin/features')).body.features.length
  const projects = (await api(server, 'GET', '/api/admin/projects')).body.projects.length
  t.match(res.body, { versionEnterprise: '', users: 2, featureToggles: features, projects, environments: 3, passwordAuthEnabled: true })
  t.ok(res.body.archivedFeatureToggles >= 2, 'archived flags are counted apart')
  t.ok(res.body.apiTokens.backend >= 1 && res.body.apiTokens.admin >= 1, 'tokens by type')
  t.same(res.body.activeUsers, { last7: 1, last30: 1, last60: 1, last90: 1 }, 'dana signed in; the admin user never did')
  // 'web' and 'api' sent metrics above: Unleash 8.2 lists an application that reports metrics.
  t.match(res.body.clientApps, [{ range: '7d', count: 2 }, { range: '30d', count: 2 }, { range: 'allTime', count: 2 }])
})
