import { execFileSync } from 'node:child_process'
import { existsSync, statSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { api, type ApiResult, createApiToken, createFeature, expectOk, getFeature, request } from '../helpers/admin-api.js'
import { runLogCli } from '../helpers/log-cli.js'
import { login, sessionOf } from '../helpers/people.js'
import { makeDataDir, randomAdminToken, startTestServer } from '../helpers/server.js'

t.test('with LOG_FORMAT=json every line is a JSON object, and no secret of a whole session is in the log', async (t) => {
  const adminToken = randomAdminToken()
  const password = 'Correct-Horse-Battery-9'
  const server = await startTestServer(t, { mode: 'child', adminToken, env: { LOG_FORMAT: 'json', LOG_LEVEL: 'debug', UNLEASH_DEFAULT_ADMIN_PASSWORD: password } })
  const secrets = [adminToken, password]

  t.equal((await login(server, 'admin', 'wrong-password-123')).status, 401, 'a failed login')
  const session = sessionOf(await login(server, 'admin', password))
  t.ok(session, 'a login')
  secrets.push(session!)
  const client = expectOk(await createApiToken(server, { tokenName: 'sdk', type: 'client' }), 'a client token').body.secret as string
  const frontend = expectOk(await createApiToken(server, { tokenName: 'web', type: 'frontend' }), 'a frontend token').body.secret as string
  secrets.push(client, frontend)
  expectOk(await createFeature(server, 'default', 'logged'), 'a flag')
  t.equal((await api(server, 'GET', '/api/client/features', undefined, client)).status, 200, 'an SDK poll')
  t.equal((await api(server, 'POST', '/api/frontend', { context: { userId: 'u' } }, frontend)).status, 200, 'a frontend call')
  t.equal((await api(server, 'GET', '/api/client/features', undefined, `${client}-not`)).status, 401, 'a bad token')
  t.equal((await request(server, { method: 'GET', path: '/api/admin/projects', token: null, headers: { cookie: `unleash-session=${session}` } })).status, 200, 'a session call')
  t.equal(await server.stop(), 0, 'a clean stop')

  const lines = server.output().split('\n').filter((line) => line.length > 0)
  t.ok(lines.length >= 3, 'start, listening and stop lines at least')
  for (const line of lines) {
    let entry: Record<string, unknown> | undefined
    try {
      entry = JSON.parse(line)
    } catch {
      entry = undefined
    }
    t.match(entry, { time: String, level: /^(debug|info|warn|error)$/, msg: String }, `a JSON line: ${line.slice(0, 80)}`)
  }
  for (const secret of secrets) t.notOk(server.output().includes(secret), `the log holds no ${secret.slice(0, 4)}… secret`)
})

t.test('the first start with JSON logs writes its one-time credentials to a file only its user may read, not to the log', async (t) => {
  const dataDir = makeDataDir(t)
  const server = await startTestServer(t, { mode: 'child', dataDir, adminToken: null, env: { LOG_FORMAT: 'json' } }).catch((error: Error) => error)
  // The test helper needs the printed token to talk to the server; with JSON logs there is none to print.
  t.match(server, { message: /no admin token: none given and none printed/ }, 'the token is not in the log')
  const file = path.join(dataDir, 'initial-credentials.txt')
  t.match(readFileSync(file, 'utf8'), /Created an admin API token \(shown once; keep it\): \*:\*\.\w+/)
  t.equal(statSync(file).mode & 0o777, 0o600, 'mode 600')
})

t.test('SIGTERM during a stream of writes: every acknowledged write survives, the exit is 0 and quick', async (t) => {
  const dataDir = makeDataDir(t)
  const adminToken = randomAdminToken()
  const server = await startTestServer(t, { mode: 'child', dataDir, adminToken })
  const acknowledged: string[] = []
  let stop = false
  const writer = async (lane: number) => {
    for (let i = 0; !stop; i++) {
      const name = `w-${lane}-${i}`
      try {
        const res = await createFeature(server, 'default', name)
        if (res.status === 201) acknowledged.push(name)
        else if (res.status !== 503) t.fail(`unexpected ${res.status}`)
      } catch {
        return // the connection was closed by the stop
      }
    }
  }
  const lanes = [0, 1, 2, 3].map(writer)
  while (acknowledged.length < 50) await new Promise((resolve) => setTimeout(resolve, 10))
  const started = Date.now()
  const code = await server.stop()
  const took = Date.now() - started
  stop = true
  await Promise.all(lanes)
  t.equal(code, 0, 'exit code 0')
  t.ok(took < 10_000, `stopped in ${took} ms`)
  t.match(server.output(), /SIGTERM: finishing requests in flight/)

  const again = await startTestServer(t, { mode: 'child', dataDir, adminToken })
  const missing = []
  for (const name of acknowledged) if ((await getFeature(again, 'default', name)).status !== 200) missing.push(name)
  t.same(missing, [], `all ${acknowledged.length} acknowledged writes are there after the restart`)
})

t.test('LMDB_MAP_SIZE sets the map reserved at start; a log that outgrows it keeps taking writes and keeps them', async (t) => {
  const dataDir = makeDataDir(t)
  const adminToken = randomAdminToken()
  const server = await startTestServer(t, { mode: 'child', dataDir, adminToken, env: { LMDB_MAP_SIZE: '1MB' } })
  expectOk(await createFeature(server, 'default', 'heavy'), 'a flag')
  const variantsPath = '/api/admin/projects/default/features/heavy/environments/development/variants'
  let written = 0
  for (let i = 0; i < 20; i++) {
    // About 180 KB of event per write (the variants before and after): 3.6 MB in all, past the 1 MB map.
    const payload = { type: 'string', value: `${i}`.padEnd(90_000, 'x') }
    let res = await api(server, 'PUT', variantsPath, [{ name: 'big', weight: 1000, weightType: 'variable', stickiness: 'default', payload }])
    // A commit that outgrew the map is refused with 503; lmdb-js grows the map for the next one.
    if (res.status === 503) res = await api(server, 'PUT', variantsPath, [{ name: 'big', weight: 1000, weightType: 'variable', stickiness: 'default', payload }])
    t.equal(res.status, 200, `write ${i}`)
    if (res.status === 200) written++
    t.equal((await getFeature(server, 'default', 'heavy')).status, 200, 'reads are served')
  }
  t.equal(written, 20)
  t.equal(await server.stop(), 0)
  const again = await startTestServer(t, { mode: 'child', dataDir, adminToken })
  const variants = (await getFeature(again, 'default', 'heavy')).body.environments.find((e: { name: string }) => e.name === 'development').variants
  t.equal(variants[0].payload.value.slice(0, 2), '19', 'the last write is there after a restart')
})

t.test('a full disk: writes answer 503 and change nothing, reads go on, and once there is room again writes work and nothing acknowledged is lost', async (t) => {
  if (!existsSync('/usr/bin/prlimit')) {
    console.error('\n*** NOT RUN: the full-disk test needs prlimit (util-linux) to give the server room again ***\n')
    t.pass('skipped: prlimit is missing')
    return
  }
  const dataDir = makeDataDir(t)
  const adminToken = randomAdminToken()
  // The data file may not grow past 1 MiB: a disk that is full (tap's hooks, preloaded into the child,
  // catch the SIGXFSZ that comes with it: the server must not die of it).
  // The data file is also reopened between requests whenever it can be (READ_PAGES_RELEASE_MS): a failed
  // commit must not let that close it half-way.
  const server = await startTestServer(t, { mode: 'child', dataDir, adminToken, fileSizeLimitKb: 1024, env: { READ_PAGES_RELEASE_MS: '1' } })
  const acknowledged: string[] = []
  const description = 'x'.repeat(3000)
  let refused: ApiResult | undefined
  for (let i = 0; i < 1000 && !refused; i++) {
    const res = await createFeature(server, 'default', { name: `flag-${i}`, description })
    if (res.status === 201) acknowledged.push(`flag-${i}`)
    else refused = res
  }
  t.ok(acknowledged.length > 10, `${acknowledged.length} writes went through before the disk was full`)
  t.equal(refused?.status, 503, 'the write that does not fit is refused with 503')
  t.equal(refused?.body.name, 'ServiceUnavailableError')
  t.equal(refused?.body.message, 'The change could not be stored (is the disk full?); nothing was changed. Try again later.')
  t.match(server.output(), 'a log commit failed; the write was refused with 503 and nothing changed', 'a log line says so')
  // The write that meets the limit fails with EFBIG when it starts past it, and with EIO when part of it
  // fits (LMDB takes a short write for an I/O error): which one depends on where the pages fall.
  t.match(
    server.output(),
    /a log commit failed; the write was refused with 503 and nothing changed cause="the commit failed: (File too large|Input\/output error)[^"]*" refusedSoFar=1\n/,
    'naming the cause and how many were refused',
  )
  t.notMatch(server.output(), /\n\s+at /, 'and no stack trace')

  const listed = expectOk(await api(server, 'GET', '/api/admin/projects/default/features'), 'reads are served').body.features.map((f: { name: string }) => f.name)
  t.same(listed.sort(), [...acknowledged].sort(), 'every acknowledged flag, and not the refused one')

  execFileSync('/usr/bin/prlimit', ['--pid', String(server.pid), '--fsize=unlimited:'])
  for (let i = 0; i < 20; i++) {
    const name = `after-${i}`
    expectOk(await createFeature(server, 'default', { name, description }), `write ${name} once there is room`)
    acknowledged.push(name)
  }

  t.equal(await server.stop(), 0, 'stops cleanly')
  t.equal((await runLogCli(['verify', '--data-dir', dataDir])).code, 0, 'the log verifies')
  const again = await startTestServer(t, { mode: 'child', dataDir, adminToken })
  const restored = expectOk(await api(again, 'GET', '/api/admin/projects/default/features'), 'after a restart').body.features.map((f: { name: string }) => f.name)
  t.same(restored.sort(), [...acknowledged].sort(), 'nothing acknowledged was lost')
})
