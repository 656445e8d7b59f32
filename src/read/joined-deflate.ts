import { constants, crc32, deflateRaw, deflateRawSync, inflateRawSync } from 'node:zlib'

// One gzip member made of parts deflated each on its own (RFC 1951/1952): a part's deflate stream starts
// from an empty window and ends on a sync flush (byte-aligned, not final), so parts can be joined in any
// order, and a changed part is deflated again alone. Only the last part ends the stream. The member's
// CRC-32 is combined from the parts' (crc32Combine), so no part has to be kept as plain bytes.

const partOptions = { level: 6, finishFlush: constants.Z_SYNC_FLUSH }

export const deflatePart = (bytes: Uint8Array): Buffer => deflateRawSync(bytes, partOptions)

// A deflate stream allocates its state (about 280 KB, outside V8's heap) when it is made, not when a thread
// takes it up: a body of 400 runs deflated at once held 110 MB of it, which glibc kept as its heap after
// the streams were freed. At most 32 are made (9 MB): the thread pool runs four at a time, and more wait so
// that a thread finishing one finds the next without waiting for the event loop to queue it (400 parts with
// the event loop busy in turns of 2 ms: 8 at once took 3.2 times as long as all at once, 32 took 1.2-1.5).
const offThreadAtOnce = 32
const waiting: { bytes: Uint8Array; done: (deflated: Buffer | undefined) => void }[] = []
let inFlight = 0

export const deflatePartOffThread = (bytes: Uint8Array, done: (deflated: Buffer | undefined) => void): void => {
  waiting.push({ bytes, done })
  startWaiting()
}

const startWaiting = (): void => {
  while (inFlight < offThreadAtOnce && waiting.length > 0) {
    const { bytes, done } = waiting.shift()!
    inFlight++
    deflateRaw(bytes, partOptions, (error, deflated) => {
      inFlight--
      startWaiting()
      done(error ? undefined : deflated)
    })
  }
}

// Deflates made and not finished (for tests).
export const offThreadDeflatesInFlight = (): number => inFlight

// A part's bytes again (its stream has no final block, which inflateRawSync would otherwise call truncated).
export const inflatePart = (deflated: Uint8Array): Buffer => inflateRawSync(deflated, { finishFlush: constants.Z_SYNC_FLUSH })

// The header of a gzip member: deflate, no name, no time, from Unix (as zlib's gzip writes it).
export const gzipHeader: Buffer = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3])

// The member's end: `last` deflated with the final block, then its CRC-32 and length (mod 2^32), where
// `crc` and `length` are those of everything before `last`.
export const gzipEnd = (last: Uint8Array, crc: number, length: number): Buffer => {
  const deflated = deflateRawSync(last, { level: 6 })
  const trailer = Buffer.alloc(8)
  trailer.writeUInt32LE(crc32Combine(crc, crc32(last), last.length), 0)
  trailer.writeUInt32LE((length + last.length) % 2 ** 32, 4)
  return Buffer.concat([deflated, trailer])
}

// CRC-32 arithmetic modulo its polynomial (reflected): the CRC of A then B from the CRCs of A and B and
// the length of B is the CRC of A shifted by B's length in bits, plus the CRC of B.
const polynomial = 0xedb88320

// a * b modulo the polynomial (neither may be 0).
const multiplyModP = (a: number, b: number): number => {
  let product = 0
  for (let m = 0x80000000; ; m >>>= 1) {
    if (a & m) {
      product ^= b
      if ((a & (m - 1)) === 0) break
    }
    b = b & 1 ? (b >>> 1) ^ polynomial : b >>> 1
  }
  return product >>> 0
}

// x^(2^k) modulo the polynomial, k = 0..31 (x^1 is 1 << 30 in the reflected order).
const powersOfX: number[] = [1 << 30]
for (let k = 1; k < 32; k++) powersOfX.push(multiplyModP(powersOfX[k - 1], powersOfX[k - 1]))

// x^(8 * bytes) modulo the polynomial: what a CRC is multiplied by when `bytes` more bytes follow.
const shiftOf = (bytes: number): number => {
  let p = 0x80000000
  for (let n = bytes, k = 3; n > 0; n = Math.floor(n / 2), k++) if (n % 2 === 1) p = multiplyModP(powersOfX[k & 31], p)
  return p
}

export const crc32Combine = (crcA: number, crcB: number, lengthB: number): number =>
  lengthB === 0 ? crcA >>> 0 : (multiplyModP(shiftOf(lengthB), crcA >>> 0) ^ crcB) >>> 0
