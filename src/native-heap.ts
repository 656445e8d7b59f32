import { createRequire } from 'node:module'
import { PerformanceObserver, constants } from 'node:perf_hooks'

// glibc's malloc gives memory back to the system only from the top of its heap. What a burst of work
// allocates and frees below blocks that stay (an import through the API: V8's JSON parser, compiled code,
// zlib's states between buffers that live on) stays resident as holes: at 50,000 flags about 35 MiB of a
// 48 MiB heap after the import and the first bodies, where a restarted server's heap was 11 MiB
// (issue 26). malloc_trim(0) hands every whole free page of those holes back (madvise), keeping the
// blocks where they are; the JDK (TrimNativeHeapInterval) and Ruby do the same for the same reason.
// JavaScript cannot call it: koffi (a foreign function interface, prebuilt for each platform and published
// on npm) does, on libuv's thread pool: a trim holds each arena's lock while it walks the arena's free
// blocks, 3-15 ms for the main heap during an import at 50,000 flags, which the event loop does not wait
// for (only an allocation from the arena being trimmed does). koffi and libc are loaded at the first trim,
// not at the start (7 ms); where they do not load (no glibc: musl, other systems) nothing is trimmed.
export type TrimNativeHeap = (done: () => void) => void

type MallocTrim = { async: (pad: number, done: () => void) => void }

const loadMallocTrim = (): MallocTrim | undefined => {
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi')
    return koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as MallocTrim
  } catch {
    return undefined
  }
}

export const glibcTrim = (): TrimNativeHeap | undefined => {
  if (process.platform !== 'linux') return undefined
  let mallocTrim: MallocTrim | undefined | null = null
  return (done) => {
    if (mallocTrim === null) mallocTrim = loadMallocTrim()
    if (mallocTrim === undefined) done()
    else mallocTrim.async(0, done)
  }
}

// A trim after each full collection (that is when V8 frees the ArrayBuffers and native memory that
// JavaScript objects held), at most one every `minGapMs`: a later collection within the gap is trimmed
// after it at the gap's end. The gap is short (100 ms by default): with 1 s, a collection soon after a trim
// left what it freed resident for up to a second, and a reading of the RSS after it could come first.
// `took` hears each trim's duration. Returns stop().
export const trimAfterFullCollections = (trim: TrimNativeHeap, minGapMs: number, took: (ms: number) => void): (() => void) => {
  let last = -Infinity
  let timer: NodeJS.Timeout | undefined
  const run = () => {
    timer = undefined
    const started = performance.now()
    last = started
    trim(() => took(performance.now() - started))
  }
  const observer = new PerformanceObserver((list) => {
    if (timer !== undefined) return
    const full = list.getEntries().some((entry) => (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)
    if (full) timer = setTimeout(run, Math.max(0, last + minGapMs - performance.now())).unref()
  })
  observer.observe({ entryTypes: ['gc'] })
  return () => {
    observer.disconnect()
    clearTimeout(timer)
  }
}
