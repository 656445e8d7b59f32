import t from 'tap'
import { api, clientToken, createFeature, createProject, expectOk, getClientFeatures, getFeature, listFeatureEvents, listEvents } from '../helpers/admin-api.js'
import {
  bulkTagFeatures,
  createTagType,
  deleteTagType,
  getTagType,
  listFeatureTags,
  listTagTypes,
  replaceFeatureTags,
  tagFeature,
  untagFeature,
  updateTagType,
} from '../helpers/curation-api.js'
import { expectError } from '../helpers/expect.js'
import { startTestServer } from '../helpers/server.js'

const server = await startTestServer(t)
const P = 'tagged'
expectOk(await createProject(server, { id: P, name: 'Tagged' }), 'create project')
expectOk(await createFeature(server, P, 'checkout'), 'create checkout')
expectOk(await createFeature(server, P, 'cart'), 'create cart')

t.test('tag types', async (t) => {
  t.test('GET /api/admin/tag-types has simple from the first start', async (t) => {
    const res = await listTagTypes(server)
    t.equal(res.status, 200)
    t.equal(res.body.version, 1)
    t.same(res.body.tagTypes.find((x: { name: string }) => x.name === 'simple'), { name: 'simple', description: 'Used to simplify filtering of features', icon: '#' })
  })

  t.test('POST creates (201), GET reads, PUT updates, a duplicate is a 409', async (t) => {
    const created = await createTagType(server, { name: 'team', description: 'Owning team' })
    t.equal(created.status, 201)
    t.same(created.body, { name: 'team', description: 'Owning team', icon: null })
    t.equal(created.headers.get('location'), 'tag-types/team')
    expectError(t, await createTagType(server, { name: 'team' }), { status: 409, name: 'NameExistsError', message: 'There already exists a tag-type with the name team' })
    t.same((await getTagType(server, 'team')).body, { version: 1, tagType: { name: 'team', description: 'Owning team', icon: null } })
    t.equal((await updateTagType(server, 'team', { description: 'The team', icon: 'T' })).status, 200)
    t.same((await getTagType(server, 'team')).body.tagType, { name: 'team', description: 'The team', icon: 'T' })
    expectError(t, await getTagType(server, 'nope'), { status: 404, name: 'NotFoundError', message: 'Tagtype nope could not be found' })
    expectError(t, await createTagType(server, { name: 'x' }), { status: 400 }, 'a one-character name')
  })

  t.test('events: tag-type-created / -updated / -deleted', async (t) => {
    expectOk(await createTagType(server, { name: 'shortlived' }), 'create')
    expectOk(await updateTagType(server, 'shortlived', { description: 'soon gone' }), 'update')
    expectOk(await deleteTagType(server, 'shortlived'), 'delete')
    const events = (await listEvents(server)).body.events.filter((e: { data: any; preData: any }) => (e.data ?? e.preData)?.name === 'shortlived')
    t.same(events.map((e: { type: string }) => e.type), ['tag-type-deleted', 'tag-type-updated', 'tag-type-created'])
    expectError(t, await getTagType(server, 'shortlived'), { status: 404 })
  })
})

t.test('tags on flags', async (t) => {
  t.test('POST tags a flag (201), again is 201 too; GET lists; the admin flag shape carries them', async (t) => {
    const first = await tagFeature(server, 'checkout', { type: 'simple', value: 'payments' })
    t.equal(first.status, 201)
    t.same(first.body, { value: 'payments', type: 'simple' })
    t.equal((await tagFeature(server, 'checkout', { type: 'simple', value: 'payments' })).status, 201, 'again: still 201')
    t.same((await listFeatureTags(server, 'checkout')).body, { version: 1, tags: [{ value: 'payments', type: 'simple' }] })
    t.same((await getFeature(server, P, 'checkout')).body.tags, [{ value: 'payments', type: 'simple' }])
    const events = (await listFeatureEvents(server, 'checkout')).body.events.map((e: { type: string }) => e.type)
    // Unleash 8.2 side by side: re-adding a tag the flag has records a second feature-tagged.
    t.same(events.filter((type: string) => type === 'feature-tagged').length, 2, 'a feature-tagged event per POST')
    const all = (await listEvents(server)).body.events
    t.ok(all.some((e: any) => e.type === 'tag-created' && e.data?.value === 'payments'), 'tag-created recorded for the new tag')
  })

  t.test("an unknown tag type is a 400 naming it; value and type are 2 to 50 characters", async (t) => {
    expectError(t, await tagFeature(server, 'checkout', { type: 'nosuch', value: 'abc' }), { status: 400, message: /Tag type 'nosuch' does not exist/ })
    expectError(t, await tagFeature(server, 'checkout', { type: 'simple', value: 'a' }), { status: 400 }, 'value of 1 character')
    expectError(t, await tagFeature(server, 'checkout', { type: 'simple', value: 'v'.repeat(51) }), { status: 400 }, 'value of 51 characters')
    expectError(t, await tagFeature(server, 'checkout', { type: 't', value: 'abc' }), { status: 400 }, 'type of 1 character')
    expectError(t, await tagFeature(server, 'nope', { type: 'simple', value: 'abc' }), { status: 404 }, 'unknown flag')
  })

  t.test('PUT replaces the set; PUT {addedTags, removedTags} applies changes; DELETE removes one', async (t) => {
    const replaced = await replaceFeatureTags(server, 'cart', [{ type: 'simple', value: 'one' }, { type: 'team', value: 'squad' }])
    t.equal(replaced.status, 200)
    t.same(replaced.body.tags, [{ value: 'one', type: 'simple' }, { value: 'squad', type: 'team' }])
    const changed = await replaceFeatureTags(server, 'cart', { addedTags: [{ type: 'simple', value: 'two' }], removedTags: [{ type: 'simple', value: 'one' }] })
    t.same(changed.body.tags, [{ value: 'squad', type: 'team' }, { value: 'two', type: 'simple' }])
    t.equal((await untagFeature(server, 'cart', 'simple', 'two')).status, 200)
    t.same((await listFeatureTags(server, 'cart')).body.tags, [{ value: 'squad', type: 'team' }])
    t.equal((await untagFeature(server, 'cart', 'simple', 'never-there')).status, 200, 'removing an absent tag is a 200')
    const types = (await listFeatureEvents(server, 'cart')).body.events.map((e: { type: string }) => e.type)
    t.ok(types.includes('feature-untagged'))
  })

  t.test('bulk PUT /api/admin/projects/:projectId/tags', async (t) => {
    t.equal((await bulkTagFeatures(server, P, { features: ['checkout', 'cart'], tags: { addedTags: [{ type: 'simple', value: 'bulk' }], removedTags: [] } })).status, 200)
    t.ok((await listFeatureTags(server, 'cart')).body.tags.some((x: { value: string }) => x.value === 'bulk'))
    expectError(t, await bulkTagFeatures(server, P, { features: ['ghost'], tags: { addedTags: [], removedTags: [] } }), {
      status: 400,
      message: /Tried to change tags of feature not belonging to project/,
    })
  })

  t.test('events about a flag carry its current tags (SEMANTICS 9.1)', async (t) => {
    const feature = 'tagged-events'
    expectOk(await createFeature(server, P, feature), 'create')
    expectOk(await tagFeature(server, feature, { type: 'simple', value: 'carried' }), 'tag')
    expectOk(await api(server, 'PUT', `/api/admin/projects/${P}/features/${feature}`, { description: 'changed' }), 'update')
    const [latest] = (await listFeatureEvents(server, feature)).body.events
    t.equal(latest.type, 'feature-metadata-updated')
    t.same(latest.tags, [{ type: 'simple', value: 'carried' }])
  })

  t.test("the client API's tag filter sees tags", async (t) => {
    const token = await clientToken(server, [P])
    const filtered = await getClientFeatures(server, token, '?tag=simple:payments')
    t.same(filtered.body.features.map((f: { name: string }) => f.name), ['checkout'])
    expectOk(await untagFeature(server, 'checkout', 'simple', 'payments'), 'untag')
    const after = await getClientFeatures(server, token, '?tag=simple:payments')
    t.same(after.body.features, [], 'untagged: no longer matched')
  })

  t.test('deleting a tag type takes its tags off every flag first', async (t) => {
    expectOk(await createTagType(server, { name: 'doomed' }), 'create type')
    expectOk(await tagFeature(server, 'checkout', { type: 'doomed', value: 'aa' }), 'tag checkout')
    expectOk(await tagFeature(server, 'cart', { type: 'doomed', value: 'bb' }), 'tag cart')
    t.equal((await deleteTagType(server, 'doomed')).status, 200)
    for (const f of ['checkout', 'cart']) {
      t.notOk((await listFeatureTags(server, f)).body.tags.some((x: { type: string }) => x.type === 'doomed'), `${f} lost its doomed tag`)
    }
  })
})
