import { randomBytes } from 'node:crypto'
import t from 'tap'
import { api, clientToken, createFeature, createProject, expectOk, getClientFeatures, request, type ServerRef } from '../helpers/admin-api.js'
import { startTestServer } from '../helpers/server.js'

const scrape = (server: ServerRef, token: string | null = null) => request(server, { method: 'GET', path: '/internal-backstage/prometheus', token })

// "name{labels}" → value, for every sample line.
const samples = (text: string): Map<string, number> => {
  const found = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const at = line.lastIndexOf(' ')
    found.set(line.slice(0, at), Number(line.slice(at + 1)))
  }
  return found
}

const families = (text: string): Set<string> => new Set(Array.from(text.matchAll(/^# TYPE (\S+) /gm), (m) => m[1]))

t.test('the scrape has the families, counts SDK polls and commits, and random paths add no series', async (t) => {
  const server = await startTestServer(t)
  const first = await scrape(server)
  t.equal(first.status, 200, 'open on loopback without a token')
  t.match(first.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  const names = families(first.text)
  for (const family of [
    'flagwright_http_request_duration_seconds', 'flagwright_http_requests_total', 'flagwright_sdk_polls_total',
    'flagwright_evaluations_total', 'flagwright_events_appended_total', 'flagwright_commit_duration_seconds',
    'flagwright_snapshot_age_events', 'flagwright_snapshot_age_seconds', 'flagwright_log_records', 'flagwright_data_file_bytes',
    'process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds',
  ]) {
    t.ok(names.has(family), family)
  }

  const headBefore = (await api(server, 'GET', '/api/admin/events/head')).body.id
  const before = samples((await scrape(server)).text)
  expectOk(await createProject(server, { id: 'prom', name: 'prom' }), 'create project')
  expectOk(await createFeature(server, 'prom', 'one'), 'create feature')
  const sdk = await clientToken(server, ['prom'])
  const headAfter = (await api(server, 'GET', '/api/admin/events/head')).body.id

  const full = await getClientFeatures(server, sdk, '', { 'accept-encoding': 'identity' })
  t.equal(full.status, 200)
  const etag = full.headers.get('etag')!
  t.equal((await getClientFeatures(server, sdk, '', { 'if-none-match': etag })).status, 304)
  t.equal((await getClientFeatures(server, sdk, '', { 'if-none-match': etag })).status, 304)
  await api(server, 'POST', '/api/frontend', {}, 'no such token')

  const after = samples((await scrape(server)).text)
  const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0)
  t.equal(delta('flagwright_sdk_polls_total{outcome="200"}'), 1)
  t.equal(delta('flagwright_sdk_polls_total{outcome="304"}'), 2)
  t.equal(delta('flagwright_events_appended_total'), headAfter - headBefore, 'every committed event is counted')
  t.equal(after.get('flagwright_log_records'), headAfter)
  t.equal(delta('flagwright_commit_duration_seconds_count'), 3, 'one commit per write command')
  t.equal(delta('flagwright_http_requests_total{method="GET",route="/api/client/features",status="304"}'), 2)
  t.equal(delta('flagwright_http_request_duration_seconds_count{method="GET",route="/api/client/features",status="200"}'), 1)
  t.equal(delta('flagwright_http_requests_total{method="POST",route="/api/frontend",status="401"}'), 1)

  // One of each shape first: its series appears once, whatever path is tried after it.
  const randomPaths = () => [
    `/${randomBytes(6).toString('hex')}/${randomBytes(4).toString('hex')}`,
    `/api/admin/projects/${randomBytes(6).toString('hex')}/features/${randomBytes(6).toString('hex')}`,
    `/api/client/features/${randomBytes(6).toString('hex')}`,
  ]
  for (const path of randomPaths()) await request(server, { method: 'GET', path })
  const seriesBefore = [...samples((await scrape(server)).text).keys()].filter((k) => k.startsWith('flagwright_')).sort()
  for (let i = 0; i < 100; i++) await Promise.all(randomPaths().map((path) => request(server, { method: 'GET', path })))
  const seriesAfter = [...samples((await scrape(server)).text).keys()].filter((k) => k.startsWith('flagwright_')).sort()
  t.same(seriesAfter, seriesBefore, '300 random paths add no series')
  t.notOk(seriesAfter.some((k) => /[0-9a-f]{12}/.test(k)), 'no raw path in a label')
})

t.test('with METRICS_TOKEN the scrape needs the token, unless the address is allowed', async (t) => {
  const secret = randomBytes(16).toString('hex')
  const guarded = await startTestServer(t, { env: { METRICS_TOKEN: secret } })
  const refused = await scrape(guarded)
  t.equal(refused.status, 401)
  t.match(refused.body, { name: 'AuthenticationRequired', message: /METRICS_TOKEN/ })
  t.equal((await scrape(guarded, 'wrong')).status, 401)
  t.equal((await scrape(guarded, `Bearer ${secret}`)).status, 200)
  t.equal((await scrape(guarded, secret)).status, 200)

  const allowed = await startTestServer(t, { env: { METRICS_TOKEN: secret, METRICS_ALLOW: '127.0.0.0/8' } })
  t.equal((await scrape(allowed)).status, 200, 'an allowed address needs no token')
})
