import t from 'tap'
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
