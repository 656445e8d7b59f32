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
  listEvents,
  listFeatures,
  request,
  type ServerRef,
} from '../helpers/admin-api.js'
import { createTagType, exportFeatures, importFeatures, tagFeature, validateImport } from '../helpers/curation-api.js'
import { expectError } from '../helpers/expect.js'
import { startTestServer } from '../helpers/server.js'

const P = 'shop'
const env = 'production'

// A project with what an export carries: strategies with constraints on a custom context field and a
// segment, strategy and environment variants, tags of a custom type, a dependency, a stale flag.
const buildShop = async (s: ServerRef) => {
  expectOk(await createProject(s, { id: P, name: 'Shop' }), 'create project')
  expectOk(await api(s, 'POST', '/api/admin/context', { name: 'region', legalValues: [{ value: 'eu' }, { value: 'us' }] }), 'context field')
  expectOk(await api(s, 'POST', '/api/admin/segments', { name: 'beta-users', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1', '2'] }] }), 'segment')
  const segmentId = (await api(s, 'GET', '/api/admin/segments')).body.segments[0].id
  expectOk(await createTagType(s, { name: 'team', description: 'Owning team' }), 'tag type')
  expectOk(await createFeature(s, P, { name: 'checkout', type: 'experiment', description: 'New checkout', impressionData: true }), 'checkout')
  expectOk(
    await addStrategy(s, P, 'checkout', env, {
      name: 'flexibleRollout',
      parameters: { rollout: '40', stickiness: 'userId', groupId: 'checkout' },
      constraints: [{ contextName: 'region', operator: 'IN', values: ['eu'] }],
      segments: [segmentId],
      variants: [{ name: 'blue', weight: 500, weightType: 'variable', stickiness: 'userId' }, { name: 'green', weight: 500, weightType: 'variable', stickiness: 'userId' }],
    }),
    'strategy',
  )
  expectOk(await addStrategy(s, P, 'checkout', env, { name: 'userWithId', parameters: { userIds: '42' } }), 'second strategy')
  expectOk(await enableFeature(s, P, 'checkout', env), 'enable checkout')
  expectOk(await api(s, 'PUT', `/api/admin/projects/${P}/features/checkout/variants-batch`, { variants: [{ name: 'a', weight: 1000 }], environments: [env] }), 'env variants')
  expectOk(await createFeature(s, P, 'banner'), 'banner')
  expectOk(await addStrategy(s, P, 'banner', env), 'banner strategy')
  expectOk(await tagFeature(s, 'banner', { type: 'team', value: 'growth' }), 'tag banner')
  expectOk(await tagFeature(s, 'checkout', { type: 'simple', value: 'payments' }), 'tag checkout')
  expectOk(await createFeature(s, P, 'banner-child'), 'child')
  expectOk(await addStrategy(s, P, 'banner-child', env), 'child strategy')
  expectOk(await enableFeature(s, P, 'banner-child', env), 'enable child')
  expectOk(await api(s, 'POST', `/api/admin/projects/${P}/features/banner-child/dependencies`, { feature: 'banner', enabled: false }), 'dependency')
  expectOk(await createFeature(s, P, 'retired'), 'retired')
  expectOk(await api(s, 'POST', `/api/admin/projects/${P}/stale`, { features: ['retired'], stale: true }), 'stale')
}

const clientPayload = async (s: ServerRef) => {
  const token = await clientToken(s, [P], env)
  const res = await getClientFeatures(s, token, '', { 'unleash-client-spec': '5.2.0' })
  const { meta: _meta, ...rest } = res.body
  return rest
}

const source = await startTestServer(t)
await buildShop(source)
const names = ['checkout', 'banner', 'banner-child', 'retired']

t.test('export: Unleash format, features-exported recorded, downloadFile names an attachment', async (t) => {
  const res = await exportFeatures(source, { features: names, environment: env })
  t.equal(res.status, 200)
  t.same(Object.keys(res.body).sort(), ['contextFields', 'dependencies', 'featureEnvironments', 'featureStrategies', 'featureTags', 'features', 'segments', 'tagTypes'])
  t.same(res.body.features.map((f: { name: string }) => f.name), names)
  t.equal(res.body.featureStrategies.length, 4)
  t.same(res.body.contextFields.map((f: { name: string }) => f.name).sort(), ['region', 'userId'])
  t.same(res.body.segments, [{ id: 1, name: 'beta-users' }])
  t.same(res.body.tagTypes.map((x: { name: string }) => x.name).sort(), ['simple', 'team'])
  t.same(res.body.featureTags, [
    { featureName: 'checkout', tagType: 'simple', tagValue: 'payments' },
    { featureName: 'banner', tagType: 'team', tagValue: 'growth' },
  ])
  t.same(res.body.dependencies, [{ feature: 'banner-child', dependencies: [{ feature: 'banner', enabled: false, variants: [] }] }])
  const [event] = (await listEvents(source)).body.events
  t.equal(event.type, 'features-exported')
  t.same(event.data, res.body)
  const download = await exportFeatures(source, { features: ['banner'], environment: env, downloadFile: true })
  t.match(download.headers.get('content-disposition'), /^attachment; filename=export-.*\.json$/)
  const byProject = await exportFeatures(source, { project: P, environment: env })
  t.same(byProject.body.features.map((f: { name: string }) => f.name).sort(), [...names].sort())
  const byTag = await exportFeatures(source, { tag: 'team:growth', environment: env })
  t.same(byTag.body.features.map((f: { name: string }) => f.name), ['banner'])
})

t.test('an exported project imports into a fresh instance with the same client features response', async (t) => {
  const exported = (await exportFeatures(source, { features: names, environment: env })).body
  const target = await startTestServer(t)
  expectOk(await createProject(target, { id: P, name: 'Shop' }), 'target project')
  expectOk(await api(target, 'POST', '/api/admin/segments', { name: 'beta-users', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1', '2'] }] }), 'segment')
  const validation = await validateImport(target, { project: P, environment: env, data: exported })
  t.equal(validation.status, 200)
  t.same(validation.body, { errors: [], warnings: [], permissions: [] })
  const before = (await listEvents(target)).body.totalEvents
  const res = await importFeatures(target, { project: P, environment: env, data: exported })
  t.equal(res.status, 200, res.text)
  const listed = (await listEvents(target)).body
  const events = listed.events.slice(0, listed.totalEvents - before)
  const types = events.map((e: { type: string }) => e.type)
  t.equal(types[0], 'features-imported', `features-imported is the last event (${types.slice(0, 5).join(' ')})`)
  t.match(events[0], { project: P, environment: env })
  for (const type of ['feature-created', 'feature-strategy-add', 'feature-environment-enabled', 'feature-environment-variants-updated', 'feature-tagged', 'tag-created', 'tag-type-created', 'context-field-created', 'feature-dependency-added', 'feature-stale-on']) {
    t.ok(types.includes(type), `the import wrote ${type}`)
  }
  const ids = events.map((e: { id: number }) => e.id)
  const projectEvents = events.filter((e: { type: string }) => !['tag-type-created', 'context-field-created'].includes(e.type))
  const projectIds = projectEvents.map((e: { id: number }) => e.id).sort((a: number, b: number) => a - b)
  t.equal(projectIds[projectIds.length - 1] - projectIds[0] + 1, projectIds.length, "the project's events are one contiguous batch")
  t.ok(Math.max(...ids) === projectIds[projectIds.length - 1])
  t.same(await clientPayload(target), await clientPayload(source))

  t.test('importing the same data again changes nothing a client sees', async (t) => {
    const again = await importFeatures(target, { project: P, environment: env, data: exported })
    t.equal(again.status, 200)
    t.same(await clientPayload(target), await clientPayload(source))
    const warnings = (await validateImport(target, { project: P, environment: env, data: exported })).body.warnings
    t.same(warnings, [{ message: 'The following features already exist in this project and will be overwritten:', affectedItems: names }])
  })
})

t.test('a refused import changes nothing', async (t) => {
  const exported = (await exportFeatures(source, { features: names, environment: env })).body
  const target = await startTestServer(t)
  expectOk(await createProject(target, { id: P, name: 'Shop' }), 'target project')
  const validation = await validateImport(target, { project: P, environment: env, data: exported })
  t.same(validation.body.errors, [{ message: 'We detected the following segments that need to be created first:', affectedItems: ['beta-users'] }])
  const before = (await listEvents(target)).body.totalEvents
  expectError(t, await importFeatures(target, { project: P, environment: env, data: exported }), { status: 400, name: 'BadDataError', message: /segments that need to be created first: beta-users/ })
  t.equal((await listEvents(target)).body.totalEvents, before, 'no event was written')
  t.same((await listFeatures(target, P)).body.features, [])
  expectError(t, await importFeatures(target, { project: 'ghost', environment: env, data: exported }), { status: 404 })
  expectError(t, await importFeatures(target, { project: P, environment: env, data: { features: 'nope' } }), { status: 400 })
  const raw = await request(target, { method: 'POST', path: '/api/admin/features-batch/import', body: '{"project":', headers: { 'content-type': 'application/json' } })
  expectError(t, raw, { status: 400 }, 'malformed JSON')
})
