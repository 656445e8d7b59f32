import t from 'tap'
import {
  archiveFeature,
  createFeature,
  createProject,
  deleteArchivedFeature,
  expectOk,
  listArchivedFeatures,
  listFeatureEvents,
  reviveFeature,
} from '../helpers/admin-api.js'
import { tagFeature } from '../helpers/curation-api.js'
import { startTestServer } from '../helpers/server.js'

const server = await startTestServer(t)
expectOk(await createProject(server, { id: 'shelf', name: 'Shelf' }), 'create shelf')
expectOk(await createProject(server, { id: 'other', name: 'Other' }), 'create other')
for (const [project, name] of [['shelf', 'a'], ['shelf', 'b'], ['other', 'c']]) expectOk(await createFeature(server, project, name), `create ${name}`)
expectOk(await tagFeature(server, 'a', { type: 'simple', value: 'kept-tag' }), 'tag a')
for (const [project, name] of [['shelf', 'a'], ['other', 'c']]) expectOk(await archiveFeature(server, project, name), `archive ${name}`)

t.test('GET /api/admin/archive/features/:projectId lists the archived flags of the project (INTERFACE 4.1)', async (t) => {
  const res = await listArchivedFeatures(server, 'shelf')
  t.equal(res.status, 200)
  t.equal(res.body.version, 2)
  t.same(res.body.features.map((f: { name: string }) => f.name), ['a'])
  t.match(res.body.features[0], { name: 'a', project: 'shelf', archived: true, stale: false, lifecycle: { stage: 'archived' }, tags: [{ type: 'simple', value: 'kept-tag' }] })
  t.type(res.body.features[0].archivedAt, 'string')
  t.same((await listArchivedFeatures(server, 'nope')).body.features, [], 'an unknown project: empty')
})

t.test('GET /api/admin/archive/features lists every archived flag', async (t) => {
  const names = (await listArchivedFeatures(server)).body.features.map((f: { name: string }) => f.name).sort()
  t.same(names, ['a', 'c'])
})

t.test('revive and delete write feature-revived and feature-deleted (with the tags)', async (t) => {
  t.equal((await reviveFeature(server, 'c')).status, 200)
  t.same((await listArchivedFeatures(server, 'other')).body.features, [])
  t.equal((await listFeatureEvents(server, 'c')).body.events[0].type, 'feature-revived')
  t.equal((await deleteArchivedFeature(server, 'a')).status, 200)
  const [deleted] = (await listFeatureEvents(server, 'a')).body.events
  t.match(deleted, { type: 'feature-deleted', project: 'shelf', featureName: 'a', preData: { name: 'a' }, tags: [{ type: 'simple', value: 'kept-tag' }] })
  t.same((await listArchivedFeatures(server, 'shelf')).body.features, [])
})
