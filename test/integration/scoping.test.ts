import { randomBytes } from 'node:crypto'
import http from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t from 'tap'
import {
  addStrategy,
  archiveFeature,
  clientToken,
  createEnabledFeature,
  createFeature,
  createProject,
  createSegment,
  disableFeature,
  enableFeature,
  expectOk,
  getClientFeature,
  getClientFeatures,
  setStrategySortOrder,
  type ApiResult,
} from '../helpers/admin-api.js'
import { expectError, expectStatus } from '../helpers/expect.js'
import { startSdk, untilChanged } from '../helpers/sdk.js'
import { startTestServer } from '../helpers/server.js'

// An init client token for one project, scoped by its prefix as Unleash reads it.
const initToken = `default:production.${randomBytes(28).toString('hex')}`
const server = await startTestServer(t, { env: { INIT_CLIENT_API_TOKENS: initToken } })

const A = 'scope-a'
const B = 'scope-b'
const C = 'scope-c'
for (const id of [A, B, C]) expectOk(await createProject(server, { id, name: id }), `project ${id}`)
for (const [project, names] of [[A, ['a-1', 'a-2', 'a_x']], [B, ['b-1', 'b-2']], [C, ['c-1']]] as const) {
  for (const name of names) await createEnabledFeature(server, project, name)
}
const tokenA = await clientToken(server, [A])
const tokenB = await clientToken(server, [B])
const tokenAC = await clientToken(server, [A, C])
const tokenAll = await clientToken(server, ['*'])

const names = (res: ApiResult) => (res.body.features as any[]).map((f) => f.name).sort()
const modern = { 'unleash-client-spec': '5.2.0' }

t.test("a client token for one project never sees another project's flags", async (t) => {
  const res = await getClientFeatures(server, tokenA)
  expectStatus(t, res, 200, 'features')
  t.same(names(res), ['a-1', 'a-2', 'a_x'])
  t.same(names(await getClientFeatures(server, tokenB)), ['b-1', 'b-2'], 'and the other way round')
  t.same(names(await getClientFeatures(server, tokenA, `?project=${B}`)), [], '?project= cannot widen a project token')
  t.same(names(await getClientFeatures(server, tokenA, `?project=${A}&project=${B}`)), ['a-1', 'a-2', 'a_x'], 'only the intersection')
  expectError(t, await getClientFeature(server, tokenA, 'b-1'), { status: 404, name: 'NotFoundError' }, 'the single-flag endpoint')
  expectStatus(t, await getClientFeature(server, tokenA, 'a-1'), 200, 'its own flag')

  const sdk = await startSdk(t, server.baseUrl, tokenA)
  t.same((sdk.getFeatureToggleDefinitions() ?? []).map((f) => f.name).sort(), ['a-1', 'a-2', 'a_x'], 'the SDK holds only its own flags')
  t.equal(sdk.isEnabled('a-1'), true)
  t.equal(sdk.isEnabled('b-1'), false, "another project's flag is unknown to the SDK")
  const sdkWithProject = await startSdk(t, server.baseUrl, tokenA, { projectName: B })
  t.same(sdkWithProject.getFeatureToggleDefinitions() ?? [], [], 'the SDK asking for another project gets nothing')

  // A flag created later in the other project does not leak either.
  const changed = untilChanged(sdk, () => true, 3000).catch(() => 0)
  await createEnabledFeature(server, B, 'b-late')
  await changed
  t.equal(sdk.isEnabled('b-late'), false)
  t.notOk(names(await getClientFeatures(server, tokenA)).includes('b-late'))
})

t.test('a token for several projects sees exactly those projects', async (t) => {
  t.match(tokenAC, /^\[\]:development\./)
  t.same(names(await getClientFeatures(server, tokenAC)), ['a-1', 'a-2', 'a_x', 'c-1'])
  t.same(names(await getClientFeatures(server, tokenAC, `?project=${C}`)), ['c-1'], '?project= narrows it')
  t.same(names(await getClientFeatures(server, tokenAC, `?project=${B}`)), [], 'but cannot widen it')
  expectStatus(t, await getClientFeature(server, tokenAC, 'c-1'), 200, 'c-1')
  expectError(t, await getClientFeature(server, tokenAC, 'b-1'), { status: 404 }, 'b-1')
  const sdk = await startSdk(t, server.baseUrl, tokenAC)
  t.equal(sdk.isEnabled('c-1'), true)
  t.equal(sdk.isEnabled('b-1'), false)
})

t.test('an INIT_CLIENT_API_TOKENS token is scoped by its prefix', async (t) => {
  await createEnabledFeature(server, 'default', 'default-prod', 'production')
  expectOk(await createFeature(server, 'default', 'default-dev-only'), 'a flag')
  await createEnabledFeature(server, 'default', 'default-dev', 'development')
  const res = await getClientFeatures(server, initToken)
  expectStatus(t, res, 200, 'features')
  t.same(res.body.query, { project: ['default'], environment: 'production', inlineSegmentConstraints: true })
  t.same(names(res), ['default-dev', 'default-dev-only', 'default-prod'], 'only the default project')
  t.same(res.body.features.filter((f: any) => f.enabled).map((f: any) => f.name), ['default-prod'], 'in its production state')
})

t.test('a * token sees every project, and ?project= filters it', async (t) => {
  const all = names(await getClientFeatures(server, tokenAll))
  for (const name of ['a-1', 'b-1', 'c-1']) t.ok(all.includes(name), `sees ${name}`)
  const inB = names(await getClientFeatures(server, tokenB))
  t.same(names(await getClientFeatures(server, tokenAll, `?project=${B}`)), inB)
  t.same(names(await getClientFeatures(server, tokenAll, `?project=${B}&project=${C}`)), [...inB, 'c-1'].sort(), '?project= repeats')
  t.same(names(await getClientFeatures(server, tokenAll, '?project=no-such-project')), [], 'an unknown project is empty')
  const sdk = await startSdk(t, server.baseUrl, tokenAll, { projectName: C })
  t.same((sdk.getFeatureToggleDefinitions() ?? []).map((f) => f.name), ['c-1'], "the SDK's projectName")
})

t.test('namePrefix keeps flags whose name starts with it', async (t) => {
  const bNames = names(await getClientFeatures(server, tokenAll, '?namePrefix=b-'))
  t.ok(bNames.includes('b-1') && bNames.includes('b-2') && bNames.every((n: string) => n.startsWith('b-')), 'only b- flags')
  t.same(names(await getClientFeatures(server, tokenA, '?namePrefix=a-')), ['a-1', 'a-2'])
  t.same(names(await getClientFeatures(server, tokenA, '?namePrefix=b-')), [], 'within the token scope only')
  t.same(names(await getClientFeatures(server, tokenA, '?namePrefix=A-')), [], 'case-sensitive')
  t.same(names(await getClientFeatures(server, tokenA, '?namePrefix=a_')), ['a-1', 'a-2', 'a_x'], '_ is a one-character wildcard, as in SQL LIKE')
  t.same(names(await getClientFeatures(server, tokenA, '?namePrefix=a%25x')), ['a_x'], '% is a wildcard, as in SQL LIKE')
  t.same(names(await getClientFeatures(server, tokenA, '?namePrefix=.*')), [], 'regular-expression syntax is literal')
  t.match((await getClientFeatures(server, tokenA, '?namePrefix=a-')).body.query, { namePrefix: 'a-' }, 'echoed in query')
  const sdk = await startSdk(t, server.baseUrl, tokenAll, { namePrefix: 'c-' })
  t.same((sdk.getFeatureToggleDefinitions() ?? []).map((f) => f.name), ['c-1'], "the SDK's namePrefix")
})

t.test('a development token and a production token each see their own enabled state', async (t) => {
  const P = 'scope-env'
  expectOk(await createProject(server, { id: P, name: P }), 'project')
  await createEnabledFeature(server, P, 'env-flag', 'development', { name: 'default' })
  expectOk(await addStrategy(server, P, 'env-flag', 'production', { name: 'userWithId', parameters: { userIds: 'prod-user' } }), 'production strategy')
  const dev = await clientToken(server, [P], 'development')
  const prod = await clientToken(server, [P], 'production')
  t.match((await getClientFeature(server, dev, 'env-flag')).body, { enabled: true, strategies: [{ name: 'default' }] })
  t.match((await getClientFeature(server, prod, 'env-flag')).body, { enabled: false, strategies: [{ name: 'userWithId' }] })
  const devSdk = await startSdk(t, server.baseUrl, dev)
  const prodSdk = await startSdk(t, server.baseUrl, prod)
  t.equal(devSdk.isEnabled('env-flag'), true)
  t.equal(prodSdk.isEnabled('env-flag', { userId: 'prod-user' }), false, 'off in production')

  const prodOn = untilChanged(prodSdk, () => prodSdk.isEnabled('env-flag', { userId: 'prod-user' }))
  expectOk(await enableFeature(server, P, 'env-flag', 'production'), 'on in production')
  await prodOn
  t.equal(prodSdk.isEnabled('env-flag', { userId: 'someone-else' }), false, "production uses production's strategy")
  const devOff = untilChanged(devSdk, () => !devSdk.isEnabled('env-flag'))
  expectOk(await disableFeature(server, P, 'env-flag', 'development'), 'off in development')
  await devOff
  t.equal(prodSdk.isEnabled('env-flag', { userId: 'prod-user' }), true, 'production is unaffected')
  t.match((await getClientFeature(server, dev, 'env-flag', '?environment=production')).body, { enabled: false }, '?environment= cannot move an environment-scoped token')
})

t.test("the client feature has Unleash's fields and no admin-only ones", async (t) => {
  const P = 'scope-shape'
  expectOk(await createProject(server, { id: P, name: P }), 'project')
  expectOk(await createFeature(server, P, { name: 'shaped', type: 'experiment', description: 'desc', impressionData: true }), 'flag')
  const second = expectOk(await addStrategy(server, P, 'shaped', 'development', { name: 'userWithId', parameters: { userIds: 'u' }, title: 'second' }), 'second').body
  const first = expectOk(await addStrategy(server, P, 'shaped', 'development', { name: 'default', title: 'first' }), 'first').body
  expectOk(await addStrategy(server, P, 'shaped', 'development', { name: 'default', disabled: true }), 'a disabled strategy')
  expectOk(await setStrategySortOrder(server, P, 'shaped', 'development', [{ id: first.id, sortOrder: 0 }, { id: second.id, sortOrder: 1 }]), 'order')
  expectOk(await enableFeature(server, P, 'shaped', 'development'), 'on')
  const token = await clientToken(server, [P])
  const res = await getClientFeatures(server, token, '', modern)
  expectStatus(t, res, 200, 'features')
  t.equal(res.body.version, 2)
  t.same(res.body.query, { project: [P], environment: 'development', inlineSegmentConstraints: false }, 'the query echo')
  const [feature] = res.body.features
  t.same(Object.keys(feature).sort(), ['description', 'enabled', 'impressionData', 'name', 'project', 'stale', 'strategies', 'type', 'variants'])
  t.match(feature, { name: 'shaped', type: 'experiment', enabled: true, project: P, stale: false, description: 'desc', impressionData: true, variants: [] })
  t.same(feature.strategies.map((s: any) => s.name), ['default', 'userWithId'], 'disabled strategies omitted, by sortOrder')
  for (const strategy of feature.strategies) {
    t.same(Object.keys(strategy).sort(), ['constraints', 'name', 'parameters', 'variants'], `${strategy.name}: no id, title, sortOrder or disabled`)
  }
  t.same((await getClientFeature(server, token, 'shaped', '', modern)).body, feature, 'the single-flag endpoint gives the same object')
  expectOk(await archiveFeature(server, P, 'shaped'), 'archive')
  expectError(t, await getClientFeature(server, token, 'shaped'), { status: 404, message: 'Could not find feature flag shaped' }, 'an archived flag')
  expectError(t, await getClientFeature(server, token, 'no-such-flag'), { status: 404, message: 'Could not find feature flag no-such-flag' }, 'an unknown flag')
})

t.test('ETag and If-None-Match answer 304 with no body until something changes', async (t) => {
  const first = await getClientFeatures(server, tokenA)
  const etag = first.headers.get('etag')
  t.match(etag, /^".+"$/, 'a quoted ETag')
  const again = await getClientFeatures(server, tokenA, '', { 'if-none-match': etag! })
  t.equal(again.status, 304)
  t.equal(again.text, '', 'no body')
  t.equal((await getClientFeatures(server, tokenA, '', { 'if-none-match': `W/${etag}` })).status, 304, 'a weak validator matches too')
  t.equal((await getClientFeatures(server, tokenA, '', { 'if-none-match': '"something-else"' })).status, 200, 'another ETag gets the body')
  t.not((await getClientFeatures(server, tokenB)).headers.get('etag'), etag, 'another scope has another ETag')
  t.not((await getClientFeatures(server, tokenA, '?namePrefix=a-')).headers.get('etag'), etag, 'another query has another ETag')

  expectOk(await disableFeature(server, A, 'a-2', 'development'), 'a change in scope')
  const changed = await getClientFeatures(server, tokenA, '', { 'if-none-match': etag! })
  t.equal(changed.status, 200, 'the old ETag no longer matches')
  t.not(changed.headers.get('etag'), etag)
  t.equal(changed.body.features.find((f: any) => f.name === 'a-2').enabled, false)
  expectOk(await enableFeature(server, A, 'a-2', 'development'), 'back on')
})

const rawGet = (path: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> =>
  new Promise((resolve, reject) => {
    http
      .get(`${server.baseUrl}${path}`, { headers, agent: false }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      })
      .on('error', reject)
  })

t.test('the payload is gzipped when Accept-Encoding asks for it', async (t) => {
  const plain = await rawGet('/api/client/features', { authorization: tokenA })
  t.equal(plain.status, 200)
  t.equal(plain.headers['content-encoding'], undefined, 'not compressed unless asked')
  const zipped = await rawGet('/api/client/features', { authorization: tokenA, 'accept-encoding': 'gzip' })
  t.equal(zipped.status, 200)
  t.equal(zipped.headers['content-encoding'], 'gzip')
  t.same([zipped.body[0], zipped.body[1]], [0x1f, 0x8b], 'gzip bytes')
  t.same(JSON.parse(gunzipSync(zipped.body).toString()), JSON.parse(plain.body.toString()), 'the same payload')
  t.equal(zipped.headers.etag, plain.headers.etag, 'the same ETag')
  const notModified = await rawGet('/api/client/features', { authorization: tokenA, 'accept-encoding': 'gzip', 'if-none-match': String(plain.headers.etag) })
  t.equal(notModified.status, 304)
  t.equal(notModified.body.length, 0)
})

t.test('brotli is preferred when Accept-Encoding names it, with the same ETag and Vary', async (t) => {
  const plain = await rawGet('/api/client/features', { authorization: tokenA })
  // The compressed copies of a body this size are made in the background: poll until brotli is served.
  let answer = await rawGet('/api/client/features', { authorization: tokenA, 'accept-encoding': 'gzip, deflate, br' })
  for (let tries = 0; answer.headers['content-encoding'] !== 'br' && tries < 50; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    answer = await rawGet('/api/client/features', { authorization: tokenA, 'accept-encoding': 'gzip, deflate, br' })
  }
  t.equal(answer.headers['content-encoding'], 'br')
  t.same(JSON.parse(brotliDecompressSync(answer.body).toString()), JSON.parse(plain.body.toString()), 'the same payload')
  t.equal(answer.headers.etag, plain.headers.etag, 'the same ETag')
  t.equal(answer.headers.vary, 'Accept-Encoding')
  t.equal(plain.headers.vary, 'Accept-Encoding')
  const gzipOnly = await rawGet('/api/client/features', { authorization: tokenA, 'accept-encoding': 'gzip;q=1.0, identity' })
  t.equal(gzipOnly.headers['content-encoding'], 'gzip', 'another header value is read for itself')
  const brLookalike = await rawGet('/api/client/features', { authorization: tokenA, 'accept-encoding': 'brotli-ish' })
  t.equal(brLookalike.headers['content-encoding'], undefined, 'only the word br asks for brotli')
})

t.test('segments are inlined unless the SDK declares Unleash-Client-Spec 4.2.0 or newer', async (t) => {
  const P = 'scope-segments'
  expectOk(await createProject(server, { id: P, name: P }), 'project')
  const segment = expectOk(
    await createSegment(server, { name: 'beta-users', constraints: [{ contextName: 'userId', operator: 'IN', values: ['seg-user'] }] }),
    'segment',
  ).body
  await createEnabledFeature(server, P, 'segmented', 'development', {
    name: 'default',
    constraints: [{ contextName: 'appName', operator: 'STR_STARTS_WITH', values: ['it-'] }],
    segments: [segment.id],
  })
  const token = await clientToken(server, [P])

  for (const [what, headers] of [['no header', {}], ['spec 4.1.0', { 'unleash-client-spec': '4.1.0' }]] as const) {
    const res = await getClientFeatures(server, token, '', headers)
    expectStatus(t, res, 200, what)
    const [strategy] = res.body.features[0].strategies
    t.same(strategy.constraints.map((c: any) => c.contextName), ['appName', 'userId'], `${what}: the segment's constraints are appended`)
    t.notOk('segments' in strategy, `${what}: no segment ids`)
    t.notOk('segments' in res.body, `${what}: no segment list`)
    t.equal(res.body.query.inlineSegmentConstraints, true)
  }
  const res = await getClientFeatures(server, token, '', modern)
  const [strategy] = res.body.features[0].strategies
  t.same(strategy.constraints.map((c: any) => c.contextName), ['appName'], 'spec 5.2.0: only its own constraints')
  t.same(strategy.segments, [segment.id])
  t.match(res.body.segments, [{ id: segment.id, name: 'beta-users', constraints: [{ contextName: 'userId', values: ['seg-user'] }] }])
  t.equal(res.body.query.inlineSegmentConstraints, false)
  const single = await getClientFeature(server, token, 'segmented')
  t.same(single.body.strategies[0].constraints.map((c: any) => c.contextName), ['appName', 'userId'], 'the single-flag endpoint inlines too')

  for (const spec of ['not-semver', 'x1.2.3']) {
    expectError(t, await getClientFeatures(server, token, '', { 'unleash-client-spec': spec }), { status: 400, message: `Invalid prefix in the Unleash-Client-Spec header: "${spec}".` }, spec)
  }
  expectError(t, await getClientFeatures(server, token, '', { 'unleash-client-spec': '5.x' }), { status: 400, message: 'Invalid SemVer in the Unleash-Client-Spec header: "5.x".' }, '5.x')

  const sdk = await startSdk(t, server.baseUrl, token, { appName: 'it-segments' })
  t.equal(sdk.isEnabled('segmented', { userId: 'seg-user' }), true, 'the SDK applies the segment: member')
  t.equal(sdk.isEnabled('segmented', { userId: 'someone-else' }), false, 'the SDK applies the segment: non-member')
})
