// Preloaded into a benchmarked server (node --expose-gc --import this module): on SIGUSR2 it collects
// garbage twice, waits for the freed pages to leave the RSS, and prints one line with the process's
// memory and the event loop's longest block since the last report. Nothing in the server knows of it.
import { readFileSync } from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { getHeapSpaceStatistics } from 'node:v8'

export interface MemoryReport {
  rss: number
  heapUsed: number
  heapTotal: number
  external: number
  arrayBuffers: number
  // The RSS's anonymous part (heap, native allocations) and its file-backed part (code, LMDB's mapped
  // pages read so far, which the kernel may drop), from /proc/self/status; 0 where there is none.
  rssAnon: number
  rssFile: number
  // The event loop's longest block and its 99th percentile since the last report (5 ms resolution).
  maxBlockMs: number
  p99BlockMs: number
  // Each V8 heap space's committed bytes (new space: the young generation, resident even when empty).
  spaces: Record<string, number>
}

const delay = monitorEventLoopDelay({ resolution: 5 })
delay.enable()

// V8 hands the pages a full collection freed back to the system from a helper thread, some tens of
// milliseconds after the collection (measured: 42 MiB of anonymous RSS 50 ms after the collections that
// followed a write load at 50,000 flags, with the heap the same), and a server may give native memory back
// after a collection too (ours trims glibc's heap on its thread pool, 3-15 ms of work). The report waits for
// the RSS to stop falling (two readings 100 ms apart within 256 KiB, or 3 s at most) so that it shows what
// stays.
const settleStepMs = 100
const settleMaxMs = 3000
const settledWithinBytes = 256 * 1024

const readStatus = (): string => {
  try {
    return readFileSync('/proc/self/status', 'utf8')
  } catch {
    return '' // Not Linux.
  }
}
const statusBytes = (status: string, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024

const printReport = (maxBlockMs: number, p99BlockMs: number) => {
  const m = process.memoryUsage()
  const status = readStatus()
  const memory: MemoryReport = {
    rss: m.rss,
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    rssAnon: statusBytes(status, 'RssAnon'),
    rssFile: statusBytes(status, 'RssFile') + statusBytes(status, 'RssShmem'),
    maxBlockMs,
    p99BlockMs,
    spaces: Object.fromEntries(getHeapSpaceStatistics().map((space) => [space.space_name, space.physical_space_size])),
  }
  process.stderr.write(`memory-probe ${JSON.stringify(memory)}\n`)
}

process.on('SIGUSR2', () => {
  const maxBlockMs = delay.max / 1e6
  const p99BlockMs = delay.percentile(99) / 1e6
  delay.reset()
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  gc?.()
  let previous = statusBytes(readStatus(), 'RssAnon')
  let waited = 0
  const settle = () => {
    const now = statusBytes(readStatus(), 'RssAnon')
    waited += settleStepMs
    if (previous - now <= settledWithinBytes || waited >= settleMaxMs) printReport(maxBlockMs, p99BlockMs)
    else setTimeout(settle, settleStepMs)
    previous = now
  }
  setTimeout(settle, settleStepMs)
})
