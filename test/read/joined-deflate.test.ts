import { crc32, gunzipSync } from 'node:zlib'
import t from 'tap'
import { crc32Combine, deflatePart, deflatePartOffThread, gzipEnd, gzipHeader, inflatePart, offThreadDeflatesInFlight } from '../../src/read/joined-deflate.js'

// Bytes that differ from run to run of the test but not between its checks.
const bytes = (length: number, seed: number) => Buffer.from(Array.from({ length }, (_, i) => (i * 7919 + seed * 104729) % 251))

t.test('the CRC-32 of two parts combined is the CRC-32 of the two joined', async (t) => {
  for (const [a, b] of [[0, 5], [5, 0], [0, 0], [1, 1], [1000, 3], [70_000, 123_457], [3, 1 << 20]]) {
    const first = bytes(a, 1)
    const second = bytes(b, 2)
    t.equal(crc32Combine(crc32(first), crc32(second), second.length), crc32(Buffer.concat([first, second])), `${a} then ${b} bytes`)
  }
})

t.test('parts deflated on their own, in any order, joined into one gzip member, are the bytes joined', async (t) => {
  const parts = [Buffer.from('{"features":['), bytes(200_000, 3), Buffer.from(','), Buffer.from('{"name":"a"}'.repeat(900)), Buffer.from(',')]
  const last = Buffer.from('],"meta":{}}')
  for (const order of [parts, [...parts].reverse()]) {
    let crc = 0
    let length = 0
    const member = [gzipHeader]
    for (const part of order) {
      member.push(deflatePart(part))
      crc = crc32Combine(crc, crc32(part), part.length)
      length += part.length
    }
    member.push(gzipEnd(last, crc, length))
    t.same(gunzipSync(Buffer.concat(member)), Buffer.concat([...order, last]))
  }
})

t.test('a part inflates back to its bytes, from the thread pool as from the event loop', async (t) => {
  const part = Buffer.from('{"name":"flag","enabled":true}'.repeat(5000))
  t.same(inflatePart(deflatePart(part)), part)
  const offThread = await new Promise<Buffer | undefined>((resolve) => deflatePartOffThread(part, resolve))
  t.same(offThread, deflatePart(part), 'the same bytes from the thread pool')
})

t.test('parts deflated off the event loop: at most 32 made at once, each answered with its own bytes', async (t) => {
  const parts = Array.from({ length: 100 }, (_, i) => Buffer.from(`{"name":"flag-${i}","enabled":${i % 2 === 0}}`.repeat(2000 + i)))
  let most = 0
  const answers = await Promise.all(
    parts.map(
      (part) =>
        new Promise<Buffer | undefined>((resolve) => {
          deflatePartOffThread(part, resolve)
          most = Math.max(most, offThreadDeflatesInFlight())
        }),
    ),
  )
  t.equal(most, 32, '32 in flight while the others wait')
  t.equal(offThreadDeflatesInFlight(), 0, 'none once all are answered')
  t.same(
    answers.map((answer) => inflatePart(answer!)),
    parts,
    'every part inflates back to its own bytes',
  )
})

t.test('an empty last part still ends the member', async (t) => {
  t.same(gunzipSync(Buffer.concat([gzipHeader, gzipEnd(Buffer.alloc(0), 0, 0)])), Buffer.alloc(0))
})
