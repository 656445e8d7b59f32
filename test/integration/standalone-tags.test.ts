import t from 'tap'
import { api, createFeature, expectOk, listEvents } from '../helpers/admin-api.js'
import { makeDataDir, randomAdminToken, startTestServer } from '../helpers/server.js'

const tagsListed = async (server: Parameters<typeof api>[0]) => (await api(server, 'GET', '/api/admin/tags')).body.tags as { type: string; value: string }[]

t.test('POST /api/admin/tags creates a tag no flag carries; DELETE untags every flag and removes it; both survive a restart', async (t) => {
  const dataDir = makeDataDir(t)
  const adminToken = randomAdminToken()
  const server = await startTestServer(t, { mode: 'child', dataDir, adminToken })

  const created = await api(server, 'POST', '/api/admin/tags', { type: 'simple', value: 'launch' })
  t.equal(created.status, 201)
  t.same(created.body, { version: 1, tag: { value: 'launch', type: 'simple' } })
  t.same(await tagsListed(server), [{ value: 'launch', type: 'simple' }], 'listed though no flag carries it')
  t.match((await listEvents(server)).body.events[0], { type: 'tag-created', data: { type: 'simple', value: 'launch' } })
  t.equal((await api(server, 'POST', '/api/admin/tags', { type: 'simple', value: 'launch' })).status, 409, 'a tag that exists is a 409')
  t.equal((await api(server, 'POST', '/api/admin/tags', { type: 'no-such-type', value: 'xy' })).status, 404, 'a tag type that does not exist is a 404')

  expectOk(await createFeature(server, 'default', 'tagged'), 'a flag')
  expectOk(await api(server, 'POST', '/api/admin/features/tagged/tags', { type: 'simple', value: 'launch' }), 'tag it')
  await server.stop()
  const again = await startTestServer(t, { mode: 'child', dataDir, adminToken })
  t.same(await tagsListed(again), [{ value: 'launch', type: 'simple' }], 'kept over a restart')

  t.equal((await api(again, 'DELETE', '/api/admin/tags/simple/launch')).status, 200)
  t.same((await api(again, 'GET', '/api/admin/features/tagged/tags')).body.tags, [], 'the flag no longer carries it')
  t.same(await tagsListed(again), [], 'and it is gone')
  const types = (await listEvents(again)).body.events.slice(0, 2).map((e: { type: string }) => e.type)
  t.same(types, ['tag-deleted', 'feature-untagged'], 'the untagging and the deletion, in one append')
  await again.stop()
  const third = await startTestServer(t, { mode: 'child', dataDir, adminToken })
  t.same(await tagsListed(third), [], 'still gone after a restart')
})
