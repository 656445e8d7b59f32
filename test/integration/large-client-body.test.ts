import { gunzipSync } from 'node:zlib'
import { request } from 'node:http'
import t from 'tap'
import { api, clientToken, expectOk } from '../helpers/admin-api.js'
import { startSdk, untilChanged } from '../helpers/sdk.js'
import { startTestServer } from '../helpers/server.js'

// A client features body of many runs (read/client-features.ts): gzip is one member joined from the
// runs deflated each on its own. Real clients read it and the plain body, and a change reaches them.
t.setTimeout(120_000)

const server = await startTestServer(t, { env: { MAX_BODY_BYTES: String(8 << 20) } })
const P = 'large'
expectOk(await api(server, 'POST', '/api/admin/projects', { id: P, name: 'Large' }), 'create project')
const token = await clientToken(server, [P])

const count = 4400
const names = Array.from({ length: count }, (_, i) => `large-${String(i).padStart(5, '0')}`)
// About 1 KB of JSON a flag, as the bench's realistic flags: a 4.4 MB body, in runs of about 130 KB.
const description = 'x'.repeat(800)
for (let from = 0; from < count; from += 1100) {
  const batch = names.slice(from, from + 1100)
  const res = await api(server, 'POST', '/api/admin/features-batch/import', {
    project: P,
    environment: 'development',
    data: {
      features: batch.map((name) => ({ name, type: 'release', description, project: P })),
      featureStrategies: batch.map((name, i) => ({ featureName: name, name: 'flexibleRollout', parameters: { rollout: String(i % 101), stickiness: 'default', groupId: name }, constraints: [] })),
      featureEnvironments: batch.map((name) => ({ name, featureName: name, environment: 'development', enabled: true })),
      contextFields: [],
      featureTags: [],
      segments: [],
      tagTypes: [],
      dependencies: [],
    },
  })
  expectOk(res, `import from ${from}`)
}

// GET /api/client/features read raw (no decoding by the client), with its headers.
const fetchRaw = (headers: Record<string, string>) =>
  new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const req = request(`${server.baseUrl}/api/client/features`, { headers: { authorization: token, ...headers } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })

t.test('the plain body and the gzip answer are the same JSON, every flag in it', async (t) => {
  const plain = await fetchRaw({})
  t.equal(plain.status, 200)
  t.ok(plain.body.length > 4 << 20, `a body past 4 MB (${plain.body.length} bytes)`)
  t.equal(Number(plain.headers['content-length']), plain.body.length)
  const features = (JSON.parse(plain.body.toString()) as { features: { name: string }[] }).features
  t.same(features.map((f) => f.name), names)
  let gzip = await fetchRaw({ 'accept-encoding': 'gzip' })
  // The runs are deflated on the thread pool after the first ask: the plain body is sent until then.
  while (gzip.headers['content-encoding'] !== 'gzip') {
    await new Promise((resolve) => setTimeout(resolve, 20))
    gzip = await fetchRaw({ 'accept-encoding': 'gzip' })
  }
  t.ok(gzip.body.length < plain.body.length / 4, `gzip: ${gzip.body.length} bytes`)
  t.same(gunzipSync(gzip.body), plain.body, 'gzip inflates to the plain body')
  t.equal(gzip.headers.etag, plain.headers.etag)
})

t.test('fetch and the SDK read the gzip answer, and a change to one flag reaches them', async (t) => {
  const res = await fetch(`${server.baseUrl}/api/client/features`, { headers: { authorization: token, 'accept-encoding': 'gzip' } })
  t.equal((await res.json()).features.length, count, 'fetch: every flag')
  const sdk = await startSdk(t, server.baseUrl, token)
  t.equal(sdk.getFeatureToggleDefinitions().length, count, 'the SDK: every flag')
  t.equal(sdk.getFeatureToggleDefinition('large-03210')?.enabled, true, 'the SDK: the flag on')
  const off = untilChanged(sdk, () => sdk.getFeatureToggleDefinition('large-03210')?.enabled === false)
  expectOk(await api(server, 'POST', `/api/admin/projects/${P}/features/large-03210/environments/development/off`), 'switched off')
  const after = await fetchRaw({ 'accept-encoding': 'gzip' })
  t.equal(after.headers['content-encoding'], 'gzip', 'the gzip answer ready at once after a change')
  const flag = (JSON.parse(gunzipSync(after.body).toString()) as { features: { name: string; enabled: boolean }[] }).features.find((f) => f.name === 'large-03210')
  t.equal(flag?.enabled, false, 'with the change in it')
  const plain = JSON.parse((await fetchRaw({})).body.toString()) as { features: { name: string; enabled: boolean }[] }
  t.same(gunzipSync(after.body).toString(), JSON.stringify(plain), 'and the same as the plain body')
  await off
  t.pass('the SDK saw the flag off')
})
