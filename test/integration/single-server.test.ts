import { spawn } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { EventLog } from '../../src/store/log.js'
import { api } from '../helpers/admin-api.js'
import { builtMain, makeDataDir, randomAdminToken, startTestServer } from '../helpers/server.js'

const repoRoot = path.resolve(path.dirname(builtMain), '../..')

const eventCount = async (dir: string): Promise<number> => {
  const log = EventLog.open(dir)
  const count = log.count()
  await log.close()
  return count
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const waitUntil = async (condition: () => boolean, ms: number): Promise<boolean> => {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (condition()) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return condition()
}

t.test('a second server on the same data directory exits at once, naming the directory and the PID holding it', async (t) => {
  const dataDir = makeDataDir(t)
  const first = await startTestServer(t, { mode: 'child', dataDir })
  const second = await startTestServer(t, { mode: 'child', dataDir }).then(
    () => undefined,
    (error: Error) => error.message,
  )
  t.match(second, `the data directory ${dataDir} is in use by PID ${first.pid}`)
  t.equal((await api(first, 'GET', '/api/admin/projects')).status, 200, 'the first server still serves')
})

t.test('a server whose port is taken says "address in use" and writes nothing to its data directory', async (t) => {
  const first = await startTestServer(t, { mode: 'child' })
  const dataDir = makeDataDir(t)
  const second = await startTestServer(t, { mode: 'child', dataDir, adminToken: null, env: { HTTP_PORT: String(first.port) } }).then(
    () => undefined,
    (error: Error) => error.message,
  )
  t.match(second, `could not listen on 127.0.0.1:${first.port}: address in use`)
  t.notMatch(second, 'Created an admin API token', 'no one-time token was used up')
  t.equal(await eventCount(dataDir), 0, 'no event was written')
})

t.test('malformed INIT_CLIENT_API_TOKENS and INIT_FRONTEND_API_TOKENS entries are refused at start', async (t) => {
  for (const variable of ['INIT_CLIENT_API_TOKENS', 'INIT_FRONTEND_API_TOKENS']) {
    const dataDir = makeDataDir(t)
    const failure = await startTestServer(t, { mode: 'child', dataDir, env: { [variable]: 'default:development.fine,plainsecret' } }).then(
      () => undefined,
      (error: Error) => error.message,
    )
    t.match(failure, `${variable}: entry 2 ("plainsecret") is not of the form project:environment.secret`, variable)
    t.same(readdirSync(dataDir), [], `${variable}: the data directory stays empty`)
  }
})

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  t.test(`${signal} to \`npm start\` stops the server it started`, async (t) => {
    const dataDir = makeDataDir(t)
    const env: Record<string, string> = { ...(process.env as Record<string, string>), HTTP_PORT: '0', DATA_DIR: dataDir, INIT_ADMIN_API_TOKENS: randomAdminToken() }
    const npm = spawn('npm', ['start'], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk))
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk))
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)))
    t.teardown(() => {
      if (npm.exitCode === null) npm.kill('SIGKILL')
    })
    t.ok(await waitUntil(() => output.includes('listening on'), 60_000), 'npm start brought the server up')
    const serverPid = Number(readFileSync(path.join(dataDir, 'server.lock'), 'utf8').trim())
    t.ok(isAlive(serverPid), 'the server runs')
    if (process.platform === 'linux' && process.env.MALLOC_MMAP_THRESHOLD_ === undefined) {
      const serverEnv = readFileSync(`/proc/${serverPid}/environ`, 'utf8').split('\0')
      t.ok(serverEnv.includes('MALLOC_MMAP_THRESHOLD_=131072'), "with glibc's fixed mmap threshold (README, Running it)")
      t.ok(serverEnv.some((entry) => entry.startsWith('NODE_OPTIONS=--max-semi-space-size=8')), "with V8's young generation of 16 MiB (README, Running it)")
    }
    npm.kill(signal)
    await exited
    t.ok(await waitUntil(() => !isAlive(serverPid), 15_000), 'the server stopped with npm')
    t.match(output, `${signal}: finishing requests in flight, writing snapshots and stopping`, 'the server stopped cleanly')
    t.notOk(existsSync(path.join(dataDir, 'server.lock')), 'and released its lock')
  })
}
