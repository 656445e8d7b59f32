import { createHash } from 'node:crypto'
import { SharedStrings } from './shared-strings.js'

// Large parts of a snapshot set that rarely change all at once (the chunks of a persistent map) are
// stored as blobs of their own, named by the hash of their bytes, and an entry holds only their names:
// - a set writes only the blobs that changed since the last one (the rest are stored already);
// - decoding an entry never decodes one large buffer inside another (msgpackr copies the outer buffer
//   for every nested decode: at 50,000 flags that made a start-up take minutes);
// - nothing keeps the encoded bytes in memory between sets.
// The codec's extensions (which know what a chunk is) reach the blobs through the session below while
// an entry is encoded or decoded; the store knows only names and bytes.

export interface BlobSink {
  // Notes that the set being encoded references `id`; true when the sink needs its bytes (put them).
  reference(id: string): boolean
  put(id: string, bytes: Uint8Array): void
}

export interface BlobSource {
  get(id: string): Uint8Array | undefined
}

let sink: BlobSink | undefined
let source: BlobSource | undefined

export const writingBlobs = <T>(to: BlobSink, encode: () => T): T => {
  const outer = sink
  sink = to
  try {
    return encode()
  } finally {
    sink = outer
  }
}

// A decode's extensions may leave work for after it (afterDecode): what they do then is not a nested
// decode, which msgpackr pays for with a copy of the whole outer buffer.
let settling: ((value: unknown) => unknown)[] | undefined
let strings: SharedStrings | undefined

// A decoded value shares its repeated strings with what the same `shared` decoded before it (a restore
// passes one for all its entries); chunks, decoded in its settling, share theirs through sharedDecoded.
export const readingBlobs = <T>(from: BlobSource, decode: () => T, shared = new SharedStrings()): T => {
  const outer = source
  const outerSettling = settling
  const outerStrings = strings
  source = from
  settling = []
  strings = shared
  try {
    let value: unknown = decode()
    for (const settle of settling) value = settle(value)
    return shared.share(value) as T
  } finally {
    source = outer
    settling = outerSettling
    strings = outerStrings
  }
}

// A part of the value being decoded that is decoded apart (a chunk's entries), with its repeated strings
// shared with the rest.
export const sharedDecoded = <T>(value: T): T => (strings ? (strings.share(value) as T) : value)

// Runs `settle` over the decoded value (once per decode, however often it is asked for) once the decode
// has returned; what it returns replaces the value.
export const afterDecode = (settle: (value: unknown) => unknown): void => {
  if (!settling) throw new Error('afterDecode outside readingBlobs')
  if (!settling.includes(settle)) settling.push(settle)
}

export const blobSink = (): BlobSink => {
  if (!sink) throw new Error('a snapshot blob was written outside writingBlobs')
  return sink
}

export const blobBytes = (id: string): Uint8Array => {
  const bytes = source?.get(id)
  if (!bytes) throw new Error(`snapshot blob ${id} is missing`)
  return bytes
}

export const blobId = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('base64url').slice(0, 27)

// Blobs gathered in memory (a set carried off the machine whole, a test).
export class BlobMap implements BlobSink, BlobSource {
  readonly blobs = new Map<string, Uint8Array>()
  constructor(private readonly stored: BlobSource = { get: () => undefined }) {}
  reference(id: string): boolean {
    if (this.blobs.has(id)) return false
    const bytes = this.stored.get(id)
    if (!bytes) return true
    this.blobs.set(id, bytes)
    return false
  }
  put(id: string, bytes: Uint8Array): void {
    this.blobs.set(id, bytes)
  }
  get(id: string): Uint8Array | undefined {
    return this.blobs.get(id)
  }
}
