import t from 'tap'
import { applyRecord, recover } from '../../src/actors/recovery.js'
import type { EventRecord } from '../../src/domain/events.js'
import { emptyInstance } from '../../src/domain/instance-state.js'
import { EventLog } from '../../src/store/log.js'
import { api, createFeature, createProject, expectOk, listEvents, listFeatureEvents, patchFeature, registerClient, type ServerRef } from '../helpers/admin-api.js'
import { expectError, expectStatus } from '../helpers/expect.js'
import { makeDataDir, randomAdminToken, startTestServer, type TestServer } from '../helpers/server.js'

// Routes and events of issue 9 that were missing, over plain HTTP against the real server; the
// last test restarts on the same data and checks that replay rebuilt what each of them changed.

const dataDir = makeDataDir(t)
const adminToken = randomAdminToken()
let server: TestServer = await startTestServer(t, { dataDir, adminToken })

const P = 'moves'
expectOk(await createProject(server, { id: P, name: 'Moves' }), 'project')

const featureTypes = async (s: ServerRef, feature: string): Promise<string[]> =>
  (expectOk(await listFeatureEvents(s, feature), 'feature events').body.events as { type: string }[]).map((e) => e.type)

t.test('PATCH replacing /stale records feature-stale-on/off and feature-metadata-updated (SEMANTICS 9.2)', async (t) => {
  expectOk(await createFeature(server, P, 'stale-patched'), 'flag')
  expectStatus(t, await patchFeature(server, P, 'stale-patched', [{ op: 'replace', path: '/stale', value: true }]), 200, 'stale on')
  let events = (await listFeatureEvents(server, 'stale-patched')).body.events
  // Unleash 8.2 side by side: feature-metadata-updated is recorded first, so it is listed second.
  t.same(events.slice(0, 2).map((e: any) => e.type), ['feature-stale-on', 'feature-metadata-updated'], 'newest first: the stale event, then the metadata update')
  t.match(events[1], { project: P, featureName: 'stale-patched', data: { stale: true }, preData: { stale: false } })
  expectStatus(t, await patchFeature(server, P, 'stale-patched', [{ op: 'replace', path: '/stale', value: false }]), 200, 'stale off')
  events = (await listFeatureEvents(server, 'stale-patched')).body.events
  t.same(events.slice(0, 2).map((e: any) => e.type), ['feature-stale-off', 'feature-metadata-updated'])
  t.match(events[1], { data: { stale: false }, preData: { stale: true } })
  expectStatus(t, await patchFeature(server, P, 'stale-patched', [{ op: 'replace', path: '/stale', value: false }]), 200, 'no change')
  t.equal((await featureTypes(server, 'stale-patched')).length, 5, 'a patch that changes nothing records nothing')
})

t.test('legacy PUT/PATCH .../features/:featureName/variants write every environment and record feature-variants-updated', async (t) => {
  expectOk(await createFeature(server, P, 'legacy-variants'), 'flag')
  const path = `/api/admin/projects/${P}/features/legacy-variants/variants`
  const put = await api(server, 'PUT', path, [{ name: 'blue', weight: 0, weightType: 'variable', stickiness: 'default' }])
  expectStatus(t, put, 200, 'PUT')
  t.match(put.body, { version: 1, variants: [{ name: 'blue', weight: 1000, weightType: 'variable' }] })
  for (const env of ['development', 'production']) {
    const res = await api(server, 'GET', `/api/admin/projects/${P}/features/legacy-variants/environments/${env}/variants`)
    t.same(res.body.variants.map((v: any) => [v.name, v.weight]), [['blue', 1000]], `${env} has the list`)
  }
  let events = (await listFeatureEvents(server, 'legacy-variants')).body.events
  t.match(events[0], { type: 'feature-variants-updated', project: P, featureName: 'legacy-variants', environment: null, data: { variants: [{ name: 'blue', weight: 1000 }] }, preData: { variants: [] } })

  const patch = await api(server, 'PATCH', path, [{ op: 'add', path: '/-', value: { name: 'green', weight: 0, weightType: 'variable', stickiness: 'default' } }])
  expectStatus(t, patch, 200, 'PATCH')
  t.same(patch.body.variants.map((v: any) => [v.name, v.weight]), [['blue', 500], ['green', 500]])
  events = (await listFeatureEvents(server, 'legacy-variants')).body.events
  t.match(events[0], { type: 'feature-variants-updated', data: { variants: [{ name: 'blue', weight: 500 }, { name: 'green', weight: 500 }] }, preData: { variants: [{ name: 'blue', weight: 1000 }] } })
  const legacyGet = await api(server, 'GET', path)
  t.same(legacyGet.body.variants.map((v: any) => v.name), ['blue', 'green'], 'the legacy GET reads them back')

  expectError(t, await api(server, 'PUT', path, [{ name: 'only-fix', weight: 500, weightType: 'fix', stickiness: 'default' }]), { status: 400, name: 'BadDataError' }, 'no variable variant')
  expectError(t, await api(server, 'PATCH', path, [{ op: 'remove', path: '/7' }]), { status: 400 }, 'a patch that cannot apply')
  expectError(t, await api(server, 'PUT', `/api/admin/projects/${P}/features/no-such-flag/variants`, []), { status: 404 }, 'unknown flag')
})

const CR = 'reviews'
let changeRequestId = 0

t.test('change-request titles and comments are records of their own, kept out of the event lists', async (t) => {
  expectOk(await createProject(server, { id: CR, name: 'Reviews' }), 'project')
  expectOk(await createFeature(server, CR, 'reviewed'), 'flag')
  expectOk(await api(server, 'PUT', `/api/admin/projects/${CR}/environments/production/change-requests/config`, { changeRequestsEnabled: true, requiredApprovals: 1 }), 'config')
  const before = (await listEvents(server)).body.totalEvents as number
  const draft = expectOk(
    await api(server, 'POST', `/api/admin/projects/${CR}/environments/production/change-requests`, { feature: 'reviewed', action: 'updateEnabled', payload: { enabled: true } }),
    'draft',
  )
  changeRequestId = draft.body.id
  const crPath = `/api/admin/projects/${CR}/change-requests/${changeRequestId}`
  expectStatus(t, await api(server, 'PUT', `${crPath}/title`, { title: 'Turn it on' }), 204, 'title')
  expectStatus(t, await api(server, 'POST', `${crPath}/comments`, { text: 'looks right' }), 201, 'comment')
  t.match((await api(server, 'GET', crPath)).body, { title: 'Turn it on', comments: [{ id: 1, text: 'looks right' }] }, 'the request shows both')

  const listed = (await listEvents(server)).body
  t.same(listed.events.slice(0, 2).map((e: any) => e.type), ['change-added', 'change-request-created'], 'only the Unleash events are listed, newest first')
  t.equal(listed.totalEvents, before + 2, 'totalEvents counts Unleash events only')
  for (const e of listed.events) t.notMatch(e.type, /^internal:/, `${e.id} is an Unleash event`)
  const changeAdded = listed.events.find((e: any) => e.type === 'change-added')
  t.match(changeAdded.data, { change: { action: 'updateEnabled', payload: { enabled: true } } }, 'change-added carries a change')
  const forProject = (await listEvents(server, CR)).body.events.map((e: any) => e.type)
  t.same(forProject.slice(0, 2), ['change-added', 'change-request-created'], 'nor under the project')
})

t.test('POST .../changeProject moves a flag whole in one append, feature-project-change', async (t) => {
  expectOk(await createProject(server, { id: 'target', name: 'Target' }), 'target project')
  expectOk(await createFeature(server, P, 'mover'), 'flag')
  expectOk(await api(server, 'POST', `/api/admin/projects/${P}/features/mover/environments/production/strategies`, { name: 'default', title: 'kept' }), 'strategy')
  expectOk(await api(server, 'POST', `/api/admin/projects/${P}/features/mover/environments/production/on`), 'on')
  expectOk(await api(server, 'POST', '/api/admin/features/mover/tags', { type: 'simple', value: 'moving' }), 'tag')
  const lastBefore = (await listEvents(server)).body.events[0].id as number

  const move = await api(server, 'POST', `/api/admin/projects/${P}/features/mover/changeProject`, { newProjectId: 'target' })
  expectStatus(t, move, 200, 'moved')
  expectError(t, await api(server, 'GET', `/api/admin/projects/${P}/features/mover`), { status: 404 }, 'gone from the source')
  const moved = await api(server, 'GET', '/api/admin/projects/target/features/mover')
  expectStatus(t, moved, 200, 'found in the target')
  t.match(moved.body, { name: 'mover', project: 'target', tags: [{ type: 'simple', value: 'moving' }] })
  const production = moved.body.environments.find((e: any) => e.name === 'production')
  t.match(production, { enabled: true, strategies: [{ name: 'default', title: 'kept' }] }, 'its environments and strategies came along')

  const events = (await listEvents(server)).body.events
  t.equal(events[0].id, lastBefore + 2, 'one append of two records: the target\'s event and the source\'s internal record')
  t.match(events[0], { type: 'feature-project-change', project: 'target', featureName: 'mover', data: { oldProject: P, newProject: 'target' }, tags: [{ type: 'simple', value: 'moving' }] })
  t.equal(events[1].id, lastBefore, 'the internal record is not listed')
  t.notOk('hidden' in events[0], 'replay-only facts are not listed')

  const token = expectOk(await api(server, 'POST', '/api/admin/api-tokens', { tokenName: 'mover', type: 'client', environment: 'production', projects: ['target'] }), 'token').body.secret
  const client = await api(server, 'GET', '/api/client/features', undefined, token)
  t.match(client.body.features.find((f: any) => f.name === 'mover'), { project: 'target', enabled: true }, 'SDKs of the target see it')
})

t.test('POST .../changeProject is refused where Unleash refuses it', async (t) => {
  expectOk(await createFeature(server, P, 'stayer'), 'flag')
  const move = (to: unknown, feature = 'stayer') => api(server, 'POST', `/api/admin/projects/${P}/features/${feature}/changeProject`, to)
  expectError(t, await move({ newProjectId: CR }), { status: 403, name: 'ForbiddenError', message: `Changing project not allowed. Project ${CR} has change requests enabled.` }, 'into a project requiring change requests (SEMANTICS 12)')
  expectOk(await createProject(server, { id: 'narrow', name: 'Narrow', environments: ['development'] }), 'a project with fewer environments')
  expectError(t, await move({ newProjectId: 'narrow' }), { status: 403, name: 'IncompatibleProjectError', message: 'narrow is not a compatible target' }, 'other environments')
  expectError(t, await move({ newProjectId: 'nowhere' }), { status: 404 }, 'unknown target')
  expectError(t, await move({ newProjectId: 'target' }, 'no-such-flag'), { status: 404 }, 'unknown flag')
  expectError(t, await move({}), { status: 400, message: /newProjectId/ }, 'no newProjectId')
  expectOk(await createFeature(server, P, 'stayer-parent'), 'parent')
  expectOk(await api(server, 'POST', `/api/admin/projects/${P}/features/stayer/dependencies`, { feature: 'stayer-parent' }), 'dependency')
  expectError(t, await move({ newProjectId: 'target' }), { status: 403, name: 'ForbiddenError' }, 'a flag with dependencies')
  expectError(t, await move({ newProjectId: 'target' }, 'stayer-parent'), { status: 403, name: 'ForbiddenError' }, 'a flag others depend on')
  expectStatus(t, await api(server, 'GET', `/api/admin/projects/${P}/features/stayer`), 200, 'nothing moved')
})

t.test('DELETE /api/admin/environments/:name deletes it everywhere in one append, environment-deleted', async (t) => {
  expectOk(await api(server, 'POST', '/api/admin/environments', { name: 'doomed', type: 'test' }), 'environment')
  expectOk(await api(server, 'POST', `/api/admin/projects/${P}/environments`, { environment: 'doomed' }), 'in the project')
  expectOk(await createFeature(server, P, 'doomed-flag'), 'flag')
  expectOk(await api(server, 'POST', `/api/admin/projects/${P}/features/doomed-flag/environments/doomed/strategies`, { name: 'default' }), 'strategy there')
  const lastBefore = (await listEvents(server)).body.events[0].id as number

  expectStatus(t, await api(server, 'DELETE', '/api/admin/environments/doomed'), 200, 'deleted')
  expectError(t, await api(server, 'GET', '/api/admin/environments/doomed'), { status: 404 }, 'gone')
  t.notOk((await api(server, 'GET', '/api/admin/environments')).body.environments.some((e: any) => e.name === 'doomed'), 'not listed')
  const flag = (await api(server, 'GET', `/api/admin/projects/${P}/features/doomed-flag`)).body
  t.same(flag.environments.map((e: any) => e.name).sort(), ['development', 'production'], 'the flag lost its configuration there')
  const events = (await listEvents(server)).body.events
  t.match(events.slice(0, 2), [
    { id: lastBefore + 2, type: 'environment-deleted', environment: 'doomed', preData: { name: 'doomed', type: 'test' } },
    { id: lastBefore + 1, type: 'project-environment-removed', project: P, environment: 'doomed' },
  ], 'the project lets go of it, then it is deleted')
  expectError(t, await api(server, 'POST', `/api/admin/projects/${P}/environments`, { environment: 'doomed' }), { status: 400 }, 'it cannot be added to a project any more')
  expectError(t, await api(server, 'DELETE', '/api/admin/environments/doomed'), { status: 404 }, 'twice')
})

t.test('DELETE /api/admin/environments/:name is refused for the last enabled environment', async (t) => {
  expectOk(await api(server, 'POST', '/api/admin/environments', { name: 'lonely', type: 'test' }), 'environment')
  expectOk(await api(server, 'POST', '/api/admin/environments/development/off'), 'development off')
  expectOk(await api(server, 'POST', '/api/admin/environments/production/off'), 'production off')
  t.teardown(async () => {
    await api(server, 'POST', '/api/admin/environments/development/on')
    await api(server, 'POST', '/api/admin/environments/production/on')
  })
  expectError(t, await api(server, 'DELETE', '/api/admin/environments/lonely'), { status: 400, message: 'You must always have one active environment' }, 'the last enabled one')
  expectStatus(t, await api(server, 'GET', '/api/admin/environments/lonely'), 200, 'still there')
  expectOk(await api(server, 'POST', '/api/admin/environments/production/on'), 'production on')
  expectStatus(t, await api(server, 'DELETE', '/api/admin/environments/lonely'), 200, 'no longer the last enabled one')
  const viewer = expectOk(await api(server, 'POST', '/api/admin/api-tokens', { tokenName: 'env-client', type: 'client', environment: 'production' }), 'client token').body.secret
  expectError(t, await api(server, 'DELETE', '/api/admin/environments/development', undefined, viewer), { status: 403 }, 'a client token may not')
})

t.test('the first registration of an application records application-created, SDK and frontend alike', async (t) => {
  const client = expectOk(await api(server, 'POST', '/api/admin/api-tokens', { tokenName: 'sdk-app', type: 'client', environment: 'development' }), 'client token').body.secret
  const frontend = expectOk(await api(server, 'POST', '/api/admin/api-tokens', { tokenName: 'web-app', type: 'frontend', environment: 'development' }), 'frontend token').body.secret
  const registration = (appName: string) => ({ appName, instanceId: 'i1', interval: 1000, started: new Date().toISOString(), strategies: ['default'], sdkVersion: 'unleash-client-node:6.0.0' })
  const created = async () => ((await listEvents(server)).body.events as any[]).filter((e) => e.type === 'application-created')

  expectStatus(t, await registerClient(server, client, registration('checkout-service')), 202, 'first registration')
  let events = await created()
  t.equal(events.length, 1, 'one application-created')
  t.match(events[0], { type: 'application-created', createdBy: 'sdk-app', data: { appName: 'checkout-service', strategies: ['default'] } })
  expectStatus(t, await registerClient(server, client, { ...registration('checkout-service'), instanceId: 'i2' }), 202, 'another instance of it')
  expectStatus(t, await registerClient(server, client, registration('checkout-service')), 202, 'again')
  t.equal((await created()).length, 1, 'an application is created once')

  const web = await api(server, 'POST', '/api/frontend/client/register', registration('web-shop'), frontend)
  expectStatus(t, web, 200, 'frontend registration')
  events = await created()
  t.same(events.map((e) => e.data.appName), ['web-shop', 'checkout-service'], 'the frontend\'s application too')
  expectError(t, await api(server, 'POST', '/api/frontend/client/register', { instanceId: 'no-name' }, frontend), { status: 400, message: /appName/ }, 'a frontend registration without appName')
})

// ---- Last: stop, replay the log from event 1, and restart on the same data. ----

t.test('replaying the log rebuilds what these routes changed, and a restart serves it', async (t) => {
  await server.stop()
  const log = EventLog.open(dataDir)
  const fromSnapshot = recover(log)
  t.ok(fromSnapshot.fromSnapshot, 'the shutdown snapshot is used on a restart')
  const replayed = { instance: emptyInstance(), projects: new Map(), changeRequests: new Map() }
  for (const record of log.from(1)) applyRecord(replayed, record as EventRecord)
  await log.close()
  t.same(replayed.projects, fromSnapshot.projects, 'projects: the same from the log alone')
  t.same(replayed.instance, fromSnapshot.instance, 'instance: the same from the log alone')
  t.same(replayed.changeRequests, fromSnapshot.changeRequests, 'change requests: the same from the log alone')
  t.equal(replayed.projects.get(P).features.get('stale-patched').stale, false)
  t.notOk(replayed.projects.get(P).features.has('mover'), 'the moved flag left the source')
  t.match(replayed.projects.get('target').features.get('mover'), { project: 'target', tags: [{ value: 'moving' }] }, 'and is whole in the target')
  t.same(replayed.changeRequests.get(changeRequestId)?.title, 'Turn it on', 'the title, from its own record')
  t.same(replayed.changeRequests.get(changeRequestId)?.comments.map((c: any) => c.text), ['looks right'], 'the comment, from its own record')

  server = await startTestServer(t, { dataDir, adminToken })
  for (const env of ['development', 'production']) {
    const res = await api(server, 'GET', `/api/admin/projects/${P}/features/legacy-variants/environments/${env}/variants`)
    t.same(res.body.variants.map((v: any) => [v.name, v.weight]), [['blue', 500], ['green', 500]], `legacy variants in ${env}`)
  }
  t.match((await api(server, 'GET', `/api/admin/projects/${CR}/change-requests/${changeRequestId}`)).body, { title: 'Turn it on', comments: [{ text: 'looks right' }] })
  expectStatus(t, await api(server, 'GET', '/api/admin/projects/target/features/mover'), 200, 'the moved flag is in the target after the restart')
  expectError(t, await api(server, 'GET', '/api/admin/environments/doomed'), { status: 404 }, 'the deleted environment stays deleted')
  t.same([...replayed.instance.applications].sort(), ['checkout-service', 'web-shop'], 'known applications, from the log alone')
  const client = expectOk(await api(server, 'POST', '/api/admin/api-tokens', { tokenName: 'after-restart', type: 'client', environment: 'development' }), 'token').body.secret
  expectStatus(t, await registerClient(server, client, { appName: 'checkout-service', instanceId: 'i9', interval: 1000, started: new Date().toISOString(), strategies: [] }), 202, 'registers after the restart')
  t.equal(((await listEvents(server)).body.events as any[]).filter((e) => e.type === 'application-created').length, 2, 'a known application is not created again after a restart')
  t.notOk(replayed.projects.get(P).environments.has('doomed'), 'and out of the project, from the log alone')
  const listed = (await listEvents(server)).body
  for (const e of listed.events) t.notMatch(e.type, /^internal:/, `${e.id} is still an Unleash event after the restart`)
})
