// One load-generator thread: keep-alive connections, each sending its next request (the same one, or
// the next of its own list) as soon as the previous response has fully arrived (a closed loop, like
// wrk without pipelining).
import net from 'node:net'
import { performance } from 'node:perf_hooks'
import { parentPort, workerData } from 'node:worker_threads'
import { LatencyHistogram } from './latency-histogram.js'
import { ResponseReader } from './response-reader.js'
import type { LoadWorkerInput, LoadWorkerOutput } from './run-load.js'

const input = workerData as LoadWorkerInput
// performance.timeOrigin differs per thread; the phases arrive as wall-clock times.
const local = (epochMs: number) => epochMs - performance.timeOrigin
const startAt = local(input.startAtEpochMs)
const measureFrom = local(input.measureFromEpochMs)
const stopAt = local(input.stopAtEpochMs)
const graceMs = 5000
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

const histogram = new LatencyHistogram()
const output: Omit<LoadWorkerOutput, 'counts'> = { requests: 0, headerBytes: 0, bodyBytes: 0, statuses: {}, errorCount: 0, errors: [] }
const sockets = new Set<net.Socket>()

const noteError = (error: unknown) => {
  output.errorCount++
  const message = error instanceof Error ? error.message : String(error)
  if (output.errors.length < 5 && !output.errors.includes(message)) output.errors.push(message)
}

// A request with a sequence placeholder is copied and numbered at each send (a write must not reuse a
// buffer the socket may still hold).
const numbered = (template: Buffer, at: number[], width: number, n: number): Buffer => {
  const bytes = Buffer.from(template)
  const digits = String(n).padStart(width, '0').slice(-width)
  for (const offset of at) bytes.write(digits, offset, 'latin1')
  return bytes
}

const runConnection = (requests: Buffer[], sequenceAt: number[][], sequenceWidth: number[]) =>
  new Promise<void>((resolve) => {
    let sent = 0
    const sends = requests.map(() => 0)
    let finished = false
    const finish = () => {
      if (finished) return
      finished = true
      resolve()
    }
    // A connection whose window closed before any answer it sent in it came back (a busy machine) goes
    // on to that first answer, within the grace: a case never reports nothing for being slow.
    let measuredHere = 0
    const connect = () => {
      let sentAt = 0
      const socket = net.connect({ host: input.host, port: input.port, noDelay: true })
      sockets.add(socket)
      const send = () => {
        const i = sent++ % requests.length
        const request = sequenceAt[i].length > 0 ? numbered(requests[i], sequenceAt[i], sequenceWidth[i], sends[i]++) : requests[i]
        sentAt = performance.now()
        socket.write(request)
      }
      const reader = new ResponseReader((response) => {
        const now = performance.now()
        if (sentAt >= measureFrom && (now <= stopAt || measuredHere === 0)) {
          measuredHere++
          histogram.recordMicros((now - sentAt) * 1000)
          output.requests++
          output.headerBytes += response.headerBytes
          output.bodyBytes += response.bodyBytes
          output.statuses[response.status] = (output.statuses[response.status] ?? 0) + 1
        }
        if (now < stopAt || measuredHere === 0) send()
        else {
          socket.end()
          finish()
        }
      })
      let failed = false
      const fail = (error: unknown) => {
        if (failed || finished) return
        failed = true
        noteError(error)
        socket.destroy()
        sockets.delete(socket)
        if (performance.now() < stopAt) setTimeout(connect, 10)
        else finish()
      }
      socket.on('connect', () => setTimeout(send, Math.max(0, startAt - performance.now())))
      socket.on('data', (chunk: Buffer) => {
        try {
          reader.push(chunk)
        } catch (error) {
          fail(error)
        }
      })
      socket.on('error', fail)
      socket.on('close', () => {
        sockets.delete(socket)
        if (!finished) fail(new Error('the server closed a keep-alive connection'))
      })
    }
    connect()
  })

const deadline = setTimeout(() => {
  for (const socket of sockets) socket.destroy()
}, stopAt + graceMs - performance.now())

await Promise.all(input.requests.map((list, c) => runConnection(list.map(asBuffer), input.sequenceAt[c], input.sequenceWidth[c])))
clearTimeout(deadline)
for (const socket of sockets) socket.destroy()
const result: LoadWorkerOutput = { ...output, counts: histogram.counts }
parentPort!.postMessage(result, [histogram.counts.buffer as ArrayBuffer])
