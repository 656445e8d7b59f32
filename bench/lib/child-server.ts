import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export interface ChildServer {
  name: string
  pid: number
  port: number
  url: string
  output(): string
  stop(): Promise<void>
}

export interface ChildServerOptions {
  name: string
  script: string
  env?: Record<string, string>
  nodeArgs?: string[]
  readyTimeoutMs?: number
}

const ready = /listening on http:\/\/([^\s/]+):(\d+)/

// glibc's malloc with the fixed mmap threshold and V8's young generation of 16 MiB that `npm start` gives
// the server (package.json), unless the environment sets them: the servers measured run as they run in
// service.
const serviceDefaults = { MALLOC_MMAP_THRESHOLD_: '131072', NODE_OPTIONS: '--max-semi-space-size=8' }

// Starts `node script` and resolves once it prints "listening on http://host:port".
export const startChildServer = (options: ChildServerOptions): Promise<ChildServer> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script], {
      env: { ...serviceDefaults, ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    let started = false
    const exited = new Promise<void>((done) => child.once('exit', () => done()))
    const fail = (message: string) => {
      if (started) return
      started = true
      child.kill('SIGKILL')
      reject(new Error(`${options.name}: ${message}\n${output}`))
    }
    const timer = setTimeout(() => fail('did not start in time'), options.readyTimeoutMs ?? 30_000)
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.length > 100_000) output = output.slice(-50_000)
      const match = ready.exec(output)
      if (!match || started) return
      started = true
      clearTimeout(timer)
      const port = Number(match[2])
      resolve({
        name: options.name,
        pid: child.pid!,
        port,
        url: `http://${match[1]}:${port}`,
        output: () => output,
        stop: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return
          child.kill('SIGTERM')
          const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
          await exited
          clearTimeout(killer)
        },
      })
    }
    child.stdout.on('data', onOutput)
    child.stderr.on('data', onOutput)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      fail(`exited before it was ready (code ${code}, signal ${signal})`)
    })
  })

// A fresh temp directory whose name has no dot: lmdb-js takes a path with an extension for a file.
export const tempDir = (prefix: string): string => mkdtempSync(path.join(os.tmpdir(), prefix.replace(/\./g, '-')))

const here = path.dirname(fileURLToPath(import.meta.url))

export interface FlagServerOptions {
  adminToken: string
  clientToken: string
  env?: Record<string, string>
  nodeArgs?: string[]
  // Another build's main.js (BENCH_SERVER_MAIN: an older commit's dist/, say); by default this one's.
  script?: string
  // A data directory the caller keeps (to restart on it); by default a temp directory removed at stop.
  dataDir?: string
}

export const flagServerScript = (options: Pick<FlagServerOptions, 'script'>): string => options.script ?? path.join(here, '..', '..', 'src', 'main.js')

// The environment our server is started with: a free loopback port, the data directory and the tokens.
export const flagServerEnv = (options: FlagServerOptions, dataDir: string): Record<string, string> => ({
  HTTP_HOST: '127.0.0.1',
  HTTP_PORT: '0',
  DATA_DIR: dataDir,
  INIT_ADMIN_API_TOKENS: options.adminToken,
  INIT_CLIENT_API_TOKENS: options.clientToken,
  ...options.env,
})

// Our server from dist/, on a free loopback port and a temp data directory removed at stop (or options.dataDir).
export const startFlagServer = async (options: FlagServerOptions): Promise<ChildServer> => {
  const root = options.dataDir === undefined ? tempDir('flag-bench-') : undefined
  const removeRoot = () => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true })
  }
  const server = await startChildServer({
    name: 'flag server',
    script: flagServerScript(options),
    nodeArgs: options.nodeArgs,
    env: flagServerEnv(options, options.dataDir ?? path.join(root!, 'data')),
  }).catch((error: unknown) => {
    removeRoot()
    throw error
  })
  return {
    ...server,
    stop: async () => {
      await server.stop()
      removeRoot()
    },
  }
}

export interface ConstantRoute {
  // GET unless given; a POST route reads the whole request body before it answers.
  method?: 'GET' | 'POST'
  path: string
  // Sent with every 200, in this order.
  headers: Record<string, string>
  body: Buffer
  gzipBody?: Buffer
  // When set, a request whose If-None-Match equals it gets a 304.
  etag?: string
}

export interface ConstantRouteSpec {
  method?: 'GET' | 'POST'
  path: string
  headers: Record<string, string>
  bodyFile: string
  gzipFile?: string
  etag?: string
}

// The bare uWebSockets.js baseline (constant-server.ts) with the given bodies.
export const startConstantServer = async (routes: ConstantRoute[], nodeArgs?: string[]): Promise<ChildServer> => {
  const root = tempDir('constant-bench-')
  const specs: ConstantRouteSpec[] = routes.map((route, i) => {
    const bodyFile = path.join(root, `body-${i}`)
    writeFileSync(bodyFile, route.body)
    let gzipFile: string | undefined
    if (route.gzipBody) writeFileSync((gzipFile = path.join(root, `body-${i}.gz`)), route.gzipBody)
    return { method: route.method, path: route.path, headers: route.headers, bodyFile, gzipFile, etag: route.etag }
  })
  const specFile = path.join(root, 'routes.json')
  writeFileSync(specFile, JSON.stringify(specs))
  const server = await startChildServer({
    name: 'bare uWS baseline',
    script: path.join(here, 'constant-server.js'),
    nodeArgs,
    env: { CONSTANT_SERVER_ROUTES: specFile },
  }).catch((error: unknown) => {
    rmSync(root, { recursive: true, force: true })
    throw error
  })
  return {
    ...server,
    stop: async () => {
      await server.stop()
      rmSync(root, { recursive: true, force: true })
    },
  }
}
