import t from 'tap'
import { clientToken, createFeature, createProject, expectOk, getClientFeatures } from '../helpers/admin-api.js'
import { startTestServer } from '../helpers/server.js'

const server = await startTestServer(t)

const timed = async <T>(request: () => Promise<T>): Promise<{ res: T; elapsed: number }> => {
  const started = performance.now()
  const res = await request()
  return { res, elapsed: performance.now() - started }
}

t.test('namePrefix is matched in linear time and bounded in length', async (t) => {
  expectOk(await createProject(server, { id: 'like', name: 'Like' }), 'project')
  for (let i = 1; i <= 30; i++) expectOk(await createFeature(server, 'like', `${'a'.repeat(78)}${i}`.slice(0, 80)), `flag ${i}`)
  const token = await clientToken(server, ['like'])
  const prefix = encodeURIComponent('%a'.repeat(25) + '%b')
  // Backtracking over 25 wildcards and 80-character names takes hours; linear matching takes about as
  // long as a plain prefix. The bound is relative to a plain request timed just before, so that a busy
  // machine slows both alike.
  const plain = await timed(() => getClientFeatures(server, token, '?namePrefix=a'))
  const { res, elapsed } = await timed(() => getClientFeatures(server, token, `?namePrefix=${prefix}`))
  t.equal(res.status, 200)
  t.same(res.body.features, [])
  t.ok(elapsed < 1000 + 20 * plain.elapsed, `answered in ${elapsed.toFixed(1)} ms (a plain prefix: ${plain.elapsed.toFixed(1)} ms)`)
  const matching = await getClientFeatures(server, token, `?namePrefix=${encodeURIComponent('a%1')}`)
  t.equal(matching.body.features.length, 12, 'a%1 still matches the names with a 1 after the a run (1, 10-19, 21)')

  // Past 4 KB of request line and headers uWebSockets.js answers 431 itself (20.30 closes) before any route.
  const huge = await getClientFeatures(server, token, `?namePrefix=${'_'.repeat(3000)}`)
  t.equal(huge.status, 400)
  t.equal(huge.body.name, 'BadDataError')
  t.match(huge.body.message, /namePrefix/)
})

t.test('a catastrophic naming pattern is compiled with RE2 and answers at once', async (t) => {
  expectOk(await createProject(server, { id: 'naming', name: 'Naming', featureNaming: { pattern: '(a+)+' } }), 'project')
  // (a+)+ against 30 a's and a dash backtracks 2^30 times in a backtracking engine (minutes).
  const plain = await timed(() => createFeature(server, 'naming', 'aaa'))
  const { res, elapsed } = await timed(() => createFeature(server, 'naming', `${'a'.repeat(30)}-`))
  t.equal(res.status, 400)
  t.equal(res.body.name, 'PatternError')
  t.ok(elapsed < 1000 + 20 * plain.elapsed, `refused in ${elapsed.toFixed(1)} ms (a plain create: ${plain.elapsed.toFixed(1)} ms)`)
  expectOk(await createFeature(server, 'naming', 'aaaa'), 'a matching name is accepted')
})

t.test('a lone UTF-16 surrogate in a body is a 400 where a name is expected, and kept intact elsewhere', async (t) => {
  const post = (path: string, body: string) => fetch(server.baseUrl + path, { method: 'POST', headers: { authorization: server.adminToken, 'content-type': 'application/json' }, body })
  const importBody = '{"project":"default","environment":"development","data":{"features":[{"name":"x\\udfff","project":"default"}],"featureStrategies":[],"featureEnvironments":[],"featureTags":[],"tagTypes":[],"contextFields":[],"segments":[],"dependencies":[]}}'
  for (const [path, body] of [
    ['/api/admin/features-batch/validate', importBody],
    ['/api/admin/features-batch/import', importBody],
    ['/api/admin/projects', '{"id":"p\\udfff","name":"n"}'],
    ['/api/admin/context', '{"name":"c\\ud800"}'],
    ['/api/admin/tag-types', '{"name":"t\\ud800"}'],
  ]) {
    const res = await post(path, body)
    t.equal(res.status, 400, `${path}: 400`)
    t.match(await res.json(), { name: /Error$/, message: /URL friendly/ })
  }
  const described = await post('/api/admin/projects/default/features', '{"name":"surrogate-described","description":"d\\ud800"}')
  t.equal(described.status, 201)
  t.equal((await described.json()).description, 'd\ud800', 'a description keeps the very string sent')
})
