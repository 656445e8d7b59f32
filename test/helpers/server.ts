import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { loadConfig } from '../../src/config.js'
import { startServer, type RunningServer } from '../../src/server.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const builtMain = path.join(repoRoot, 'dist/src/main.js')

export interface TestServerOptions {
  // 'child' runs `node dist/src/main.js` (build first); it is the only mode that can be SIGKILLed.
  mode?: 'in-process' | 'child'
  // Reuse a data dir (for restarts); by default a fresh temporary one, removed at teardown.
  dataDir?: string
  // The INIT_ADMIN_API_TOKENS secret; null starts without one (the server then creates and prints one).
  adminToken?: string | null
  // Extra environment (METRICS_FLUSH_MS, SNAPSHOT_EVERY, INIT_CLIENT_API_TOKENS, ...).
  env?: Record<string, string>
  // Child only: the soft limit on the size of any file it writes (`ulimit -S -f`, in KiB): a disk that
  // fills up, which `prlimit` can raise while it runs.
  fileSizeLimitKb?: number
}

export interface TestServer {
  mode: 'in-process' | 'child'
  // The process serving: the child's, or this test process's own.
  pid: number
  baseUrl: string
  port: number
  dataDir: string
  adminToken: string
  // Everything the child printed so far (empty in-process).
  output(): string
  // Clean stop: close() in-process, SIGTERM for a child. Resolves with the child's exit code (0 in-process).
  stop(): Promise<number | null>
  // SIGKILL (child only): no snapshot, no flush, whatever was in flight is lost.
  kill(): Promise<void>
}

export const randomAdminToken = () => `*:*.${randomBytes(28).toString('hex')}`

// Fresh temporary data dir, removed at teardown after every server started on it has stopped.
const serversByDir = new Map<string, Set<TestServer>>()

// Also removed when the test process dies before its teardowns run (a server that failed to start, say).
const leftovers = new Set<string>()
process.once('exit', () => {
  for (const dir of leftovers) rmSync(dir, { recursive: true, force: true })
})

export const makeDataDir = (t: Test): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'unleash-it-'))
  serversByDir.set(dir, new Set())
  leftovers.add(dir)
  t.teardown(async () => {
    for (const server of serversByDir.get(dir) ?? []) await server.stop()
    serversByDir.delete(dir)
    rmSync(dir, { recursive: true, force: true })
    leftovers.delete(dir)
  })
  return dir
}

// Variables of the outer environment that would change what the server does.
const serverEnvKeys = [
  'HTTP_PORT', 'PORT', 'HTTP_HOST', 'DATA_DIR', 'INIT_ADMIN_API_TOKENS', 'INIT_CLIENT_API_TOKENS', 'INIT_BACKEND_API_TOKENS',
  'INIT_FRONTEND_API_TOKENS', 'SNAPSHOT_EVERY', 'MAX_BODY_BYTES', 'UNLEASH_URL', 'METRICS_FLUSH_MS', 'READ_PAGES_RELEASE_MS', 'LOG_LEVEL',
  'NATS_URL', 'READ_REPLICA', 'NATS_STREAM', 'NATS_RETAIN_RECORDS', 'REPLICA_SNAPSHOT_EVERY', 'REPLICA_MAX_LAG', 'WRITER_URL',
  'STREAMING_MAX_CONNECTIONS', 'STREAMING_HEARTBEAT_MS', 'STREAMING_MAX_BUFFERED_BYTES', 'STREAMING_INVITE_POLLERS', 'DELTA_EVENTS_KEPT', 'METRICS_TOKEN',
  'CSRF_ALLOWED_ORIGINS', 'TRUST_PROXY', 'SIMPLE_LOGIN_LIMIT_PER_MINUTE', 'LOGIN_MAX_FAILURES_PER_MINUTE',
]

const serverEnv = (dataDir: string, adminToken: string | null, extra: Record<string, string>): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !serverEnvKeys.includes(key)) env[key] = value
  return {
    ...env,
    HTTP_PORT: '0',
    HTTP_HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ...(adminToken ? { INIT_ADMIN_API_TOKENS: adminToken } : {}),
    ...extra,
  }
}

const startInProcess = async (dataDir: string, env: Record<string, string>, adminToken: string | null): Promise<TestServer> => {
  const running: RunningServer = await startServer(loadConfig(env))
  const token = adminToken ?? running.createdAdminToken
  if (!token) throw new Error('the server started without an admin token')
  let stopped: Promise<number | null> | undefined
  return {
    mode: 'in-process',
    pid: process.pid,
    baseUrl: `http://127.0.0.1:${running.port}`,
    port: running.port,
    dataDir,
    adminToken: token,
    output: () => '',
    stop: () => (stopped ??= running.close().then(() => 0)),
    kill: () => Promise.reject(new Error('kill() needs a child-process server (mode: "child")')),
  }
}

// What the start waits for is the listening line; this bound only ends a start that hangs. A start on a
// 2-core machine busy with the rest of the suite has taken over 20 s.
const listeningLineTimeoutMs = 90_000
const listeningLine = /listening on http:\/\/([^\s:/]+):(\d+)/
const createdTokenLine = /Created an admin API token[^:]*: (\S+)/

const startChild = (dataDir: string, env: Record<string, string>, adminToken: string | null, fileSizeLimitKb?: number): Promise<TestServer> => {
  if (!existsSync(builtMain)) return Promise.reject(new Error(`${builtMain} is missing: run \`npx tsc -p .\` first`))
  const stdio: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe']
  const child: ChildProcess =
    fileSizeLimitKb === undefined
      ? spawn(process.execPath, [builtMain], { env, stdio })
      : spawn('/bin/sh', ['-c', `ulimit -S -f ${fileSizeLimitKb} && exec "$0" "$1"`, process.execPath, builtMain], { env, stdio })
  let output = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ? null : code)))
  let hasExited = false
  void exited.then(() => {
    hasExited = true
  })
  const signal = async (name: NodeJS.Signals, graceMs: number): Promise<number | null> => {
    if (!hasExited) child.kill(name)
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
    const code = await exited
    clearTimeout(timer)
    return code
  }
  return new Promise((resolve, reject) => {
    const timeout = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the server did not print its listening line within ${listeningLineTimeoutMs / 1000} s; output:\n${output}`))
    }, listeningLineTimeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = listeningLine.exec(output)
      if (!match) return
      clearTimeout(timeout)
      const token = adminToken ?? createdTokenLine.exec(output)?.[1]
      if (!token) {
        child.kill('SIGKILL')
        reject(new Error(`no admin token: none given and none printed; output:\n${output}`))
        return
      }
      const port = Number(match[2])
      let stopped: Promise<number | null> | undefined
      resolve({
        mode: 'child',
        pid: child.pid!,
        baseUrl: `http://${match[1]}:${port}`,
        port,
        dataDir,
        adminToken: token,
        output: () => output,
        stop: () => (stopped ??= signal('SIGTERM', 15_000)),
        kill: async () => {
          stopped ??= signal('SIGKILL', 5_000)
          await stopped
        },
      })
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    void exited.then((code) => {
      clearTimeout(timeout)
      if (!listeningLine.test(output)) reject(new Error(`the server exited (${code}) before listening; output:\n${output}`))
    })
  })
}

// Starts the real server on a free loopback port; it is stopped at the end of `t` whatever happens.
export const startTestServer = async (t: Test, options: TestServerOptions = {}): Promise<TestServer> => {
  const dataDir = options.dataDir ?? makeDataDir(t)
  const adminToken = options.adminToken === undefined ? randomAdminToken() : options.adminToken
  const env = serverEnv(dataDir, adminToken, options.env ?? {})
  const mode = options.mode ?? 'in-process'
  const server = mode === 'child' ? await startChild(dataDir, env, adminToken, options.fileSizeLimitKb) : await startInProcess(dataDir, env, adminToken)
  serversByDir.get(dataDir)?.add(server)
  t.teardown(() => server.stop())
  return server
}
