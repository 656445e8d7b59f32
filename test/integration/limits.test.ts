import t from 'tap'
import { archiveFeature, createFeature, createProject, expectOk } from '../helpers/admin-api.js'
import { startTestServer } from '../helpers/server.js'

t.test("Unleash's resource limits are set by its variables", async (t) => {
  const server = await startTestServer(t, { env: { UNLEASH_FEATURE_FLAGS_LIMIT: '3', UNLEASH_PROJECTS_LIMIT: '2' } })
  for (const name of ['one', 'two', 'three']) expectOk(await createFeature(server, 'default', name), name)
  const fourth = await createFeature(server, 'default', 'four')
  t.equal(fourth.status, 400)
  t.equal(fourth.body.name, 'ExceedsLimitError')
  t.match(fourth.body.message, /limit of 3\b/)
  expectOk(await createProject(server, { id: 'second', name: 'Second' }), 'the second project')
  const third = await createProject(server, { id: 'third', name: 'Third' })
  t.equal(third.status, 400)
  t.match(third.body.message, /limit of 2\b/)
})

t.test('the flag limit counts active flags in every project: archived ones make room, a flag in another project takes it', async (t) => {
  const server = await startTestServer(t, { env: { UNLEASH_FEATURE_FLAGS_LIMIT: '3' } })
  expectOk(await createProject(server, { id: 'second', name: 'Second' }), 'a second project')
  expectOk(await createFeature(server, 'default', 'one'), 'one')
  expectOk(await createFeature(server, 'second', 'two'), 'two, in the second project')
  expectOk(await createFeature(server, 'default', 'three'), 'three')
  t.equal((await createFeature(server, 'second', 'four')).status, 400, 'the limit spans projects')
  expectOk(await archiveFeature(server, 'default', 'one'), 'archive one')
  expectOk(await createFeature(server, 'second', 'four'), 'an archived flag makes room, though it is still stored')
  t.equal((await createFeature(server, 'default', 'five')).status, 400, 'full again')
})
