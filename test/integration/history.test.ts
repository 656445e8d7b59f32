import t from 'tap'
import {
  addStrategy,
  api,
  clientToken,
  createFeature,
  createProject,
  enableFeature,
  expectOk,
  getClientFeatures,
  getFeature,
  updateFeature,
  updateStrategy,
  type ServerRef,
} from '../helpers/admin-api.js'
import { startTestServer } from '../helpers/server.js'

const P = 'history'
const F = 'checkout'
const head = async (server: ServerRef): Promise<number> => (await api(server, 'GET', '/api/admin/events/head')).body.id
const pause = () => new Promise((resolve) => setTimeout(resolve, 15))
const featureAt = (server: ServerRef, at: string | number) => api(server, 'GET', `/api/admin/projects/${P}/features/${F}?at=${encodeURIComponent(String(at))}`)

t.test('?at= shows a flag, and what SDKs were served, as they were just after an event', async (t) => {
  // Snapshots every few events, so that some points are rebuilt from a snapshot and some from the start.
  const server = await startTestServer(t, { env: { SNAPSHOT_EVERY: '3' } })
  expectOk(await createProject(server, { id: P, name: P }), 'create project')
  const sdk = await clientToken(server, [P])
  const beforeFlag = await head(server)
  expectOk(await createFeature(server, P, { name: F, description: 'first' }), 'create feature')
  const strategy = expectOk(await addStrategy(server, P, F, 'development', { name: 'flexibleRollout', parameters: { rollout: '25', stickiness: 'default', groupId: F } }), 'add strategy').body
  expectOk(await enableFeature(server, P, F, 'development'), 'enable')
  const first = { id: await head(server), feature: (await getFeature(server, P, F)).body, client: (await getClientFeatures(server, sdk)).body }
  await pause()
  const firstTime = new Date().toISOString()
  await pause()

  expectOk(await updateFeature(server, P, F, { description: 'second', type: 'kill-switch' }), 'update feature')
  expectOk(await updateStrategy(server, P, F, 'development', strategy.id, { name: 'flexibleRollout', parameters: { rollout: '75', stickiness: 'default', groupId: F } }), 'update strategy')
  expectOk(await api(server, 'POST', `/api/admin/features/${F}/tags`, { type: 'simple', value: 'beta' }), 'tag')
  const second = { id: await head(server), feature: (await getFeature(server, P, F)).body, client: (await getClientFeatures(server, sdk)).body }
  t.not(second.feature.description, first.feature.description, 'the flag did change')

  t.same((await featureAt(server, first.id)).body, first.feature, 'by event id: the GET answer of that moment')
  t.same((await featureAt(server, firstTime)).body, first.feature, 'by ISO time: the last event at or before it')
  t.same((await featureAt(server, second.id)).body, second.feature)
  t.equal((await featureAt(server, first.id)).body.environments[0].strategies[0].parameters.rollout, '25')

  const created = (await featureAt(server, beforeFlag)).body
  t.equal((await featureAt(server, beforeFlag)).status, 404, 'the flag did not exist yet')
  t.match(created.message, `did not exist just after event ${beforeFlag}`)

  const served = await getClientFeatures(server, server.adminToken, `?at=${first.id}`)
  t.equal(served.status, 200)
  t.same(served.body.features, first.client.features, 'what SDKs were served then')
  t.same((await getClientFeatures(server, server.adminToken, `?at=${second.id}`)).body.features, second.client.features)
})

t.test('?at= is refused with 400 naming "at" when it is neither an event id nor a date-time, or in the future; on client features it needs an admin token', async (t) => {
  const server = await startTestServer(t)
  expectOk(await createProject(server, { id: P, name: P }), 'create project')
  expectOk(await createFeature(server, P, F), 'create feature')
  const newest = await head(server)
  for (const bad of ['yesterday', '0', '-3', '2024-13-45T00:00:00Z', '1.5']) {
    const res = await featureAt(server, bad)
    t.equal(res.status, 400, bad)
    t.match(res.body.message, /^"at" must be/, bad)
  }
  const future = await featureAt(server, newest + 1)
  t.equal(future.status, 400)
  t.equal(future.body.message, `"at": there is no event ${newest + 1}; the newest is ${newest}`)

  const sdk = await clientToken(server, [P])
  t.equal((await getClientFeatures(server, sdk, `?at=${newest}`)).status, 403, 'a client token cannot look back')
  t.equal((await getClientFeatures(server, server.adminToken)).status, 403, 'an admin token still cannot poll the present')
  t.equal((await getClientFeatures(server, sdk)).status, 200)
})
