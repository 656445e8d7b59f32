import t from 'tap'
import { EventLog } from '../../src/store/log.js'
import { api, createFeature, createProject, enableFeature, expectOk, listEvents, listFeatures, request } from '../helpers/admin-api.js'
import { callAs, createPerson, login } from '../helpers/people.js'
import { makeDataDir, randomAdminToken, startTestServer } from '../helpers/server.js'

// The data directory is reopened between requests once the writes under way have settled, new ones held
// meanwhile (EventLog.releaseReadPagesSoon), here every millisecond: writes, range reads, side tables
// (sessions, metrics' last-seen times) and snapshot sets go on through it, nothing is refused and nothing
// is lost.

const P = 'released'
const CLIENT = '*:development.client-release'
const ROUNDS = 60
const releaseLine = 'the data file is reopened'

t.test('writes, reads, sessions and metrics go on while the data file is reopened between requests', async (t) => {
  const dataDir = makeDataDir(t)
  const adminToken = randomAdminToken()
  const server = await startTestServer(t, {
    mode: 'child',
    dataDir,
    adminToken,
    env: { READ_PAGES_RELEASE_MS: '1', LOG_LEVEL: 'debug', METRICS_FLUSH_MS: '5', SNAPSHOT_EVERY: '40', INIT_CLIENT_API_TOKENS: CLIENT, SIMPLE_LOGIN_LIMIT_PER_MINUTE: '1000' },
  })
  expectOk(await createProject(server, { id: P, name: P }), 'project')
  const person = await createPerson(server, { username: 'reader', rootRole: 'Admin' })

  const failures: string[] = []
  const check = (what: string, status: number) => {
    if (status < 200 || status >= 300) failures.push(`${what}: ${status}`)
  }
  const writer = async () => {
    for (let i = 0; i < ROUNDS; i++) {
      check(`create f-${i}`, (await createFeature(server, P, `f-${i}`)).status)
      check(`enable f-${i}`, (await enableFeature(server, P, `f-${i}`, 'development')).status)
    }
  }
  const reader = async () => {
    for (let i = 0; i < ROUNDS; i++) {
      check('events', (await listEvents(server)).status)
      check('events of the project', (await listEvents(server, P)).status)
    }
  }
  const sessions = async () => {
    for (let i = 0; i < ROUNDS; i++) {
      check('session read', (await callAs(server, person.session, 'GET', '/api/admin/user')).status)
      check('login', (await login(server, 'reader', person.password)).status)
    }
  }
  const sdk = async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const metrics = await request(server, {
        method: 'POST',
        path: '/api/client/metrics',
        token: CLIENT,
        body: { appName: 'release-test', instanceId: 'i-1', bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles: { [`f-${i}`]: { yes: 1, no: 0 } } } },
      })
      check('metrics', metrics.status)
      check('client features', (await request(server, { method: 'GET', path: '/api/client/features', token: CLIENT })).status)
    }
  }
  await Promise.all([writer(), reader(), sessions(), sdk()])
  t.same(failures, [], 'every request was answered 2xx')
  const releases = server.output().split(releaseLine).length - 1
  t.ok(releases >= 5, `the data file was reopened between requests (${releases} times)`)
  const seen = await api(server, 'GET', `/api/admin/projects/${P}/features/f-0`)
  expectOk(seen, 'a flag the metrics named')

  t.equal(await server.stop(), 0, 'a clean stop')
  const log = EventLog.open(dataDir)
  const chain = log.verifyChain()
  await log.close()
  t.ok(chain.ok, 'the log and its chain are whole')

  const restarted = await startTestServer(t, { dataDir, adminToken })
  const names = (await listFeatures(restarted, P)).body.features.map((f: { name: string }) => f.name).sort()
  t.same(names, Array.from({ length: ROUNDS }, (_, i) => `f-${i}`).sort(), 'every flag created is there after a restart')
  const enabled = (await listFeatures(restarted, P)).body.features.filter((f: { environments: { name: string; enabled: boolean }[] }) =>
    f.environments.some((e) => e.name === 'development' && e.enabled),
  )
  t.equal(enabled.length, ROUNDS, 'and every one enabled')
  const session = await callAs(restarted, person.session, 'GET', '/api/admin/user')
  t.equal(session.status, 200, 'a session made while the file was reopened works after the restart')
})
