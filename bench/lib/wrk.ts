// wrk (https://github.com/wg/wrk, Debian's `wrk` package) as the load generator: C, one epoll thread,
// about a tenth of the CPU per request of the Node generator in run-load.ts. On a 2-core machine the
// generator's CPU is taken from the server under test, and a Node generator saturates before bare uWS
// does, which pulls every req/s ratio towards 1; wrk does not (issue 26).
//
// A run is wrk with a generated Lua script that sets the method, headers and body (a static request:
// wrk formats it once, and calls no Lua per request) and prints, when wrk is done, its summary and every
// distinct latency with its count, which become a LatencyHistogram like the Node generator's.
// A request with a sequence placeholder (flag creations: every send a new name) is the exception: Lua
// formats each request with a new value in place of the placeholder, and counts the statuses.
import { spawn, spawnSync } from 'node:child_process'
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { LatencyHistogram } from './latency-histogram.js'
import { ResponseReader } from './response-reader.js'
import { requestBytes, type LoadOptions, type LoadResult } from './run-load.js'

export interface Wrk {
  path: string
  version: string
}

// wrk on PATH, or undefined. BENCH_LOAD=node keeps the Node generator even where wrk is installed.
export const findWrk = (): Wrk | undefined => {
  if (process.env.BENCH_LOAD === 'node') return undefined
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue
    const candidate = path.join(dir, 'wrk')
    try {
      accessSync(candidate, constants.X_OK)
    } catch {
      continue
    }
    // `wrk -v` prints its version and usage, and exits 1.
    const out = spawnSync(candidate, ['-v'], { encoding: 'utf8' })
    const version = /wrk\s+(\S+)/.exec(`${out.stdout}${out.stderr}`)?.[1] ?? 'unknown'
    return { path: candidate, version }
  }
  return undefined
}

// A Lua string literal of any bytes: printable ASCII as is, the rest as three-digit decimal escapes (a
// shorter one would take the digit after it).
const luaString = (value: string): string => {
  let out = '"'
  for (const byte of Buffer.from(value, 'utf8')) {
    if (byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c) out += String.fromCharCode(byte)
    else out += `\\${String(byte).padStart(3, "0")}`
  }
  return `${out}"`
}

const marker = 'WRK-RESULT '
const isLoopback = (host: string) => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)

// A value that differs at every send, put in place of the request's sequence placeholder: the run's tag
// (a script argument), then a count that each of wrk's threads steps by the number of threads from its
// own start, so that no two sends of any run share one. wrk sets Content-Length, so its length may vary.
export interface WrkSequence {
  placeholder: string
  path: string
  threads: number
}
const luaParts = (text: string, placeholder: string) => `{ ${text.split(placeholder).map(luaString).join(', ')} }`
const sequencedRequest = (sequence: WrkSequence, body: string | undefined): string[] => [
  'local threads = {}',
  'setup = function(thread)',
  '  thread:set("first", #threads)',
  '  table.insert(threads, thread)',
  'end',
  'init = function(args)',
  '  tag = args[1]',
  '  count = first',
  '  statuses = {}',
  'end',
  `local pathParts = ${luaParts(sequence.path, sequence.placeholder)}`,
  `local bodyParts = ${body === undefined ? 'nil' : luaParts(body, sequence.placeholder)}`,
  'request = function()',
  `  count = count + ${sequence.threads}`,
  '  local value = tag .. "x" .. count',
  '  return wrk.format(nil, table.concat(pathParts, value), nil, bodyParts and table.concat(bodyParts, value))',
  'end',
  'response = function(status, headers, body)',
  '  statuses[status] = (statuses[status] or 0) + 1',
  'end',
  'local function writeStatuses()',
  '  local counts = {}',
  '  for _, thread in ipairs(threads) do',
  '    for status, n in pairs(thread:get("statuses")) do counts[status] = (counts[status] or 0) + n end',
  '  end',
  '  local parts = {}',
  '  for status, n in pairs(counts) do parts[#parts + 1] = string.format("%d:%d", status, n) end',
  `  io.write("${marker}statuses ", table.concat(parts, " "), "\\n")`,
  'end',
]

export const wrkScript = (method: string, headers: Record<string, string>, body: string | undefined, sequence?: WrkSequence): string =>
  [
    `wrk.method = ${luaString(method)}`,
    ...Object.entries(headers).map(([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`),
    ...(sequence ? sequencedRequest(sequence, body) : body === undefined ? [] : [`wrk.body = ${luaString(body)}`]),
    'done = function(summary, latency, requests)',
    ...(sequence ? ['  writeStatuses()'] : []),
    '  local e = summary.errors',
    `  io.write(string.format("${marker}%d %d %d %d %d %d %d %d\\n", summary.requests, summary.bytes, summary.duration, e.connect, e.read, e.write, e.status, e.timeout))`,
    '  local parts = {}',
    '  for i = 1, #latency do',
    '    local value, count = latency(i)',
    '    parts[#parts + 1] = string.format("%d:%d", value, count)',
    '  end',
    `  io.write("${marker}latency ", table.concat(parts, " "), "\\n")`,
    'end',
    '',
  ].join('\n')

// user + system time of this process's children that have been waited for (wrk, once it exits).
const childrenCpuMs = (): number => {
  const stat = readFileSync('/proc/self/stat', 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // cutime and cstime are fields 16 and 17 of stat (1-based), 13 and 14 after the command name.
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / ticksPerSecond
}
const ticksPerSecond = (() => {
  const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })
  return Number(out.stdout?.trim()) || 100
})()

// One request over a fresh connection: the status and size every response of the run should have.
export const probe = (host: string, port: number, request: Buffer): Promise<{ status: number; headerBytes: number; bodyBytes: number }> =>
  new Promise((resolve, reject) => {
    const socket = net.connect({ host, port })
    const reader = new ResponseReader((response) => {
      socket.destroy()
      resolve(response)
    })
    socket.on('connect', () => socket.write(request))
    socket.on('data', (chunk: Buffer) => reader.push(chunk))
    socket.on('error', reject)
    socket.setTimeout(30_000, () => socket.destroy(new Error('the probe request timed out')))
  })

// "value:count value:count ..." as number pairs.
const pairsOf = (text: string): [number, number][] =>
  text
    .trim()
    .split(' ')
    .filter((pair) => pair !== '')
    .map((pair) => pair.split(':').map(Number) as [number, number])

interface WrkRun {
  requests: number
  // Counted by the script (sequenced requests only).
  statuses: Record<string, number> | undefined
  bytes: number
  durationUs: number
  errors: { connect: number; read: number; write: number; status: number; timeout: number }
  latency: LatencyHistogram
}

// wrk stops at SIGINT like at the end of -d, and reports the time it really ran: durations need not be
// whole seconds.
const runOnce = (wrk: Wrk, url: string, scriptFile: string, connections: number, threads: number, durationMs: number, tag: string): Promise<WrkRun> =>
  new Promise((resolve, reject) => {
    const args = ['-t', String(threads), '-c', String(connections), '-d', `${Math.ceil(durationMs / 1000) + 60}s`, '--timeout', '30s', '-s', scriptFile, url, '--', tag]
    const child = spawn(wrk.path, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGINT'), durationMs)
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      const lines = output.split('\n').filter((line) => line.startsWith(marker))
      const summary = lines.find((line) => !line.startsWith(`${marker}latency`) && !line.startsWith(`${marker}statuses`))
      const latencyLine = lines.find((line) => line.startsWith(`${marker}latency`))
      const statusLine = lines.find((line) => line.startsWith(`${marker}statuses`))
      if (!summary || !latencyLine) {
        reject(new Error(`wrk exited (code ${code}, signal ${signal}) without its result:\n${output.slice(-2000)}`))
        return
      }
      const [requests, bytes, durationUs, connect, read, write, status, timeout] = summary.slice(marker.length).trim().split(' ').map(Number)
      const latency = new LatencyHistogram()
      for (const [value, count] of pairsOf(latencyLine.slice(`${marker}latency`.length))) for (let i = 0; i < count; i++) latency.recordMicros(value)
      const statuses = statusLine === undefined ? undefined : Object.fromEntries(pairsOf(statusLine.slice(`${marker}statuses`.length)).map(([code, count]) => [String(code), count]))
      resolve({ requests, bytes, durationUs, statuses, errors: { connect, read, write, status, timeout }, latency })
    })
  })

export interface WrkLoadResult extends LoadResult {
  // CPU time wrk used in the measured run, in ms.
  generatorCpuMs: number
}

// Each run of wrk tags the values it puts in place of a sequence placeholder with a tag of its own.
let runs = 0
const nextTag = () => `${process.pid}t${++runs}`

// The same contract as runLoad() for a single request (every connection sends the same one): a warm-up
// run, then the measured run between onMeasureStart and onMeasureEnd. A static request's statuses are
// not read per response (that would run Lua per response): a probe request gives the status and size,
// and every response of the run must have that size and a 2xx/3xx status; the others count under
// "other". With `sequence` (runLoad's RequestSpec.sequence: a placeholder in options.path or
// options.body that every send replaces with a new value), Lua runs per request anyway, and counts
// each response's status.
export const runWrk = async (wrk: Wrk, options: LoadOptions & { threads?: number; sequence?: string }): Promise<WrkLoadResult> => {
  if (options.requestsFor) throw new Error('wrk sends one request on every connection: use runLoad() for requestsFor')
  const host = options.host ?? '127.0.0.1'
  // As runLoad(): load goes to this machine only, unless the caller names another host on purpose.
  if (!isLoopback(host) && !options.allowRemote) throw new Error(`refusing to send load to ${host}: benchmarks only target this machine`)
  const connections = Math.max(1, options.connections ?? 32)
  const threads = Math.max(1, Math.min(connections, options.threads ?? 1))
  const method = options.method ?? 'GET'
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wrk-'))
  try {
    const scriptFile = path.join(dir, 'request.lua')
    const sequence = options.sequence === undefined ? undefined : { placeholder: options.sequence, path: options.path, threads }
    writeFileSync(scriptFile, wrkScript(method, { ...options.headers, Connection: 'keep-alive' }, options.body, sequence))
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${options.port}${options.path}`
    // A sequenced request is probed with a value of its own, as every send has.
    const probed = (text: string) => (options.sequence === undefined ? text : text.replaceAll(options.sequence, `${nextTag()}probe`))
    const expected = await probe(host, options.port, requestBytes(method, host, options.port, probed(options.path), options.headers, options.body && probed(options.body)))
    if ((options.warmupMs ?? 1000) > 0) await runOnce(wrk, url, scriptFile, connections, threads, options.warmupMs ?? 1000, nextTag())
    const cpuBefore = childrenCpuMs()
    options.onMeasureStart?.()
    const run = await runOnce(wrk, url, scriptFile, connections, threads, options.durationMs ?? 5000, nextTag())
    options.onMeasureEnd?.()
    const generatorCpuMs = childrenCpuMs() - cpuBefore
    const durationMs = run.durationUs / 1000
    const errorCount = run.errors.connect + run.errors.read + run.errors.write + run.errors.timeout
    const bytesPerResponse = run.requests > 0 ? run.bytes / run.requests : 0
    // Every response of a run is the same bytes (the Date header keeps its length): a different mean
    // size means some other answer came back. wrk also counts the bytes of the responses each connection
    // was still reading when the run ended (not counted as requests): up to one response per connection,
    // which for bodies of megabytes moves the mean by more than a byte.
    const expectedBytes = expected.headerBytes + expected.bodyBytes
    const unfinished = run.requests > 0 ? (connections * expectedBytes) / run.requests : 0
    const sameSize = bytesPerResponse - expectedBytes > -0.5 && bytesPerResponse - expectedBytes < unfinished + 0.5
    const statuses: Record<string, number> = run.statuses ?? {}
    if (!run.statuses) {
      const good = run.requests - run.errors.status
      if (sameSize) statuses[expected.status] = good
      else statuses[`${expected.status}, other sizes (mean ${bytesPerResponse.toFixed(1)} B, expected ${expectedBytes})`] = good
      if (run.errors.status > 0) statuses['not 2xx/3xx'] = run.errors.status
    }
    const errors = errorCount > 0 ? [`wrk: ${JSON.stringify(run.errors)}`] : []
    return {
      requests: run.requests,
      durationMs,
      requestsPerSecond: run.requests / (durationMs / 1000),
      latency: run.latency,
      statuses,
      headerBytesPerResponse: expected.headerBytes,
      bodyBytesPerResponse: expected.bodyBytes,
      errorCount,
      errors,
      clientCpuPercent: (generatorCpuMs / durationMs) * 100,
      generatorCpuMs,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
