import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { api, expectOk } from '../helpers/admin-api.js'
import { makeDataDir, startTestServer } from '../helpers/server.js'
import { runLogCli } from '../helpers/log-cli.js'
import { reportedCounts, runMigrateCli } from '../migrate/cli.js'
import { flagsByName, frontendAnswer } from '../migrate/compare.js'
import { startFakeSource, type RecordedAnswer } from '../migrate/fake-source.js'

// `npm run migrate` from a recorded Unleash 8.2 (test/migrate/record-fixtures.ts: 40 flags of the
// proof's dataset, answered as Unleash answered them), then our server on the result answers the
// SDK requests exactly as that Unleash did. migrate-unleash.test.ts does the same against a live one.
const fixtures = JSON.parse(readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../migrate/fixtures/unleash-8.2.json'), 'utf8')) as {
  admin: RecordedAnswer[]
  clientTokens: Record<'development' | 'production', string>
  frontendTokens: Record<'development' | 'production', string>
  client: Record<'development' | 'production', { features: Record<string, unknown>[] }>
  contexts: Record<string, unknown>[]
  frontend: Record<'development' | 'production', { toggles: Record<string, unknown>[] }[]>
}
const adminToken = '*:*.unleash-insecure-admin-api-token'
const source = await startFakeSource(fixtures.admin, adminToken)
t.teardown(() => source.close())
const dataDir = makeDataDir(t)
const migrated = await runMigrateCli(['--from', source.url, '--token', adminToken, '--data-dir', dataDir])

t.test('the migration ends with a report: counts per kind, what it could not copy and why, the time, a new password per user', async (t) => {
  t.equal(migrated.code, 0, migrated.stderr)
  t.match(migrated.stdout, /reading http:\/\/127\.0\.0\.1:\d+: instance/, 'progress: what it reads')
  t.match(migrated.stdout, /read 39 of 39 flags/, 'progress: flags read so far')
  t.match(migrated.stdout, /migrated http:\/\/127\.0\.0\.1:\d+ \(Unleash 8\.2\.0\) into .+ in \d+\.\d s: \d+ records/)
  t.same(reportedCounts(migrated.stdout), {
    environments: 2,
    'feature type lifetimes': 1,
    'strategy types': 1,
    'context fields': 11,
    'tag types': 2,
    tags: 2,
    segments: 3,
    projects: 1,
    flags: 40,
    // The recorded answers hold 72 strategies and 43 enabled environments of active flags, and 1 and 1 of the archived one.
    strategies: 73,
    'flag variants': 0,
    'enabled environments': 44,
    dependencies: 2,
    'stale flags': 1,
    'archived flags': 1,
    'API tokens': 5,
    users: 2,
  })
  t.match(migrated.stdout, /not copied \(1\):\n {2}groups: groups: not readable: \/api\/admin\/groups answered 404 \(an Enterprise feature/, 'an endpoint this Unleash lacks is named with the reason; every flag type of 8.2 is ours too (sunset included)')
  t.match(migrated.stdout, /^ {2}admin: \S{16,}$/m, 'the admin user gets a new password, printed once')
  t.ok(source.seen().every((line) => line.startsWith('GET ') || line.startsWith('POST /api/admin/features-batch/export')), 'only reads: GETs and the export')
})

const server = await startTestServer(t, { dataDir, adminToken })

t.test("the log starts with 'migrated from', holds ordinary events and its chain verifies", async (t) => {
  const { events, total } = expectOk(await api(server, 'GET', '/api/admin/search/events?limit=1000'), 'events').body as { events: { type: string; data: unknown }[]; total: number }
  t.equal(events.length, total, 'one page holds them all')
  const first = events[events.length - 1]
  t.same(first.type, 'setting-created')
  t.match(first.data, { id: 'migrated-from', value: { url: source.url, version: '8.2.0' } })
  t.ok(events.some((e) => e.type === 'feature-strategy-add'), 'strategies were added as events')
  t.ok(events.some((e) => e.type === 'feature-archived'), 'the archived flag was archived as an event')
})

t.test('what the admin API shows besides flags came along: the changed lifetime, the custom strategy type, segment ids, tokens by secret', async (t) => {
  const types = expectOk(await api(server, 'GET', '/api/admin/feature-types'), 'feature types').body.types as { id: string; lifetimeDays: number | null }[]
  t.equal(types.find((type) => type.id === 'release')?.lifetimeDays, 60)
  const strategies = expectOk(await api(server, 'GET', '/api/admin/strategies'), 'strategy types').body.strategies as { name: string }[]
  t.ok(strategies.some((s) => s.name === 'byTenantTier'), 'the custom strategy type')
  const segments = expectOk(await api(server, 'GET', '/api/admin/segments'), 'segments').body.segments as { id: number; name: string }[]
  t.same(segments.map((s) => [s.id, s.name]).sort(), [[1, 'nordics'], [2, 'paying'], [3, 'new-apps']])
  for (const secret of Object.values(fixtures.frontendTokens)) t.equal((await api(server, 'GET', '/api/frontend', undefined, secret)).status, 200, 'a frontend token works as it did')
})

for (const env of ['development', 'production'] as const) {
  t.test(`${env}: /api/client/features with Unleash's own client token is what Unleash served, flag by flag`, async (t) => {
    const ours = expectOk(await api(server, 'GET', '/api/client/features', undefined, fixtures.clientTokens[env]), 'client features').body
    const theirs = flagsByName(fixtures.client[env])
    const mine = flagsByName(ours)
    t.same([...mine.keys()].sort(), [...theirs.keys()].sort(), 'the same flags')
    for (const [name, flag] of theirs) t.same(mine.get(name), flag, name)
  })

  t.test(`${env}: the frontend API with Unleash's own frontend token answers every seeded context as Unleash did`, async (t) => {
    let equal = 0
    for (const [i, context] of fixtures.contexts.entries()) {
      const ours = expectOk(await api(server, 'POST', '/api/frontend', { context }, fixtures.frontendTokens[env]), 'frontend').body
      if (JSON.stringify(frontendAnswer(ours)) === JSON.stringify(frontendAnswer(fixtures.frontend[env][i]))) equal++
      else t.same(frontendAnswer(ours), frontendAnswer(fixtures.frontend[env][i]), `context ${i}`)
    }
    t.equal(equal, fixtures.contexts.length, `${fixtures.contexts.length} contexts answered alike`)
  })
}

t.test('the copied log verifies from its first record to its last', async (t) => {
  await server.stop()
  const verified = await runLogCli(['verify', '--data-dir', dataDir])
  t.equal(verified.code, 0, verified.stdout)
  t.match(verified.stdout, /^ok: \d+ records/)
})

t.test('a data directory that is not empty is refused, naming what is there, before anything is read', async (t) => {
  const before = source.seen().length
  const dir = path.join(makeDataDir(t), 'taken')
  mkdirSync(dir)
  writeFileSync(path.join(dir, 'notes.txt'), 'mine')
  const refused = await runMigrateCli(['--from', source.url, '--token', adminToken, '--data-dir', dir])
  t.equal(refused.code, 2)
  t.match(refused.stderr, `${dir} is not empty (it holds notes.txt)`)
  t.equal(source.seen().length, before, 'the source was not asked anything')
})

t.test('a wrong token fails with the source answer and writes nothing', async (t) => {
  const dir = path.join(makeDataDir(t), 'fresh')
  const failed = await runMigrateCli(['--from', source.url, '--token', '*:*.wrong', '--data-dir', dir])
  t.equal(failed.code, 1)
  t.match(failed.stderr, /migration failed after \d+\.\d s: GET \/api\/admin\/\S+: 401/)
  t.notOk(existsSync(dir), 'no data directory was made')
})
