import t from 'tap'
import { archiveFeature, addStrategy, createFeature, createProject, enableFeature, expectOk } from '../helpers/admin-api.js'
import { fakeClock, startClockedServer } from '../helpers/clocked-server.js'
import { favoriteProject, getProjectOverview, markStale } from '../helpers/curation-api.js'
import { expectError } from '../helpers/expect.js'

// Every command is stamped by a clock the test sets, so each event lands on a chosen day.
const start = Date.parse('2024-01-01T12:00:00.000Z')
const clock = fakeClock(new Date(start).toISOString())
const onDay = (day: number) => clock.set(new Date(start + day * 24 * 60 * 60 * 1000).toISOString())
// The job would add events of its own; keep it out of this scenario.
let server = await startClockedServer(t, { clock, env: { POTENTIALLY_STALE_CHECK_MS: '3600000' } })
const P = 'overview'

onDay(0)
expectOk(await createProject(server, { id: P, name: 'Overview', description: 'hand computed' }), 'create project') // 1 event
expectOk(await createFeature(server, P, 'old'), 'create old') // 1
onDay(10)
expectOk(await addStrategy(server, P, 'old', 'production'), 'strategy old') // 1
expectOk(await enableFeature(server, P, 'old', 'production'), 'enable old') // 1: 10 days to production
onDay(40) // past window
expectOk(await createFeature(server, P, 'past-a'), 'create past-a') // 1
expectOk(await createFeature(server, P, 'past-gone'), 'create past-gone') // 1
onDay(45)
expectOk(await enableFeature(server, P, 'past-a', 'production'), 'enable past-a') // 2 (default strategy + enabled): 5 days
onDay(50)
expectOk(await archiveFeature(server, P, 'old'), 'archive old') // 1
onDay(70) // current window
expectOk(await createFeature(server, P, 'cur-a'), 'create cur-a') // 1
expectOk(await createFeature(server, P, { name: 'cur-exp', type: 'experiment' }), 'create cur-exp') // 1
onDay(71)
expectOk(await enableFeature(server, P, 'cur-a', 'production'), 'enable cur-a') // 2: 1 day
expectOk(await enableFeature(server, P, 'cur-exp', 'production'), 'enable cur-exp') // 2: not a release flag
onDay(75)
expectOk(await archiveFeature(server, P, 'past-gone'), 'archive past-gone') // 1
onDay(80)
expectOk(await markStale(server, P, ['cur-exp'], true), 'stale cur-exp') // 1
onDay(85)
expectOk(await favoriteProject(server, P), 'favorite') // 1
onDay(90) // now: current window from day 60, past window [day 30, day 60)

const expected = {
  stats: {
    avgTimeToProdCurrentWindow: 5.3, // (10 + 5 + 1) / 3: old, past-a, cur-a (release flags, first enable in production)
    createdCurrentWindow: 2, // cur-a, cur-exp
    createdPastWindow: 1, // past-a (past-gone is archived)
    archivedCurrentWindow: 1, // past-gone
    archivedPastWindow: 1, // old
    projectActivityCurrentWindow: 9, // days 70 to 85: 2 + 2 + 2 + 1 + 1 + 1
    projectActivityPastWindow: 5, // days 40 to 50: 2 + 2 + 1
    projectMembersAddedCurrentWindow: 0,
  },
  version: 1,
  name: 'Overview',
  description: 'hand computed',
  defaultStickiness: 'default',
  mode: 'open',
  featureLimit: null,
  featureNaming: { pattern: null, example: null, description: null },
  // Active: past-a (50 days old, release lifetime 40: potentially stale), cur-a, cur-exp (stale).
  health: 33,
  technicalDebt: 67,
  featureTypeCounts: [
    { type: 'experiment', count: 1 },
    { type: 'release', count: 2 },
  ],
  favorite: true,
  createdAt: '2024-01-01T12:00:00.000Z',
}

t.test('the overview matches the hand-computed scenario', async (t) => {
  const res = await getProjectOverview(server, P)
  t.equal(res.status, 200)
  t.match(res.body, expected)
  t.type(res.body.members, 'number')
  t.same(
    res.body.environments.map((e: { environment: string }) => e.environment).sort(),
    ['development', 'production'],
  )
  t.same(res.body.environments[0].defaultStrategy, { name: 'flexibleRollout', constraints: [], parameters: { rollout: '100', stickiness: 'default', groupId: '' } }, 'what enabling would add, not null')
  t.equal(res.body.environments[0].changeRequestsEnabled, false)
})

t.test('the figures are rebuilt from the log after a restart', async (t) => {
  server = await server.restart()
  t.match((await getProjectOverview(server, P)).body, expected)
})

t.test('time moves the windows', async (t) => {
  onDay(125) // current from day 95: nothing; past [65, 95): days 70 to 85
  const { stats } = (await getProjectOverview(server, P)).body
  t.match(stats, { createdCurrentWindow: 0, createdPastWindow: 2, archivedCurrentWindow: 0, archivedPastWindow: 1, projectActivityCurrentWindow: 0, projectActivityPastWindow: 9 })
  t.equal(stats.avgTimeToProdCurrentWindow, 5.3, 'time to production is not window-limited')
})

t.test('an unknown project is a 404', async (t) => {
  expectError(t, await getProjectOverview(server, 'nope'), { status: 404 })
})
