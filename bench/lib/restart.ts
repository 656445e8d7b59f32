// Our server started on a data directory that holds flags, timed to the first full answer of
// GET /api/client/features, and its memory after two full collections (the preloaded memory probe). Used by
// `npm run bench` for its restart step.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { startChildServer, type ChildServer } from './child-server.js'
import { sampleProcess } from './machine-info.js'
import { sdkPollHeaders } from './sdk-headers.js'
import type { MemoryReport } from './memory-probe.js'
import { fixed } from './format-table.js'

const here = path.dirname(fileURLToPath(import.meta.url))
// node --expose-gc --import memoryProbe: the server answers SIGUSR2 with a memory report.
export const probeArgs = ['--expose-gc', '--import', path.join(here, 'memory-probe.js')]

const MiB = 2 ** 20

// The young generation's committed size: V8 keeps what the start-up's decode grew it to until it sees
// the process idle.
export const youngGenerationMiB = (report: MemoryReport): number => (report.spaces.new_space ?? 0) / MiB

// A memory report as a table's row (after its label), under memoryColumns; `perFlag` is the heap's bytes
// per flag beside an empty server's, '-' where there is none.
export const memoryColumns = ['RSS MiB', 'anon MiB', 'file MiB', 'heap used MiB', 'heap committed MiB', 'of it young gen MiB', 'heap B/flag', 'buffers MiB']
export const memoryRow = (label: string, m: MemoryReport, perFlag: string): string[] => [
  label,
  fixed(m.rss / MiB, 0),
  fixed(m.rssAnon / MiB, 0),
  fixed(m.rssFile / MiB, 0),
  fixed(m.heapUsed / MiB, 0),
  fixed(m.heapTotal / MiB, 0),
  fixed(youngGenerationMiB(m), 0),
  perFlag,
  fixed(m.arrayBuffers / MiB, 0),
]

// Asks the probe preloaded in `server` for a report and waits for its line.
export const memoryReport = async (server: ChildServer): Promise<MemoryReport> => {
  const before = server.output().split('memory-probe ').length
  process.kill(server.pid, 'SIGUSR2')
  for (let waited = 0; waited < 30_000; waited += 20) {
    const parts = server.output().split('memory-probe ')
    if (parts.length > before) return JSON.parse(parts[parts.length - 1].split('\n')[0]) as MemoryReport
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error('the memory probe did not answer')
}

// The CPU time of a process's main thread alone (Linux: /proc/<pid>/task/<pid>/stat; USER_HZ 100): the event
// loop's own work, without the GC helpers and the compression threads beside it.
export const mainThreadCpuMs = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return Number.NaN
  }
}

export interface TimedStart {
  server: ChildServer
  // From spawning the process: to its "listening" line, to the first client features' headers (the body is
  // built), and to the whole body read.
  listeningMs: number
  headersMs: number
  firstFeaturesMs: number
  // The server's CPU (all threads) and its main thread's, to that answer.
  cpuMs: number
  mainCpuMs: number
  bodyBytes: number
  // The server's own `start-up:` line (its phases).
  startUpLine: string
}

export interface TimedStartOptions {
  script: string
  env: Record<string, string>
  nodeArgs: string[]
  clientToken: string
}

export const startTimed = async (options: TimedStartOptions): Promise<TimedStart> => {
  const began = performance.now()
  const server = await startChildServer({ name: 'flag server', script: options.script, nodeArgs: options.nodeArgs, env: options.env, readyTimeoutMs: 600_000 })
  const listeningMs = performance.now() - began
  // An SDK's poll, as the server's clients send it after a restart (the kept answers are theirs).
  const response = await fetch(`${server.url}/api/client/features`, { headers: sdkPollHeaders(options.clientToken) })
  const headersMs = performance.now() - began
  const body = await response.arrayBuffer()
  const firstFeaturesMs = performance.now() - began
  const cpuMs = sampleProcess(server.pid).cpuMs
  const mainCpuMs = mainThreadCpuMs(server.pid)
  if (response.status !== 200) {
    await server.stop()
    throw new Error(`GET /api/client/features after the start: ${response.status}`)
  }
  const startUpLine = /start-up: [^\n"]*/.exec(server.output())?.[0] ?? '(no start-up line)'
  return { server, listeningMs, headersMs, firstFeaturesMs, cpuMs, mainCpuMs, bodyBytes: body.byteLength, startUpLine }
}
