import t from 'tap'
import { applyRecord, recover } from '../../src/actors/recovery.js'
import type { EventRecord } from '../../src/domain/events.js'
import { emptyInstance } from '../../src/domain/instance-state.js'
import { EventLog } from '../../src/store/log.js'
import { api, createFeature, createProject, expectOk, listEvents, listFeatureEvents, patchFeature, type ServerRef } from '../helpers/admin-api.js'
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
  t.same(events.slice(0, 2).map((e: any) => e.type), ['feature-metadata-updated', 'feature-stale-on'], 'newest first: the stale event, then the metadata update')
  t.match(events[0], { project: P, featureName: 'stale-patched', data: { stale: true }, preData: { stale: false } })
  expectStatus(t, await patchFeature(server, P, 'stale-patched', [{ op: 'replace', path: '/stale', value: false }]), 200, 'stale off')
  events = (await listFeatureEvents(server, 'stale-patched')).body.events
  t.same(events.slice(0, 2).map((e: any) => e.type), ['feature-metadata-updated', 'feature-stale-off'])
  t.match(events[0], { data: { stale: false }, preData: { stale: true } })
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
  t.same(replayed.changeRequests.get(changeRequestId)?.title, 'Turn it on', 'the title, from its own record')
  t.same(replayed.changeRequests.get(changeRequestId)?.comments.map((c: any) => c.text), ['looks right'], 'the comment, from its own record')

  server = await startTestServer(t, { dataDir, adminToken })
  for (const env of ['development', 'production']) {
    const res = await api(server, 'GET', `/api/admin/projects/${P}/features/legacy-variants/environments/${env}/variants`)
    t.same(res.body.variants.map((v: any) => [v.name, v.weight]), [['blue', 500], ['green', 500]], `legacy variants in ${env}`)
  }
  t.match((await api(server, 'GET', `/api/admin/projects/${CR}/change-requests/${changeRequestId}`)).body, { title: 'Turn it on', comments: [{ text: 'looks right' }] })
  const listed = (await listEvents(server)).body
  for (const e of listed.events) t.notMatch(e.type, /^internal:/, `${e.id} is still an Unleash event after the restart`)
})
