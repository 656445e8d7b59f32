import t from 'tap'
import type { Method } from '../../src/http/types.js'
import { defaultAdminPassword, startPeopleServer } from '../helpers/people.js'
import { ContractChecker, fetchOpenApi, type Exchange } from '../helpers/openapi.js'

// A tour of real requests, each answer checked against the served OpenAPI document: a documented
// route the tour misses, or an answer that drifted from its schema, fails here.

t.test('the answers of a tour of the API match the OpenAPI document', async (t) => {
  const server = await startPeopleServer(t, { env: { LOG_LEVEL: 'error' } })
  const base = server.baseUrl
  const checker = new ContractChecker(await fetchOpenApi(base), server.routes)
  const problems: string[] = []

  const call = async (method: Method, url: string, body?: unknown, options: { token?: string | null; headers?: Record<string, string> } = {}): Promise<Exchange & { headers: Headers }> => {
    const token = options.token === undefined ? server.adminToken : options.token
    const response = await fetch(base + url, {
      method,
      headers: { ...(token ? { authorization: token } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    const exchange = { method, url, requestBody: body, status: response.status, text, body: text ? (JSON.parse(text) as unknown) : undefined }
    problems.push(...checker.check(exchange))
    return { ...exchange, headers: response.headers }
  }
  const expect = async (status: number, method: Method, url: string, body?: unknown, options?: { token?: string | null; headers?: Record<string, string> }) => {
    const answer = await call(method, url, body, options)
    t.equal(answer.status, status, `${method} ${url} answers ${status}`)
    return answer
  }

  const feature = '/api/admin/projects/tour/features/tour.flag'
  const strategies = `${feature}/environments/development/strategies`

  await expect(200, 'GET', '/health', undefined, { token: null })
  await expect(200, 'GET', '/ready', undefined, { token: null })

  await expect(201, 'POST', '/api/admin/projects', { id: 'tour', name: 'Tour' })
  await expect(201, 'POST', '/api/admin/projects', { id: 'empty', name: 'Empty' })
  await expect(200, 'GET', '/api/admin/projects')
  await expect(200, 'PUT', '/api/admin/projects/empty', { name: 'Still empty', description: 'to be deleted' })

  await expect(201, 'POST', '/api/admin/environments', { name: 'staging', type: 'test' })
  await expect(200, 'GET', '/api/admin/environments')
  await expect(200, 'GET', '/api/admin/environments/staging')

  const segment = await expect(201, 'POST', '/api/admin/segments', { name: 'tour-users', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1', 'u2'] }] })
  const segmentId = (segment.body as { id: number }).id
  await expect(200, 'GET', '/api/admin/segments')
  await expect(200, 'GET', `/api/admin/segments/${segmentId}`)
  await expect(204, 'PUT', `/api/admin/segments/${segmentId}`, { name: 'tour-users', description: 'who tours', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }] })

  await expect(201, 'POST', '/api/admin/projects/tour/features', { name: 'tour.flag', description: 'a flag on tour', impressionData: true })
  await expect(201, 'POST', '/api/admin/projects/tour/features', { name: 'tour.simple' })
  await expect(201, 'POST', '/api/admin/projects/tour/features', { name: 'tour.archived' })
  await expect(201, 'POST', '/api/admin/projects/tour/features', { name: 'tour.bulk' })
  await expect(200, 'PUT', feature, { description: 'still on tour', type: 'experiment' })
  await expect(200, 'PATCH', feature, [{ op: 'replace', path: '/stale', value: false }])

  const added = await expect(200, 'POST', strategies, {
    name: 'flexibleRollout',
    title: 'half',
    parameters: { rollout: '50', stickiness: 'default', groupId: 'tour.flag' },
    constraints: [{ contextName: 'appName', operator: 'IN', values: ['tour'] }],
    segments: [segmentId],
    variants: [{ name: 'sv', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'x' } }],
  })
  const strategyId = (added.body as { id: string }).id
  const second = await expect(200, 'POST', strategies, { name: 'default' })
  const secondId = (second.body as { id: string }).id
  await expect(200, 'GET', strategies)
  await expect(200, 'GET', `${strategies}/${strategyId}`)
  await expect(200, 'PUT', `${strategies}/${strategyId}`, { name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: 'tour.flag' }, constraints: [] })
  await expect(200, 'PATCH', `${strategies}/${strategyId}`, [{ op: 'replace', path: '/title', value: 'everyone' }])
  await expect(200, 'POST', `${strategies}/set-sort-order`, [{ id: secondId, sortOrder: 0 }, { id: strategyId, sortOrder: 1 }])
  await expect(200, 'DELETE', `${strategies}/${secondId}`)

  const variant = { name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"a":1}' } }
  await expect(200, 'PUT', `${feature}/environments/development/variants`, [variant])
  await expect(200, 'PATCH', `${feature}/environments/development/variants`, [{ op: 'add', path: '/-', value: { name: 'green', weight: 0, weightType: 'variable', stickiness: 'default' } }])
  await expect(200, 'GET', `${feature}/environments/development/variants`)
  await expect(200, 'PUT', `${feature}/variants-batch`, { variants: [variant], environments: ['development', 'production'] })
  await expect(200, 'PUT', '/api/admin/projects/tour/features/tour.simple/variants', [{ name: 'legacy', weight: 1000, weightType: 'variable', stickiness: 'default' }])
  await expect(200, 'PATCH', '/api/admin/projects/tour/features/tour.simple/variants', [{ op: 'replace', path: '/0/stickiness', value: 'userId' }])
  await expect(200, 'GET', '/api/admin/projects/tour/features/tour.simple/variants')

  await expect(200, 'POST', `${feature}/environments/development/on`)
  await expect(200, 'POST', '/api/admin/projects/tour/features/tour.simple/environments/development/on')
  await expect(200, 'POST', '/api/admin/projects/tour/features/tour.simple/environments/production/on')
  await expect(200, 'POST', '/api/admin/projects/tour/features/tour.simple/environments/production/off')
  await expect(200, 'GET', feature)
  const head = await expect(200, 'GET', '/api/admin/events/head')
  await expect(200, 'PUT', feature, { description: 'to be reverted' })
  await expect(200, 'POST', `${feature}/revert`, { toEventId: (head.body as { id: number }).id })
  await expect(400, 'POST', `${feature}/revert`, { toEventId: 0 })
  await expect(200, 'GET', `${feature}/environments/development`)
  await expect(200, 'GET', '/api/admin/projects/tour/features')
  await expect(200, 'GET', '/api/admin/features')
  await expect(200, 'GET', '/api/admin/projects/tour')
  await expect(200, 'GET', `/api/admin/segments/${segmentId}/strategies`)

  await expect(202, 'DELETE', '/api/admin/projects/tour/features/tour.archived')
  await expect(202, 'POST', '/api/admin/projects/tour/archive', { features: ['tour.bulk'] })
  await expect(200, 'GET', '/api/admin/archive/features')
  await expect(200, 'GET', '/api/admin/archive/features/tour')

  const client = await expect(201, 'POST', '/api/admin/api-tokens', { tokenName: 'tour-client', type: 'client', environment: 'development', projects: ['*'] })
  const clientSecret = (client.body as { secret: string }).secret
  const frontend = await expect(201, 'POST', '/api/admin/api-tokens', { tokenName: 'tour-frontend', type: 'frontend', environment: 'development', projects: ['*'] })
  const frontendSecret = (frontend.body as { secret: string }).secret
  const spare = await expect(201, 'POST', '/api/admin/api-tokens', { tokenName: 'tour-spare', type: 'client', environment: 'production', projects: ['tour'] })
  await expect(200, 'GET', '/api/admin/api-tokens')
  await expect(200, 'GET', '/api/admin/api-tokens/tour-client')
  await expect(200, 'DELETE', `/api/admin/api-tokens/${encodeURIComponent((spare.body as { secret: string }).secret)}`)

  const features = await expect(200, 'GET', '/api/client/features', undefined, { token: clientSecret })
  await expect(304, 'GET', '/api/client/features', undefined, { token: clientSecret, headers: { 'if-none-match': features.headers.get('etag')! } })
  await expect(200, 'GET', '/api/client/features?inlineSegmentConstraints=false&project=tour&namePrefix=tour.', undefined, { token: clientSecret, headers: { 'unleash-client-spec': '5.1.9' } })
  await expect(200, 'GET', '/api/client/features/tour.flag', undefined, { token: clientSecret })
  await expect(202, 'POST', '/api/client/register', { appName: 'tour', instanceId: 'i1', strategies: ['default', 'flexibleRollout'], started: new Date().toISOString(), interval: 10000 }, { token: clientSecret })
  const now = new Date().toISOString()
  await expect(202, 'POST', '/api/client/metrics', { appName: 'tour', instanceId: 'i1', bucket: { start: now, stop: now, toggles: { 'tour.flag': { yes: 2, no: 1 } } } }, { token: clientSecret })
  await expect(202, 'POST', '/api/client/metrics/bulk', { applications: [{ appName: 'tour', instanceId: 'i2', strategies: [] }], metrics: [{ featureName: 'tour.simple', appName: 'tour', environment: 'development', timestamp: now, yes: 1, no: 0 }] }, { token: clientSecret })

  const toggles = await expect(200, 'GET', '/api/frontend?userId=u1&sessionId=s1&properties[region]=eu', undefined, { token: frontendSecret })
  t.ok(((toggles.body as { toggles: unknown[] }).toggles ?? []).length > 0, 'the frontend API answers enabled flags, so their shape is checked')
  await expect(304, 'GET', '/api/frontend?userId=u1&sessionId=s1&properties[region]=eu', undefined, { token: frontendSecret, headers: { 'if-none-match': toggles.headers.get('etag')! } })
  await expect(200, 'POST', '/api/frontend', { context: { userId: 'u2', appName: 'tour', properties: { region: 'us' } } }, { token: frontendSecret })
  await expect(200, 'POST', '/api/frontend/client/metrics', { appName: 'tour-browser', instanceId: 'b1', bucket: { start: now, stop: now, toggles: { 'tour.flag': { yes: 1, no: 0 } } } }, { token: frontendSecret })

  await expect(200, 'POST', '/api/admin/playground', { environment: 'development', projects: '*', context: { appName: 'tour', userId: 'u1' } })
  await expect(200, 'POST', '/api/admin/playground', { environment: 'development', projects: ['tour'], context: { appName: 'other' } })

  await expect(200, 'GET', '/api/admin/events')
  await expect(200, 'GET', '/api/admin/events?project=tour')
  await expect(200, 'GET', '/api/admin/events/tour.flag')
  await expect(200, 'GET', '/api/admin/events/head')
  await expect(200, 'GET', '/api/admin/search/features?query=tour&sortBy=name')
  await expect(200, 'GET', '/api/admin/search/features?archived=IS:true&project=IS:tour')
  await expect(200, 'GET', '/api/admin/search/events?project=IS:tour&limit=5')
  await expect(400, 'GET', '/api/admin/search/features?project=tour')
  await expect(400, 'GET', '/api/admin/search/events?from=IS:2024-13-45')

  // What Unleash's own admin UI reads: some of it is a signed-in user's own.
  const signIn = await call('POST', '/auth/simple/login', { username: 'admin', password: defaultAdminPassword }, { token: null })
  const cookie = signIn.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ')
  const asUser = { token: null, headers: { cookie } }
  await expect(200, 'GET', '/api/admin/ui-config')
  await expect(200, 'GET', '/api/admin/instance-admin/statistics')
  await expect(200, 'GET', '/api/admin/personal-dashboard', undefined, asUser)
  await expect(200, 'GET', '/api/admin/personal-dashboard/tour', undefined, asUser)
  await expect(200, 'GET', '/api/admin/user/profile', undefined, asUser)
  await expect(200, 'GET', '/api/admin/projects/tour/status')
  await expect(200, 'GET', '/api/admin/projects/tour/flag-creators')
  await expect(200, 'GET', '/api/admin/projects/tour/dependencies')
  await expect(200, 'GET', '/api/admin/client-metrics/features/tour.flag')
  await expect(200, 'GET', '/api/admin/client-metrics/features/tour.flag/raw?hoursBack=2')
  await expect(200, 'GET', '/api/admin/environments/project/tour')
  await expect(200, 'GET', '/api/admin/tags/simple')
  await expect(200, 'POST', '/ofrep/v1/evaluate/flags/tour.flag', { context: { targetingKey: 'u1' } }, { token: clientSecret })
  await expect(200, 'POST', '/ofrep/v1/evaluate/flags', { context: { targetingKey: 'u1' } }, { token: clientSecret })
  await expect(200, 'POST', '/api/admin/playground/advanced', { environments: ['development', 'production'], projects: ['tour'], context: { appName: 'tour', userId: 'u1,u2' } })
  await expect(204, 'POST', '/api/admin/record-ui-error', { errorMessage: 'a page crashed', errorStack: 'at Page' })
  await expect(204, 'POST', '/api/admin/constraints/validate', { contextName: 'userId', operator: 'IN', values: ['u1'] })
  await expect(200, 'POST', '/api/admin/splash/strategy-drag-tooltip', undefined, { ...asUser, headers: { ...asUser.headers, origin: base } })

  // A change request, applied: its answer then carries what each change replaced.
  const changeRequests = '/api/admin/projects/tour/change-requests'
  await expect(204, 'PUT', '/api/admin/projects/tour/environments/production/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 1 })
  const cr = await expect(200, 'POST', '/api/admin/projects/tour/environments/production/change-requests', [
    { feature: 'tour.simple', action: 'updateEnabled', payload: { enabled: true } },
    { feature: 'tour.flag', action: 'patchVariant', payload: { variants: [{ name: 'solo', weight: 1000, weightType: 'variable', stickiness: 'default' }] } },
  ])
  const crId = (cr.body as { id: number }).id
  for (const state of ['In review', 'Approved', 'Applied']) await expect(200, 'PUT', `${changeRequests}/${crId}/state`, { state })
  const applied = await expect(200, 'GET', `${changeRequests}/${crId}`)
  t.match(applied.body, { state: 'Applied', features: [{ changes: [{ replaced: { enabled: false } }] }, { changes: [{ payload: { snapshot: [{ name: variant.name }] } }] }] }, 'the applied request shows what it replaced')
  await expect(200, 'GET', changeRequests)

  // Errors: each answers the one Error schema.
  await expect(400, 'POST', '/api/admin/projects/tour/features', { name: 42 })
  await expect(400, 'GET', '/api/admin/segments/not-a-number')
  await expect(401, 'GET', '/api/admin/projects', undefined, { token: null })
  await expect(401, 'GET', '/api/client/features', undefined, { token: null })
  await expect(403, 'GET', '/api/admin/projects', undefined, { token: clientSecret })
  await expect(403, 'GET', '/api/frontend', undefined, { token: clientSecret })
  await expect(403, 'POST', '/auth/simple/login', { username: 'admin', password: 'x' }, { token: null, headers: { origin: 'http://evil.example' } })
  await expect(404, 'GET', '/api/admin/projects/nowhere')
  await expect(404, 'GET', `${feature}/environments/development/strategies/no-such-id`)
  await expect(404, 'GET', '/api/client/features/no.such.flag', undefined, { token: clientSecret })
  await expect(404, 'POST', '/ofrep/v1/evaluate/flags/no.such.flag', { context: {} }, { token: clientSecret })
  await expect(400, 'POST', '/ofrep/v1/evaluate/flags/tour.flag', { context: 'u1' }, { token: clientSecret })
  await expect(415, 'POST', '/api/admin/projects', 'not json', { headers: { 'content-type': 'text/plain' } })

  await expect(409, 'DELETE', `/api/admin/segments/${segmentId}`)
  const unused = await expect(201, 'POST', '/api/admin/segments', { name: 'unused', constraints: [] })
  await expect(204, 'DELETE', `/api/admin/segments/${(unused.body as { id: number }).id}`)
  await expect(200, 'DELETE', '/api/admin/projects/empty')

  t.same(problems, [], 'every answer is as the document says')
  const missed = ContractChecker.described(server.routes).filter((route) => !checker.met.has(route))
  t.same(missed, [], 'the tour meets every route whose answers the document describes')
})

t.test('the checker refuses an answer that drifted from its schema', async (t) => {
  const server = await startPeopleServer(t, { env: { LOG_LEVEL: 'error' } })
  const checker = new ContractChecker(await fetchOpenApi(server.baseUrl), server.routes)
  const exchange = (body: unknown, status = 200): Exchange => ({ method: 'GET', url: '/api/admin/events/head', status, body, text: JSON.stringify(body) })
  t.same(checker.check(exchange({ id: 3, hash: 'a'.repeat(64) })), [], 'the real shape passes')
  t.match(checker.check(exchange({ id: '3', hash: 'a'.repeat(64) })), [/GET \/api\/admin\/events\/head 200: .*must be number/], 'a string where the schema says number fails')
  t.match(checker.check(exchange({ id: 3 })), [/must have required property 'hash'/], 'a missing field fails')
  t.match(checker.check(exchange({ id: 3, hash: 'a'.repeat(64) }, 201)), [/answered 201, which the document does not list/], 'an unlisted status fails')
  t.match(checker.check({ method: 'GET', url: '/health', status: 500, body: {}, text: '{}' }), [/does not list/])
  t.match(checker.check({ method: 'DELETE', url: '/api/admin/segments/1', status: 204, body: { id: 1 }, text: '{"id":1}' }), [/documented without a body/], 'a body where none is documented fails')
  t.match(checker.check({ method: 'GET', url: '/nowhere/at/all', status: 404, body: undefined, text: '' }), [/matches no route/])
})
