import t from 'tap'
import { addStrategy, api, createFeature, createProject, expectOk, getFeatureEnvironment, listEvents, request, type ServerRef } from '../helpers/admin-api.js'
import { fakeClock, startClockedServer, type ClockedServer } from '../helpers/clocked-server.js'
import { eventually, sleep } from '../helpers/expect.js'

// A scheduled change request is a timer of its own actor, armed again from its committed state at
// every start. The clock is the test's (ServerOptions.clock): moving it past the schedule, with the
// server running or while it is down, is what the timer sees at its next tick (SCHEDULER_INTERVAL_MS).

const tickMs = 50
const env = { SCHEDULER_INTERVAL_MS: String(tickMs) }
const P = 'timed'

// Two editors with personal access tokens: the author and the approver (nobody approves their own).
const password = 'Sched-uled1!'
const editor = async (s: ServerRef, username: string): Promise<string> => {
  expectOk(await api(s, 'POST', '/api/admin/user-admin', { username, email: `${username}@example.com`, password, rootRole: 'Editor' }), `create ${username}`)
  const login = expectOk(await request(s, { method: 'POST', path: '/auth/simple/login', body: { username, password }, token: null }), `log in ${username}`)
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]
  const pat = expectOk(
    await request(s, { method: 'POST', path: '/api/admin/user/tokens', body: { description: username, expiresAt: '2099-01-01T00:00:00.000Z' }, token: null, headers: { cookie } }),
    `PAT of ${username}`,
  )
  return pat.body.secret as string
}

const as = (s: ServerRef, token: string, method: string, path: string, body?: unknown) => api(s, method, path, body as never, token)
const crPath = `/api/admin/projects/${P}/change-requests`
const eventsOfType = async (s: ServerRef, type: string) => ((await listEvents(s)).body.events as { type: string }[]).filter((e) => e.type === type).length
const requestOf = async (s: ServerRef, id: number) => expectOk(await api(s, 'GET', `${crPath}/${id}`), `read request ${id}`).body
const enabledIn = async (s: ServerRef, flag: string, environment: string) => expectOk(await getFeatureEnvironment(s, P, flag, environment), 'read flag').body.enabled as boolean

// An approved request that switches `flag` on in production, scheduled at `at`.
const scheduled = async (s: ClockedServer, flag: string, at: string): Promise<number> => {
  const author = await editor(s, `author-${flag}`)
  const approver = await editor(s, `approver-${flag}`)
  expectOk(await createFeature(s, P, flag), `flag ${flag}`)
  expectOk(await addStrategy(s, P, flag, 'production'), 'strategy')
  const draft = expectOk(
    await as(s, author, 'POST', `/api/admin/projects/${P}/environments/production/change-requests`, { feature: flag, action: 'updateEnabled', payload: { enabled: true } }),
    'draft',
  )
  const id = draft.body.id as number
  expectOk(await as(s, author, 'PUT', `${crPath}/${id}/state`, { state: 'In review' }), 'review')
  expectOk(await as(s, approver, 'PUT', `${crPath}/${id}/state`, { state: 'Approved' }), 'approve')
  expectOk(await as(s, approver, 'PUT', `${crPath}/${id}/state`, { state: 'Scheduled', scheduledAt: at }), 'schedule')
  return id
}

const clock = fakeClock('2024-06-01T10:00:00.000Z')
let server = await startClockedServer(t, { clock, env })
expectOk(await createProject(server, { id: P, name: P }), 'project')
expectOk(await api(server, 'PUT', `/api/admin/projects/${P}/environments/production/change-requests/config`, { changeRequestsEnabled: true, requiredApprovals: 1 }), 'config')

t.test('a schedule that falls due while the server runs is applied once', async (t) => {
  const id = await scheduled(server, 'live', '2024-06-01T11:00:00.000Z')
  await sleep(tickMs * 4)
  t.equal((await requestOf(server, id)).state, 'Scheduled', 'not before its time')
  clock.set('2024-06-01T11:00:01.000Z')
  t.ok(await eventually(async () => (await requestOf(server, id)).state === 'Applied', 20_000, 20), 'applied at the next tick')
  await sleep(tickMs * 6)
  t.equal(await eventsOfType(server, 'change-request-applied'), 1, 'once')
  t.equal(await eventsOfType(server, 'change-request-scheduled-application-success'), 1)
  t.equal(await enabledIn(server, 'live', 'production'), true)
  t.match((await requestOf(server, id)).features[0].changes[0], { action: 'updateEnabled', replaced: { enabled: false } }, 'a scheduled application records what it replaced too')
})

t.test('a schedule that fell due while the server was down is marked failed once, at the start, and stays so', async (t) => {
  const id = await scheduled(server, 'missed', '2024-06-01T13:00:00.000Z')
  t.match(await requestOf(server, id), { state: 'Scheduled', schedule: { status: 'pending' } })
  await server.stop()
  clock.set('2024-06-01T14:00:00.000Z')
  server = await server.restart()

  t.ok(await eventually(async () => (await requestOf(server, id)).schedule?.status === 'failed', 20_000, 20), 'marked failed after the start')
  t.match(await requestOf(server, id), { state: 'Scheduled', schedule: { status: 'failed', failureReason: 'The server was not running at the scheduled time.' } })
  await sleep(tickMs * 6)
  t.equal(await eventsOfType(server, 'change-request-scheduled-application-failure'), 1, 'one failure event, whatever the ticks since')
  t.equal(await enabledIn(server, 'missed', 'production'), false, 'not applied')

  server = await server.restart()
  await sleep(tickMs * 6)
  t.equal(await eventsOfType(server, 'change-request-scheduled-application-failure'), 1, 'and still one after another restart')
  t.equal(await eventsOfType(server, 'change-request-scheduled-application-success'), 1, 'only the first test applied anything')
})
