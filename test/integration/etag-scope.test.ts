import t from 'tap'
import { clientToken, createFeature, createProject, enableFeature, getClientFeatures } from '../helpers/admin-api.js'
import { startTestServer } from '../helpers/server.js'

const spec = { 'Unleash-Client-Spec': '5.2.0' }

t.test('an SDK\'s ETag moves only with changes in its own environment and projects', async (t) => {
  const server = await startTestServer(t)
  await createProject(server, { id: 'other', name: 'Other' })
  await createFeature(server, 'default', 'mine')
  await createFeature(server, 'other', 'theirs')
  const development = await clientToken(server, ['default'], 'development')
  const etagOf = async () => (await getClientFeatures(server, development, '', spec)).headers.get('etag') ?? 'none'
  const before = await etagOf()

  await enableFeature(server, 'default', 'mine', 'production')
  t.equal(await etagOf(), before, 'a change in production leaves the development ETag alone')
  await enableFeature(server, 'other', 'theirs', 'development')
  t.equal(await etagOf(), before, 'a change in another project leaves a one-project token\'s ETag alone')
  const unchanged = await getClientFeatures(server, development, '', { ...spec, 'If-None-Match': before })
  t.equal(unchanged.status, 304, 'so the SDK keeps getting 304')

  await enableFeature(server, 'default', 'mine', 'development')
  const after = await etagOf()
  t.not(after, before, 'a change it can see moves it')
  const body = (await getClientFeatures(server, development, '', spec)).body
  t.equal(body.features.find((f: { name: string }) => f.name === 'mine').enabled, true)
})
