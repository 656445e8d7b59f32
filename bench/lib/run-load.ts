import { Worker } from 'node:worker_threads'
import { LatencyHistogram } from './latency-histogram.js'

export interface LoadOptions {
  host?: string
  port: number
  method?: string
  path: string
  // Sent verbatim, in this order; Host and Connection are added (and Content-Length with a body).
  headers: Record<string, string>
  body?: string
  // Requests that differ per connection (writes that must not collide): connection i sends
  // requestsFor(i)[0], [1], ... in turn, round and round. Without it every connection sends the one above.
  requestsFor?: (connection: number) => RequestSpec[]
  // Load goes to this machine only, unless the caller names another host on purpose (--target).
  allowRemote?: boolean
  connections?: number
  workers?: number
  warmupMs?: number
  durationMs?: number
  // Called on the main thread when the measured window opens and closes, e.g. to sample the server.
  onMeasureStart?: () => void
  onMeasureEnd?: () => void
}

export interface RequestSpec {
  method: string
  path: string
  headers: Record<string, string>
  body?: string
  // A placeholder of digits' width (e.g. '########') in the path or body: each time the request is sent,
  // every occurrence is replaced by that connection's count of sends of it, zero-padded to the same
  // width, so that every request is a new one (flag creations; the name must differ per connection).
  sequence?: string
}

export interface LoadResult {
  requests: number
  durationMs: number
  requestsPerSecond: number
  latency: LatencyHistogram
  statuses: Record<string, number>
  headerBytesPerResponse: number
  bodyBytesPerResponse: number
  errorCount: number
  errors: string[]
  // CPU of the whole load-generator process over the run, in % of one core.
  clientCpuPercent: number
}

export interface LoadWorkerInput {
  host: string
  port: number
  // One list per connection of this worker.
  requests: Uint8Array[][]
  // Per connection and request: where a RequestSpec's sequence placeholder is in its bytes (empty: none).
  sequenceAt: number[][][]
  sequenceWidth: number[][]
  startAtEpochMs: number
  measureFromEpochMs: number
  stopAtEpochMs: number
}

export interface LoadWorkerOutput {
  requests: number
  headerBytes: number
  bodyBytes: number
  statuses: Record<string, number>
  errorCount: number
  errors: string[]
  counts: Uint32Array
}

// Load is only ever sent to this machine.
const isLoopback = (host: string) => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)

export const requestBytes = (method: string, host: string, port: number, path: string, headers: Record<string, string>, body?: string): Buffer => {
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${host}:${port}`, 'Connection: keep-alive']
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`)
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body, 'utf8')
  if (body !== undefined) lines.push(`Content-Length: ${payload.length}`)
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload])
}

// Every offset of `placeholder` in the request's bytes.
const placesOf = (bytes: Buffer, placeholder: string): number[] => {
  const places: number[] = []
  for (let at = bytes.indexOf(placeholder, 0, 'latin1'); at >= 0; at = bytes.indexOf(placeholder, at + placeholder.length, 'latin1')) places.push(at)
  if (places.length === 0) throw new Error(`the sequence placeholder "${placeholder}" is not in the request`)
  return places
}

const runWorker = (input: LoadWorkerInput) =>
  new Promise<LoadWorkerOutput>((resolve, reject) => {
    const worker = new Worker(new URL('./load-worker.js', import.meta.url), { workerData: input })
    let result: LoadWorkerOutput | undefined
    worker.once('message', (message: LoadWorkerOutput) => {
      result = message
    })
    worker.once('error', reject)
    worker.once('exit', (code) => (result ? resolve(result) : reject(new Error(`a load worker exited with code ${code} and no result`))))
  })

// Closed loop: `connections` keep-alive connections split over `workers` threads, each sending its
// next request when the previous response has arrived. Only responses to requests sent after the
// warm-up and received before the end are counted.
export const runLoad = async (options: LoadOptions): Promise<LoadResult> => {
  const host = options.host ?? '127.0.0.1'
  if (!isLoopback(host) && !options.allowRemote) throw new Error(`refusing to send load to ${host}: benchmarks only target this machine`)
  const workers = Math.max(1, options.workers ?? 2)
  const connections = Math.max(workers, options.connections ?? 32)
  const warmupMs = options.warmupMs ?? 1000
  const durationMs = options.durationMs ?? 5000
  const request = requestBytes(options.method ?? 'GET', host, options.port, options.path, options.headers, options.body)
  const requestsOf = (connection: number): { bytes: Uint8Array; at: number[]; width: number }[] =>
    options.requestsFor
      ? options.requestsFor(connection).map((r) => {
          const bytes = requestBytes(r.method, host, options.port, r.path, r.headers, r.body)
          return { bytes, at: r.sequence ? placesOf(bytes, r.sequence) : [], width: r.sequence?.length ?? 0 }
        })
      : [{ bytes: request, at: [], width: 0 }]
  let nextConnection = 0
  // Time for the threads to start and connect before the first request.
  const startAtEpochMs = Date.now() + 250
  const measureFromEpochMs = startAtEpochMs + warmupMs
  const stopAtEpochMs = measureFromEpochMs + durationMs
  const cpuBefore = process.cpuUsage()
  const wallBefore = performance.now()
  // Each hook runs exactly once, even when the workers finish before its timer fires.
  const once = (hook: (() => void) | undefined) => {
    let pending = hook
    return () => {
      const run = pending
      pending = undefined
      run?.()
    }
  }
  const measureStart = once(options.onMeasureStart)
  const measureEnd = once(options.onMeasureEnd)
  const timers = [setTimeout(measureStart, measureFromEpochMs - Date.now()), setTimeout(measureEnd, stopAtEpochMs - Date.now())]
  const outputs = await Promise.all(
    Array.from({ length: workers }, (_, i) => {
      const lists = Array.from({ length: Math.floor(connections / workers) + (i < connections % workers ? 1 : 0) }, () => requestsOf(nextConnection++))
      return runWorker({
        host,
        port: options.port,
        requests: lists.map((list) => list.map((r) => r.bytes)),
        sequenceAt: lists.map((list) => list.map((r) => r.at)),
        sequenceWidth: lists.map((list) => list.map((r) => r.width)),
        startAtEpochMs,
        measureFromEpochMs,
        stopAtEpochMs,
      })
    }),
  )
  const cpu = process.cpuUsage(cpuBefore)
  const wallMs = performance.now() - wallBefore
  for (const timer of timers) clearTimeout(timer)
  measureStart()
  measureEnd()

  const latency = new LatencyHistogram()
  const statuses: Record<string, number> = {}
  let requests = 0
  let headerBytes = 0
  let bodyBytes = 0
  let errorCount = 0
  const errors: string[] = []
  for (const output of outputs) {
    latency.add(new LatencyHistogram(output.counts))
    for (const [status, n] of Object.entries(output.statuses)) statuses[status] = (statuses[status] ?? 0) + n
    requests += output.requests
    headerBytes += output.headerBytes
    bodyBytes += output.bodyBytes
    errorCount += output.errorCount
    for (const e of output.errors) if (!errors.includes(e)) errors.push(e)
  }
  return {
    requests,
    durationMs,
    requestsPerSecond: (requests * 1000) / durationMs,
    latency,
    statuses,
    headerBytesPerResponse: requests > 0 ? headerBytes / requests : 0,
    bodyBytesPerResponse: requests > 0 ? bodyBytes / requests : 0,
    errorCount,
    errors,
    clientCpuPercent: ((cpu.user + cpu.system) / 1000 / wallMs) * 100,
  }
}
