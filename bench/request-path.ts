// The JavaScript our server runs per SDK request, without the network (issue 26): the server is started
// in this process on its real uWebSockets.js, seeded over HTTP, and then its uWS request handler is
// called directly, a million times, with stand-in request and response objects for a
// `GET /api/client/features` answered 304 and a `POST /api/frontend` (a cached answer of 1,000 flags).
// It reports CPU ns per request, the uWS calls each one makes (header reads, writes), and the same for
// a handler doing what bare uWS does in bench/lib/constant-server.ts: the difference is what our
// per-request code costs over bare uWS, less the native side of each uWS call (a stand-in's getHeader
// makes a fresh string like uWS's, but does not parse anything).
//
// Run: node scripts/build.mjs && node --expose-gc dist/bench/request-path.js
// Knobs: BENCH_FLAGS (1000), BENCH_REQUESTS (1000000 per case), BENCH_ROUNDS (5, alternating), BENCH_CASES
// (client_304,frontend). With --cpu-prof the profile shows this JavaScript, which a profile of the server
// under load does not: V8 counts what runs inside libuv's poll phase, the uWS callbacks, as idle.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type * as uWS from 'uWebSockets.js'
import { loadConfig } from '../src/config.js'
import { startServer } from '../src/server.js'
import { uwsBuild } from '../src/http/uws.js'
import { AdminApi, forEachLimited } from './lib/admin-api.js'
import { fixed, formatTable } from './lib/format-table.js'
import { rawGet } from './lib/raw-get.js'
import { realisticFeatures, registerStrategyTypes, seedFeature } from './lib/realistic-features.js'
import { positiveInteger } from './lib/settings.js'
import { sdkPollHeaders } from './lib/sdk-headers.js'

const FLAGS = positiveInteger('BENCH_FLAGS', 1000)
const REQUESTS = positiveInteger('BENCH_REQUESTS', 1_000_000)
const ROUNDS = positiveInteger('BENCH_ROUNDS', 5)
const CASES = (process.env.BENCH_CASES || 'client_304,frontend').split(',')

type Handler = (res: uWS.HttpResponse, req: uWS.HttpRequest) => void

// The server's uWS handlers are kept by method and pattern (`any /*`, and `get /api/client/features` for
// a route uWS matches itself): the uWS module src/http/uws.ts loads is one object for the whole process,
// and its App is wrapped before the server makes its app.
const captured = new Map<string, Handler>()
const handlerFor = (method: string, path: string): Handler => {
  const handler = captured.get(`${method.toLowerCase()} ${path}`) ?? captured.get('any /*')
  if (!handler) throw new Error('the uWS handler was not captured')
  return handler
}
const installCapture = () => {
  const uws = uwsBuild().uws as { App: (...args: unknown[]) => uWS.TemplatedApp }
  const realApp = uws.App
  uws.App = (...args: unknown[]) => {
    const app = realApp(...args)
    return new Proxy(app, {
      get(target, key) {
        if (key === 'any' || key === 'get' || key === 'post') {
          return (pattern: string, handler: Handler) => {
            captured.set(`${key} ${pattern}`, handler)
            return target[key](pattern, handler)
          }
        }
        const value = Reflect.get(target, key) as unknown
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
      },
    })
  }
}

// uWS hands out a new string per call, made from the request's bytes: so does this, from latin1 bytes.
const fresh = (value: string) => {
  const bytes = Buffer.from(value, 'latin1')
  return () => bytes.toString('latin1')
}

const counts = { uwsCalls: 0, headerReads: 0, writes: 0 }

class StandInRequest {
  private readonly headers: Map<string, () => string>
  private readonly method: () => string
  private readonly url: () => string
  private readonly query: (() => string) | undefined
  constructor(method: string, url: string, query: string | undefined, headers: Record<string, string>) {
    this.method = fresh(method)
    this.url = fresh(url)
    this.query = query === undefined ? undefined : fresh(query)
    this.headers = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), fresh(v)]))
  }
  getCaseSensitiveMethod() {
    counts.uwsCalls++
    return this.method()
  }
  getMethod() {
    counts.uwsCalls++
    return this.method().toLowerCase()
  }
  getUrl() {
    counts.uwsCalls++
    return this.url()
  }
  getQuery() {
    counts.uwsCalls++
    return this.query?.()
  }
  // The server passes names as strings or Buffers (which uWS reads without converting them).
  getHeader(name: string | Buffer) {
    counts.uwsCalls++
    counts.headerReads++
    return this.headers.get(typeof name === 'string' ? name : nameOf(name))?.() ?? ''
  }
  forEach(cb: (key: string, value: string) => void) {
    counts.uwsCalls++
    for (const [k, v] of this.headers) {
      counts.headerReads++
      cb(k, v())
    }
  }
}

const names = new WeakMap<Buffer, string>()
const nameOf = (key: Buffer): string => {
  let name = names.get(key)
  if (name === undefined) names.set(key, (name = key.toString('latin1')))
  return name
}

const address = Buffer.from('127.0.0.1')

class StandInResponse {
  status = ''
  dataHandler: ((chunk: ArrayBuffer, isLast: boolean) => void) | undefined
  finished = false
  constructor(private readonly onEnd: (() => void) | undefined) {}
  private finish() {
    this.finished = true
    this.onEnd?.()
  }
  writeStatus(status: string | Buffer) {
    counts.uwsCalls++
    counts.writes++
    this.status = typeof status === 'string' ? status : nameOf(status)
    return this
  }
  writeHeader() {
    counts.uwsCalls++
    counts.writes++
    return this
  }
  end() {
    counts.uwsCalls++
    counts.writes++
    // uWS sends 200 OK when no status was written.
    this.status ||= '200 OK'
    this.finish()
    return this
  }
  endWithoutBody() {
    counts.uwsCalls++
    counts.writes++
    this.finish()
    return this
  }
  cork(fn: () => void) {
    counts.uwsCalls++
    fn()
    return this
  }
  onAborted() {
    counts.uwsCalls++
    return this
  }
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void) {
    counts.uwsCalls++
    this.dataHandler = handler
    return this
  }
  getRemoteAddressAsText() {
    counts.uwsCalls++
    return address.buffer.slice(address.byteOffset, address.byteOffset + address.length)
  }
}

// What bench/lib/constant-server.ts does per request.
const bareHandler = (etag: string, body: Buffer): Handler => (res, req) => {
  if (req.getHeader('if-none-match') === etag) {
    res.writeStatus('304 Not Modified').endWithoutBody(0)
    return
  }
  res.onAborted(() => {})
  res.onData((_chunk, isLast) => {
    if (isLast) res.cork(() => res.writeHeader('content-type', 'application/json; charset=utf-8').end(body))
  })
}

// The uWS calls our server makes for the case and nothing else: what the stand-ins themselves cost, to be
// taken from ours (a stand-in's string is dearer than uWS's, read from the request's buffer in C++).
// uWS finds both routes itself (the server gives it every path without parameters), so neither reads the
// method or the path; a 200 leaves its status line to uWS, and the frontend's six headers go in two blocks.
const callsOnly = (key: string): Handler => (res, req) => {
  req.getHeader('authorization')
  if (key === 'client_304') {
    req.getQuery()
    req.getHeader('unleash-client-spec')
    req.getHeader('if-none-match')
    res.writeStatus('304 Not Modified').endWithoutBody(0)
    return
  }
  req.getHeader('origin')
  req.getHeader('content-type')
  req.getHeader('content-length')
  req.getQuery()
  const ifNoneMatch = req.getHeader('if-none-match')
  res.onAborted(() => {})
  res.onData((_chunk, isLast) => {
    if (!isLast) return
    res.cork(() => {
      for (let i = 0; i < 2; i++) res.writeHeader('x', ifNoneMatch)
      res.end('')
    })
  })
}

interface Case {
  key: string
  name: string
  request: StandInRequest
  body?: ArrayBuffer
  expect: string
}

// CPU ns per request over `requests` calls; POSTs go `batch` at a time, each answered after its body.
const measure = async (handler: Handler, c: Case, requests: number): Promise<{ ns: number; uwsCalls: number; headerReads: number; writes: number }> => {
  const before = { ...counts }
  globalThis.gc?.()
  const cpu = process.cpuUsage()
  if (c.body === undefined) {
    for (let i = 0; i < requests; i++) {
      const res = new StandInResponse(undefined)
      handler(res as unknown as uWS.HttpResponse, c.request as unknown as uWS.HttpRequest)
      if (i === 0 && res.status !== c.expect) throw new Error(`${c.name}: answered ${res.status}`)
    }
  } else {
    const batch = 32
    for (let i = 0; i < requests; i += batch) {
      let left = batch
      let done!: () => void
      const all = new Promise<void>((resolve) => (done = resolve))
      const responses: StandInResponse[] = []
      for (let j = 0; j < batch; j++) {
        const res = new StandInResponse(() => {
          if (--left === 0) done()
        })
        responses.push(res)
        handler(res as unknown as uWS.HttpResponse, c.request as unknown as uWS.HttpRequest)
        // uWS calls the data handler right after the request handler, in the same native call.
        res.dataHandler!(c.body, true)
      }
      await all
      if (i === 0 && responses[0].status !== c.expect) throw new Error(`${c.name}: answered ${responses[0].status}`)
    }
  }
  const used = process.cpuUsage(cpu)
  return {
    ns: ((used.user + used.system) * 1000) / requests,
    uwsCalls: (counts.uwsCalls - before.uwsCalls) / requests,
    headerReads: (counts.headerReads - before.headerReads) / requests,
    writes: (counts.writes - before.writes) / requests,
  }
}

const main = async () => {
  installCapture()
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'request-path-'))
  const adminToken = `*:*.${randomBytes(16).toString('hex')}`
  const clientToken = `*:development.${randomBytes(16).toString('hex')}`
  const frontendToken = `*:development.${randomBytes(16).toString('hex')}`
  const env: Record<string, string> = {
    HTTP_PORT: '0',
    HTTP_HOST: '127.0.0.1',
    DATA_DIR: path.join(dataDir, 'data'),
    INIT_ADMIN_API_TOKENS: adminToken,
    INIT_CLIENT_API_TOKENS: clientToken,
    INIT_FRONTEND_API_TOKENS: frontendToken,
    UNLEASH_FEATURE_FLAGS_LIMIT: String(Math.max(5000, FLAGS + 100)),
    LOG_LEVEL: 'warn',
  }
  const server = await startServer(loadConfig(env))
  try {
    const base = `http://127.0.0.1:${server.port}`
    const api = new AdminApi(base, adminToken)
    const features = realisticFeatures(FLAGS)
    await registerStrategyTypes(api, features)
    await forEachLimited(features, 8, (feature) => seedFeature(api, feature))
    // As bench/run.ts sends them.
    const sdkHeaders = { ...sdkPollHeaders(clientToken, '0b9f1a2c-5d7e-4f60-8a1b-2c3d4e5f6a7b'), 'Accept-Encoding': 'gzip,deflate' }
    const plain = await rawGet(`${base}/api/client/features`, sdkHeaders)
    const etag = String(plain.headers.etag)
    const context = { appName: 'bench-app', userId: 'user-4242', sessionId: 'session-17', remoteAddress: '10.1.2.3', properties: { plan: 'pro', tenantId: 'tenant-7' } }
    const frontendBody = JSON.stringify({ context })
    const frontendHeaders = { Host: '127.0.0.1', Authorization: frontendToken, 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': String(Buffer.byteLength(frontendBody)), Connection: 'keep-alive' }
    const frontend = await fetch(`${base}/api/frontend`, { method: 'POST', headers: frontendHeaders, body: frontendBody })
    const frontendAnswer = Buffer.from(await frontend.arrayBuffer())
    const bodyBytes = Buffer.from(frontendBody)
    const cases: Case[] = [
      {
        key: 'client_304',
        name: 'GET /api/client/features, 304',
        request: new StandInRequest('GET', '/api/client/features', undefined, { Host: '127.0.0.1', Connection: 'keep-alive', ...sdkHeaders, 'If-None-Match': etag }),
        expect: '304 Not Modified',
      },
      {
        key: 'frontend',
        name: 'POST /api/frontend',
        request: new StandInRequest('POST', '/api/frontend', undefined, frontendHeaders),
        body: bodyBytes.buffer.slice(bodyBytes.byteOffset, bodyBytes.byteOffset + bodyBytes.length),
        expect: '200 OK',
      },
    ].filter((c) => CASES.includes(c.key))
    const ours = (c: Case) => handlerFor(c.key === 'frontend' ? 'POST' : 'GET', c.key === 'frontend' ? '/api/frontend' : '/api/client/features')
    const bare = bareHandler(etag, frontendAnswer)
    const totals = cases.map(() => ({ ours: [] as number[], bare: [] as number[], calls: [] as number[], counts: { ours: { uwsCalls: 0, headerReads: 0, writes: 0 }, bare: { uwsCalls: 0, headerReads: 0, writes: 0 }, calls: { uwsCalls: 0, headerReads: 0, writes: 0 } } }))
    // Warm-up: both handlers optimised before anything is counted.
    for (const c of cases) {
      await measure(ours(c), c, 50_000)
      await measure(bare, c, 50_000)
      await measure(callsOnly(c.key), c, 50_000)
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, c] of cases.entries()) {
        const o = await measure(ours(c), c, REQUESTS / ROUNDS)
        const b = await measure(bare, c, REQUESTS / ROUNDS)
        const k = await measure(callsOnly(c.key), c, REQUESTS / ROUNDS)
        totals[i].ours.push(o.ns)
        totals[i].bare.push(b.ns)
        totals[i].calls.push(k.ns)
        totals[i].counts = { ours: o, bare: b, calls: k }
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
    const rows = cases.flatMap((c, i) => {
      const t = totals[i]
      const row = (label: string, values: number[], n: { uwsCalls: number; headerReads: number; writes: number }) =>
        [`${c.name}: ${label}`, fixed(median(values), 0), values.map((v) => fixed(v, 0)).join(' '), fixed(n.uwsCalls, 1), fixed(n.headerReads, 1), fixed(n.writes, 1)]
      return [
        row('ours', t.ours, t.counts.ours),
        row("bare uWS's handler", t.bare, t.counts.bare),
        row("ours' uWS calls alone", t.calls, t.counts.calls),
        [`${c.name}: ours - bare`, fixed(median(t.ours) - median(t.bare), 0), '', '', '', ''],
        [`${c.name}: ours - its uWS calls alone`, fixed(median(t.ours) - median(t.calls), 0), '', '', '', ''],
      ]
    })
    console.log(`${FLAGS} flags; ${REQUESTS} requests per case and handler in ${ROUNDS} alternating rounds; Node ${process.version}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`)
    console.log(formatTable(['case: handler', 'CPU ns/request (median)', 'per round', 'uWS calls', 'header reads', 'status/header/body writes'], rows))
  } finally {
    await server.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
