import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { EventLog } from '../../src/store/log.js'
import { api, createFeature, createProject, expectOk, listEvents, listFeatures } from '../helpers/admin-api.js'
import { eventually } from '../helpers/expect.js'
import { makeDataDir, randomAdminToken, startTestServer } from '../helpers/server.js'

// A decision lives in its actor's memory until its append commits: a process killed in between leaves
// nothing of it, in the log or in the state rebuilt at the next start.

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const preload = path.join(repoRoot, 'dist/test/helpers/hold-commit.js')
const P = 'inflight'

t.test('a server killed between a decision and its commit: nothing of that decision after the restart', async (t) => {
  const dataDir = makeDataDir(t)
  const adminToken = randomAdminToken()
  const marker = path.join(dataDir, 'held-commit')
  const held = await startTestServer(t, {
    mode: 'child',
    dataDir,
    adminToken,
    env: { NODE_OPTIONS: `--import=${preload}`, HOLD_COMMIT_FEATURE: 'never-committed', HOLD_COMMIT_MARKER: marker },
  })
  expectOk(await createProject(held, { id: P, name: P }), 'project')
  expectOk(await createFeature(held, P, 'committed'), 'a flag before')
  const lastCommitted = (await listEvents(held)).body.events[0].id as number

  // Decided by the project's actor and appended: the commit then hangs until the process is killed.
  const answer = createFeature(held, P, 'never-committed').then(
    (res) => `answered ${res.status}`,
    () => 'no answer',
  )
  t.ok(await eventually(() => existsSync(marker), 10_000, 20), 'the decision was appended and its commit begun')
  await held.kill()
  t.equal(await answer, 'no answer', 'the caller never heard it was done')

  const log = EventLog.open(dataDir)
  t.equal(log.lastId, lastCommitted, 'the log ends at the last committed record')
  t.notOk([...log.from(1)].some((record) => (record as { featureName?: string }).featureName === 'never-committed'), 'no record of the decision')
  await log.close()

  const restarted = await startTestServer(t, { dataDir, adminToken })
  const names = (await listFeatures(restarted, P)).body.features.map((f: { name: string }) => f.name)
  t.same(names, ['committed'], 'the state rebuilt at the start has none of it')
  expectOk(await createFeature(restarted, P, 'never-committed'), 'the name is free')
  const [created] = (await listEvents(restarted)).body.events
  t.equal(created.id, lastCommitted + 1, 'and the next record takes the id the lost one had')
})
