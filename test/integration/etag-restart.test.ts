import { existsSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { clientToken, createFeature, createProject, expectOk, getClientFeatures, listFeatureEvents } from '../helpers/admin-api.js'
import { makeDataDir, randomAdminToken, startTestServer } from '../helpers/server.js'

// ETags and meta.revisionId are log positions: a process that replayed the log, or started from a
// snapshot, must give the same ones, or every SDK refetches after a restart and replicas disagree.
for (const start of ['from a snapshot', 'by replaying the whole log']) {
  t.test(`the client features ETag survives a restart ${start}`, async (t) => {
    const dataDir = makeDataDir(t)
    const adminToken = randomAdminToken()
    const env: Record<string, string> = start === 'from a snapshot' ? {} : { SNAPSHOT_EVERY: '1000000' }
    const first = await startTestServer(t, { mode: 'child', dataDir, adminToken, env })
    expectOk(await createProject(first, { id: 'p', name: 'P' }), 'project')
    expectOk(await createFeature(first, 'p', 'f'), 'flag')
    // The last records touch no SDK payload: a token, then another project's flag.
    const token = await clientToken(first, ['p'])
    expectOk(await createProject(first, { id: 'q', name: 'Q' }), 'another project')
    expectOk(await createFeature(first, 'q', 'g'), 'another flag')
    const before = await getClientFeatures(first, token, '', { 'accept-encoding': 'identity' })
    const kept = path.join(dataDir, 'client-answers.kept')
    if (start === 'from a snapshot') await first.stop()
    else await first.kill()
    t.equal(existsSync(kept), start === 'from a snapshot', 'a clean stop keeps the answers it built for the next start')
    const second = await startTestServer(t, { mode: 'child', dataDir, adminToken, env })
    t.notOk(existsSync(kept), 'the start took them (a kept file is used once)')
    const after = await getClientFeatures(second, token, '', { 'accept-encoding': 'identity' })
    t.equal(after.headers.get('etag'), before.headers.get('etag'))
    t.equal(after.text, before.text, 'the same bytes, meta.revisionId included')
    const flagCreated = (await listFeatureEvents(second, 'f')).body.events.find((e: { type: string }) => e.type === 'feature-created')
    t.equal(after.body.meta.revisionId, flagCreated.id, 'the position of the last record about project p: its flag')
  })
}
