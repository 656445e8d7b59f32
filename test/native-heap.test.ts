import { readFileSync } from 'node:fs'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import t from 'tap'
import { glibcTrim, trimAfterFullCollections } from '../src/native-heap.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const rssAnon = () => Number(/^RssAnon:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024
const MiB = 2 ** 20

const onGlibc = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime !== undefined

t.test('a full collection is followed by a trim, and the next one waits for the gap', async (t) => {
  const gapMs = 300
  const trims: number[] = []
  let trimmed: () => void = () => {}
  const stop = trimAfterFullCollections(
    (done) => {
      trims.push(performance.now())
      trimmed()
      done()
    },
    gapMs,
    () => {},
  )
  // The trim's timer does not keep a process alive (a server's close stops it); this test's wait does.
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => {
    stop()
    clearInterval(alive)
  })
  const nextTrim = () => new Promise<void>((resolve) => (trimmed = resolve))
  let waiting = nextTrim()
  gc()
  await waiting
  t.equal(trims.length, 1, 'one trim after the collection')
  waiting = nextTrim()
  gc()
  gc()
  await waiting
  t.equal(trims.length, 2, 'the two collections right after it are trimmed once')
  // Timers count whole milliseconds from the loop's clock, read at the start of its turn: allow two.
  t.ok(trims[1] - trims[0] >= gapMs - 2, `the second trim came ${(trims[1] - trims[0]).toFixed(1)} ms after the first (gap ${gapMs} ms)`)
})

t.test("glibc's trim gives back the free pages between blocks that stay", { skip: !onGlibc && 'not glibc' }, async (t) => {
  const trim = glibcTrim()
  if (!trim) return t.fail('a trim on Linux')
  // 4,096 buffers of 16 KiB from glibc's heap (below its mmap threshold), written to, so resident; every
  // 16th stays, so the 60 MiB freed around them are holes below the heap's top.
  const all = Array.from({ length: 4096 }, () => Buffer.allocUnsafeSlow(16 * 1024).fill(1))
  const kept = all.filter((_, i) => i % 16 === 0)
  all.length = 0
  const buffersBefore = process.memoryUsage().arrayBuffers
  gc()
  // V8 frees the buffers' memory after the collection, from a helper thread.
  while (process.memoryUsage().arrayBuffers > buffersBefore - 48 * MiB) await new Promise((resolve) => setImmediate(resolve))
  const before = rssAnon()
  await new Promise<void>((resolve) => trim(resolve))
  const after = rssAnon()
  t.ok(before - after >= 32 * MiB, `the anonymous RSS fell by ${((before - after) / MiB).toFixed(1)} MiB (at least 32)`)
  t.equal(kept.length, 256, 'the blocks that stay are still there')
  t.ok(
    kept.every((buffer) => buffer[0] === 1 && buffer[buffer.length - 1] === 1),
    'and hold what was written to them',
  )
})
