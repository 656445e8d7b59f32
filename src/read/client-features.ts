import { createHash } from 'node:crypto'
import { brotliCompress, brotliCompressSync, constants as zlibConstants, crc32 } from 'node:zlib'
import type { Segment } from '../domain/instance-state.js'
import type { Feature, FeatureEnvironment, ProjectState, Strategy } from '../domain/project-state.js'
import { orderedStrategies } from '../domain/strategies.js'
import { likePrefixMatcher } from '../domain/like-prefix.js'
import type { ClientRevisions } from './client-revisions.js'
import { crc32Combine, deflatePart, deflatePartOffThread, gzipEnd, gzipHeader, inflatePart } from './joined-deflate.js'

// Shared by the polls that ask the same (clientQueryFor keeps one per token and spec), so never changed.
export interface ClientQuery {
  readonly environment: string
  readonly projects: readonly string[] | '*'
  readonly namePrefix?: string
  readonly tags?: readonly { readonly type: string; readonly value: string }[]
  readonly inlineSegmentConstraints: boolean
}

export interface ClientFeaturesSource {
  projects(): ReadonlyMap<string, ProjectState>
  segments(): ReadonlyMap<number, Segment>
  revisions: ClientRevisions
}

const maxCachedScopes = 500

const clientStrategy = (strategy: Strategy, segments: ReadonlyMap<number, Segment>, inline: boolean) => {
  const constraints = inline
    ? [...strategy.constraints, ...strategy.segments.flatMap((id) => segments.get(id)?.constraints ?? [])]
    : strategy.constraints
  return {
    name: strategy.name,
    constraints,
    parameters: strategy.parameters,
    variants: strategy.variants,
    ...(!inline && strategy.segments.length > 0 ? { segments: strategy.segments } : {}),
  }
}

// The client shape of one flag in one environment (SEMANTICS 5.1): no ids, titles or disabled strategies.
export const clientFeature = (
  feature: Feature,
  environment: FeatureEnvironment | undefined,
  segments: ReadonlyMap<number, Segment>,
  inline: boolean,
) => ({
  name: feature.name,
  type: feature.type,
  enabled: environment?.enabled ?? false,
  project: feature.project,
  stale: feature.stale,
  strategies: orderedStrategies((environment?.strategies ?? []).filter((s) => !s.disabled)).map((s) => clientStrategy(s, segments, inline)),
  variants: environment?.variants ?? [],
  description: feature.description,
  impressionData: feature.impressionData,
  ...(feature.dependencies.length > 0
    ? {
        dependencies: feature.dependencies.map((d) =>
          d.enabled ? { feature: d.feature, enabled: true, variants: d.variants } : { feature: d.feature, enabled: false },
        ),
      }
    : {}),
})

const matchesQuery = (feature: Feature, query: ClientQuery, prefix: ((name: string) => boolean) | undefined): boolean => {
  if (feature.archived) return false
  if (prefix && !prefix(feature.name)) return false
  if (query.tags && query.tags.length > 0) {
    return feature.tags.some((t) => query.tags!.some((q) => q.type === t.type && q.value === t.value))
  }
  return true
}

const prefixMatcher = (namePrefix: string | undefined) => (namePrefix ? likePrefixMatcher(namePrefix) : undefined)

const queryEcho = (query: ClientQuery) => ({
  ...(query.tags && query.tags.length > 0 ? { tag: query.tags.map((t) => `${t.type}:${t.value}`) } : {}),
  ...(query.projects !== '*' ? { project: query.projects } : {}),
  ...(query.namePrefix ? { namePrefix: query.namePrefix } : {}),
  environment: query.environment,
  inlineSegmentConstraints: query.inlineSegmentConstraints,
})

export const cacheKey = (query: ClientQuery): string =>
  [
    query.environment,
    query.projects === '*' ? '*' : query.projects.join('\u0001'),
    query.namePrefix ?? '',
    (query.tags ?? []).map((t) => `${t.type}:${t.value}`).join('\u0001'),
    query.inlineSegmentConstraints ? 'inline' : '',
  ].join('\u0000')

// A body is its flags' JSON in runs: a flag whose name hashes to a multiple of runLength (or one
// maxRunLength flags on) begins a run, so a flag added or removed moves no other run's bounds. Each
// run is serialised and deflated on its own (joined-deflate.ts): a change to one flag deflates its run
// again, not the body (issue 26: at 50,000 flags a gzip copy of the whole 53 MB body took about a second of
// the thread pool after every change, and SDKs were sent the plain body meanwhile). A run's plain JSON
// is let go once every run is deflated and no SDK has asked for the plain body for plainKeptMs: SDKs
// ask for gzip, and the plain bytes were six times the gzip copy's in memory.
interface Run {
  count: number
  // Where each flag's JSON begins in the run's; flag k's ends one byte before offsets[k + 1] (at the
  // comma, and offsets[count] is the run's length plus one).
  offsets: Uint32Array
  length: number
  crc: number
  // The plain JSON (the flags joined by commas) while kept; the deflated stream once made. Always one of them.
  json: Buffer | undefined
  deflated: Buffer | undefined
}

const runLength = 128
const maxRunLength = 4 * runLength

// FNV-1a over the name's UTF-16 units: whether the flag begins a run.
const beginsRun = (name: string): boolean => {
  let h = 0x811c9dc5
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193)
  return (h & (runLength - 1)) === 0
}

const bodyHead = '{"version":2,"features":['
const headBytes = Buffer.from(bodyHead)
const comma = Buffer.from(',')
const headDeflated = deflatePart(headBytes)
const commaDeflated = deflatePart(comma)
const headCrc = crc32(headBytes)
const commaCrc = crc32(comma)

// Below this much plain JSON to deflate, the runs are deflated at once (a run takes 1-3 ms); above it
// (a start, a segment change) on libuv's thread pool, and the plain body is served until they are ready.
const deflateInlineBelow = 512 * 1024

const runsDeflating = new WeakSet<Run>()

// A run's plain JSON may go once its deflated stream is made (it inflates again when asked for).
const jsonMayGo = (run: Run): boolean => run.deflated !== undefined && !runsDeflating.has(run)

// A run's plain JSON (tens to hundreds of KB) is carved out of a slab of 1 MiB, which glibc maps on its
// own (above the fixed mmap threshold npm start gives it) and gives back whole once no run holds a view of
// it. Allocated one by one, most runs were below that threshold and came from glibc's heap, which kept
// them once freed: after a rebuild of every run (the first body after an import, a segment change).
const slabBytes = 1024 * 1024
let slab = Buffer.alloc(0)
let slabUsed = 0

const runBuffer = (length: number): Buffer => {
  if (length > slabBytes / 4) return Buffer.allocUnsafeSlow(length)
  if (slabUsed + length > slab.length) {
    slab = Buffer.allocUnsafeSlow(slabBytes)
    slabUsed = 0
  }
  const bytes = slab.subarray(slabUsed, slabUsed + length)
  slabUsed += length
  return bytes
}

// A run's deflated stream as zlib made it is a view of zlib's output buffer of 16 KiB, or a copy of several
// (tens of KB), both from glibc's heap: copied into a slab too, so that those go at the next collection.
// Held there until the gzip body is joined, they were 12 MiB of that heap at 50,000 flags (issue 26).
const inSlab = (deflated: Buffer): Buffer => {
  const bytes = runBuffer(deflated.length)
  deflated.copy(bytes)
  return bytes
}

// A run's plain JSON: kept, or inflated again (not kept: the caller decides what to hold).
const jsonOf = (run: Run): Buffer => run.json ?? inflatePart(run.deflated!)

// One flag's JSON as bytes of its run's.
const flagBytes = (run: Run, json: Buffer, k: number): Buffer => json.subarray(run.offsets[k], run.offsets[k + 1] - 1)

// The brotli copy is made from the whole plain body, once and when asked for, as before runs: the SDKs
// we serve ask for gzip, so it is not worth a copy per run.
const brotliOptions = (length: number) => ({ params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: length } })

// One scope's answer at one revision: its ETag and its body in each encoding SDKs ask for. Each
// encoding's body is joined into one buffer when first asked for (sent as one, its runs' pieces cost
// twice the CPU per answer at 50,000 flags), and the runs' bytes then become views of it: a run's own
// buffer is let go, and what a later answer keeps of this one is in the later one's buffer once that is
// joined. A change thus copies the body, as before runs, but deflates only its run.
export class ClientPayload {
  readonly plainLength: number
  #lastPlainUse: number
  // Whether the runs may hold plain JSON for this answer (false once let go, until it is joined again): a
  // gzip poll then looks no further.
  #plainHeld = true
  #plain: Buffer | undefined
  #gzip: Buffer | undefined
  #brotli: Buffer | undefined
  #brotliBegun = false
  readonly #rest: Buffer

  constructor(
    readonly etag: string,
    private readonly runs: readonly Run[],
    rest: string,
    private readonly plainKeptMs: number,
    private readonly counters: { runsDeflated: number; runsInflated: number },
    // When the scope's plain body was last asked for, by an earlier answer's clients: the runs it
    // shares with this one hold views of that answer's plain body until it is let go.
    lastPlainUse = performance.now(),
    brotli?: Buffer,
  ) {
    this.#lastPlainUse = lastPlainUse
    this.#brotli = brotli
    this.#brotliBegun = brotli !== undefined
    this.#rest = Buffer.from(rest)
    let length = headBytes.length + this.#rest.length
    for (let r = 0; r < runs.length; r++) length += runs[r].length + (r > 0 ? 1 : 0)
    this.plainLength = length
  }

  get lastPlainUse(): number {
    return this.#lastPlainUse
  }

  // The plain body (its runs' JSON inflated again where it was let go). `askedFor` false: sent to a client
  // that asked for gzip while the runs are deflated, which is no reason to keep the plain body: when it is
  // due to go, it is made for that answer alone, and the runs already deflated let their JSON go (those
  // shared with the answer before hold views of its plain body).
  plain(askedFor = true): Buffer {
    if (askedFor) this.#lastPlainUse = performance.now()
    else if (this.#plain === undefined && this.#plainDue()) {
      const plain = this.#joinedPlain(false)
      this.#letPlainGo()
      return plain
    }
    return this.#joinedPlain()
  }

  // The features array alone (brackets included), as the delta API's hydration sends it.
  features(): Buffer {
    return this.plain().subarray(headBytes.length - 1, this.plainLength - this.#rest.length + 1)
  }

  // The plain body joined, kept (the runs' JSON views of it) or only made for one answer.
  #joinedPlain(keep = true): Buffer {
    if (this.#plain !== undefined) return this.#plain
    const plain = Buffer.allocUnsafe(this.plainLength)
    let at = headBytes.copy(plain, 0)
    for (let r = 0; r < this.runs.length; r++) {
      const run = this.runs[r]
      if (r > 0) plain[at++] = 0x2c
      if (run.json === undefined) this.counters.runsInflated++
      jsonOf(run).copy(plain, at)
      if (keep) run.json = plain.subarray(at, at + run.length)
      at += run.length
    }
    this.#rest.copy(plain, at)
    if (keep) {
      this.#plain = plain
      this.#plainHeld = true
    }
    return plain
  }

  // From a timer: a plain body goes once it is due even when no gzip poll comes to let it go (SDKs that poll
  // with their ETag are answered 304 and ask for no body; at 50,000 flags a plain body held so kept 50 MB).
  // Runs not deflated yet (a scope no SDK asked gzip of) are deflated first, and the body goes at a call
  // once none is deflating: their JSON is the only copy until then. The joined body goes even when no run
  // holds JSON: another scope's answer that shares the runs may have let their JSON go while this one kept
  // its joined body (a gzip scope beside a plain one: at 50,000 flags 53 MB stayed for good). How many
  // runs let their JSON go.
  letPlainGoIfDue(): number {
    if (!this.#plainHeld || !this.#plainDue()) return 0
    this.#deflate()
    if (this.runs.some((run) => runsDeflating.has(run))) return 0
    return this.#letPlainGo()
  }

  // No client has asked for the plain body for plainKeptMs.
  #plainDue(): boolean {
    return performance.now() - this.#lastPlainUse > this.plainKeptMs
  }

  // The gzip answer when ready; otherwise undefined, and its runs are deflated (off the event loop when
  // many: the plain body is served until then).
  gzip(): Buffer | undefined {
    if (this.#gzip === undefined) this.#deflate()
    return this.gzipIfReady()
  }

  // The same without deflating anything (for an SDK that waits for its brotli copy).
  gzipIfReady(): Buffer | undefined {
    if (this.#gzip === undefined && this.runs.every((run) => run.deflated !== undefined)) this.#gzip = this.#joinGzip()
    if (this.#gzip !== undefined && this.#plainHeld && this.#plainDue()) this.#letPlainGo()
    return this.#gzip
  }

  #deflate(): void {
    let missing = 0
    for (const run of this.runs) if (run.deflated === undefined && !runsDeflating.has(run)) missing += run.length
    if (missing === 0) return
    for (const run of this.runs) {
      if (run.deflated !== undefined || runsDeflating.has(run)) continue
      this.counters.runsDeflated++
      const json = run.json!
      if (missing < deflateInlineBelow) {
        run.deflated = inSlab(deflatePart(json))
        continue
      }
      runsDeflating.add(run)
      deflatePartOffThread(json, (deflated) => {
        runsDeflating.delete(run)
        run.deflated ??= deflated && inSlab(deflated)
      })
    }
  }

  #joinGzip(): Buffer {
    const end = gzipEnd(this.#rest, this.#crcBeforeRest(), this.plainLength - this.#rest.length)
    let length = gzipHeader.length + headDeflated.length + end.length
    for (let r = 0; r < this.runs.length; r++) length += this.runs[r].deflated!.length + (r > 0 ? commaDeflated.length : 0)
    const gzip = Buffer.allocUnsafe(length)
    let at = gzipHeader.copy(gzip, 0)
    at += headDeflated.copy(gzip, at)
    for (let r = 0; r < this.runs.length; r++) {
      const run = this.runs[r]
      if (r > 0) at += commaDeflated.copy(gzip, at)
      const deflated = run.deflated!
      deflated.copy(gzip, at)
      run.deflated = gzip.subarray(at, at + deflated.length)
      at += deflated.length
    }
    end.copy(gzip, at)
    return gzip
  }

  // The CRC-32 of the plain body up to its rest, combined from the runs'.
  #crcBeforeRest(): number {
    let crc = headCrc
    for (let r = 0; r < this.runs.length; r++) {
      const run = this.runs[r]
      if (r > 0) crc = crc32Combine(crc, commaCrc, 1)
      crc = crc32Combine(crc, run.crc, run.length)
    }
    return crc
  }

  // The deflated runs' plain JSON goes (runs shared with a later answer included: they inflate again
  // when asked).
  #letPlainGo(): number {
    this.#plain = undefined
    let held = false
    let gone = 0
    for (const run of this.runs) {
      if (jsonMayGo(run)) {
        if (run.json !== undefined) gone++
        run.json = undefined
      } else held = true
    }
    this.#plainHeld = held
    return gone
  }

  // The brotli copy when ready; otherwise undefined, and it is made (off the event loop when large).
  brotli(): Buffer | undefined {
    if (this.#brotli !== undefined || this.#brotliBegun) return this.#brotli
    this.#brotliBegun = true
    const body = this.#joinedPlain()
    if (body.length < deflateInlineBelow) this.#brotli = brotliCompressSync(body, brotliOptions(body.length))
    else brotliCompress(body, brotliOptions(body.length), (error, compressed) => void (error ? undefined : (this.#brotli = compressed)))
    return this.#brotli
  }

  brotliIfReady(): Buffer | undefined {
    return this.#brotli
  }
}

// A scope's answer as built: its flags in the body's order (by name), in runs; run r begins at flag
// runStarts[r].
interface Built {
  version: number
  revision: number
  payload: ClientPayload
  query: ClientQuery
  // The segments' revision the flags were serialised at (inlined constraints change with it).
  segmentsRevision: number
  flags: readonly Feature[]
  runs: readonly Run[]
  runStarts: Uint32Array
  segments: string
  environment: string
  inline: boolean
}

// What the answers kept across a restart are: a header (JSON) and byte sections it points into.
export interface KeptAnswers {
  header: unknown
  sections: Uint8Array[]
}

// The same read back at a start: a section is read when a scope that points into it is first asked for.
export interface KeptReader {
  header: unknown
  section(index: number): Uint8Array
  close(): void
}

// One kept scope: its Built's facts, and which sections hold (-1: none) its runs' deflated streams and
// plain JSON (each run's one or the other, deflated where it was), their facts (keptRunFacts numbers a
// run: flag count, length, CRC-32, deflated length or 0, plain length or 0), their flags' offsets, and
// the brotli copy.
interface KeptScope {
  format: typeof keptFormat
  key: string
  query: ClientQuery
  revision: number
  segmentsRevision: number
  names: string[]
  sections: [deflated: number, json: number, facts: number, offsets: number, brotli: number]
}

const keptFormat = 'runs-1'
const keptRunFacts = 5

const flagJson = (feature: Feature, query: ClientQuery, segments: ReadonlyMap<number, Segment>): string =>
  JSON.stringify(clientFeature(feature, feature.environments.get(query.environment), segments, query.inlineSegmentConstraints))

// The run flag `at` is in (runStarts ascending, the first 0).
const runOf = (runStarts: Uint32Array, at: number): number => {
  let low = 0
  let high = runStarts.length - 1
  while (low < high) {
    const middle = (low + high + 1) >>> 1
    if (runStarts[middle] <= at) low = middle
    else high = middle - 1
  }
  return low
}

// How often a server lets go the plain bodies that are due (letDuePlainBodiesGo): a body goes at most this
// long after its plainKeptMs.
export const plainBodiesCheckMs = 10_000

// Built on the first request after a change, then served as bytes. A flag's JSON exists only inside
// the runs (no string per flag besides): a rebuild keeps every run whose flags are the (immutable) state
// objects an earlier body of the same environment holds in one run, and in the others copies the JSON of
// each such flag and serialises only the rest. At 50,000 flags the per-flag strings were 1.3 KB a flag of
// heap beside the same bytes in the body.
export class ClientFeatures {
  private readonly payloads = new Map<string, Built>()
  // The routes hand the same query object to every poll that asks the same (clientQueryFor).
  private readonly keys = new WeakMap<ClientQuery, string>()
  private segmentFragmentsRevision = -1
  private segmentsJson = new Map<number, string>()
  // The scopes a clean stop kept that no request has asked for since the start, and where they are.
  private keptScopes = new Map<string, KeptScope>()
  private keptReader: KeptReader | undefined
  // Flags serialised and runs deflated so far: a test's proof that a change to one flag re-serialises
  // that flag alone, and deflates its run alone; runs inflated for a plain body: that their JSON was let go.
  readonly counters = { flagsSerialised: 0, runsDeflated: 0, runsInflated: 0 }

  constructor(
    private readonly source: ClientFeaturesSource,
    private readonly options: { plainKeptMs: number } = { plainKeptMs: 60_000 },
  ) {}

  payload(query: ClientQuery): ClientPayload {
    return this.current(query).payload
  }

  // Every scope's plain body no SDK asked for in plainKeptMs goes (ClientPayload.letPlainGoIfDue): how
  // many runs let their JSON go.
  letDuePlainBodiesGo(): number {
    let gone = 0
    for (const built of this.payloads.values()) gone += built.payload.letPlainGoIfDue()
    return gone
  }

  feature(query: ClientQuery, name: string) {
    for (const project of this.source.projects().values()) {
      const feature = project.features.get(name)
      if (!feature || feature.archived) continue
      if (query.projects !== '*' && !query.projects.includes(feature.project)) return undefined
      return clientFeature(feature, feature.environments.get(query.environment), this.source.segments(), query.inlineSegmentConstraints)
    }
    return undefined
  }

  private keyOf(query: ClientQuery): string {
    let key = this.keys.get(query)
    if (key === undefined) this.keys.set(query, (key = cacheKey(query)))
    return key
  }

  // The scope's answer at the current revision: the one built before when nothing it holds changed.
  private current(query: ClientQuery): Built {
    const key = this.keyOf(query)
    const revisions = this.source.revisions
    const version = revisions.version()
    const cached = this.payloads.get(key)
    if (cached && cached.version === version) return cached
    const revision = revisions.revisionFor(query.projects, query.environment)
    if (cached && cached.revision === revision) {
      cached.version = version
      return cached
    }
    const built = (cached ? undefined : this.takenBack(key)) ?? this.build(query, key, version, revision, cached ?? this.donorFor(query))
    if (!cached && this.payloads.size >= maxCachedScopes) this.payloads.delete(this.payloads.keys().next().value!)
    this.payloads.set(key, built)
    return built
  }

  // Another scope's answer of the same environment whose flags' JSON a first build of this one can copy.
  private donorFor(query: ClientQuery): Built | undefined {
    let donor: Built | undefined
    for (const built of this.payloads.values()) if (built.environment === query.environment && built.inline === query.inlineSegmentConstraints) donor = built
    return donor
  }

  private serialise(feature: Feature, query: ClientQuery, segments: ReadonlyMap<number, Segment>): string {
    this.counters.flagsSerialised++
    return flagJson(feature, query, segments)
  }

  // The answers that hold at the current revision, with the compressed copies made so far (those SDKs
  // asked for), for takeBack at the next start. A stop does not wait for copies still being made
  // (seconds at 50,000 flags on a busy machine): the next start makes them when they are asked for.
  kept(): KeptAnswers {
    const header: KeptScope[] = []
    const sections: Uint8Array[] = []
    const section = (parts: Uint8Array[]) => (parts.length > 0 ? sections.push(Buffer.concat(parts)) - 1 : -1)
    for (const [key, built] of this.payloads) {
      if (!this.holds(built)) continue
      const deflated: Buffer[] = []
      const json: Buffer[] = []
      const facts = new Uint32Array(keptRunFacts * built.runs.length)
      built.runs.forEach((run, r) => {
        const bytes = run.deflated ?? run.json!
        ;(run.deflated ? deflated : json).push(bytes)
        facts.set([run.count, run.length, run.crc, run.deflated ? bytes.length : 0, run.deflated ? 0 : bytes.length], keptRunFacts * r)
      })
      const brotli = built.payload.brotliIfReady()
      header.push({
        format: keptFormat,
        key,
        query: built.query,
        revision: built.revision,
        segmentsRevision: built.segmentsRevision,
        names: built.flags.map((flag) => flag.name),
        sections: [
          section(deflated),
          section(json),
          section([new Uint8Array(facts.buffer)]),
          section(built.runs.map((run) => new Uint8Array(run.offsets.buffer, run.offsets.byteOffset, run.offsets.byteLength))),
          section(brotli ? [brotli] : []),
        ],
      })
    }
    return { header, sections }
  }

  // Offers the answers `kept` gave at the last clean stop: each scope's is taken back when it is first
  // asked for, if it still holds then (the same revisions and flags; a sample of the flags serialised
  // the same way now), so the first poll of a scope after a start builds nothing and gets the compressed
  // copies SDKs had asked for; a scope nobody asks for is never read. Says how many scopes it offers.
  takeBack(kept: KeptReader): number {
    this.dropKept()
    if (!Array.isArray(kept.header)) {
      kept.close()
      return 0
    }
    for (const scope of kept.header as KeptScope[]) if (scope?.format === keptFormat) this.keptScopes.set(scope.key, scope)
    this.keptReader = kept
    if (this.keptScopes.size === 0) this.dropKept()
    return this.keptScopes.size
  }

  // Forgets the kept scopes not taken back (and closes their file).
  dropKept(): void {
    this.keptScopes.clear()
    this.keptReader?.close()
    this.keptReader = undefined
  }

  private takenBack(key: string): Built | undefined {
    const scope = this.keptScopes.get(key)
    if (!scope || !this.keptReader) return undefined
    this.keptScopes.delete(key)
    let built: Built | undefined
    try {
      built = this.restored(scope, this.keptReader)
    } catch {
      // A scope that does not fit is built, as after any change.
    }
    if (this.keptScopes.size === 0) this.dropKept()
    return built
  }

  // Whether an answer built at these revisions still holds.
  private holds({ query, revision, segmentsRevision }: Pick<Built, 'query' | 'revision' | 'segmentsRevision'>): boolean {
    const revisions = this.source.revisions
    return revision === revisions.revisionFor(query.projects, query.environment) && (!query.inlineSegmentConstraints || segmentsRevision === revisions.segments())
  }

  private restored(scope: KeptScope, reader: KeptReader): Built | undefined {
    const { key, query, names } = scope
    if (key !== cacheKey(query) || !this.holds(scope)) return undefined
    const revisions = this.source.revisions
    const segmentsRevision = revisions.segments()
    const revision = scope.revision
    const [deflatedAt, jsonAt, factsAt, offsetsAt, brotliAt] = scope.sections
    const view = (at: number) => {
      const bytes = reader.section(at)
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    }
    const numbers = (at: number) => {
      const bytes = reader.section(at)
      return new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
    }
    const facts = factsAt >= 0 ? numbers(factsAt) : new Uint32Array(0)
    const runCount = facts.length / keptRunFacts
    const offsets = offsetsAt >= 0 ? numbers(offsetsAt) : new Uint32Array(0)
    const deflated = deflatedAt >= 0 ? view(deflatedAt) : Buffer.alloc(0)
    const json = jsonAt >= 0 ? view(jsonAt) : Buffer.alloc(0)
    // The runs rebuilt over the sections' bytes, each checked against what its facts say.
    const runs: Run[] = []
    const runStarts = new Uint32Array(runCount)
    let flagsSeen = 0
    let offsetsAtRun = 0
    let deflatedAtRun = 0
    let jsonAtRun = 0
    for (let r = 0; r < runCount; r++) {
      const [count, length, crc, deflatedLength, jsonLength] = facts.subarray(keptRunFacts * r, keptRunFacts * (r + 1))
      const runOffsets = offsets.subarray(offsetsAtRun, offsetsAtRun + count + 1)
      if (count === 0 || runOffsets.length !== count + 1 || runOffsets[count] !== length + 1 || (deflatedLength === 0) === (jsonLength === 0)) return undefined
      if (jsonLength !== 0 && jsonLength !== length) return undefined
      runStarts[r] = flagsSeen
      runs.push({
        count,
        offsets: runOffsets,
        length,
        crc,
        json: jsonLength === 0 ? undefined : json.subarray(jsonAtRun, jsonAtRun + jsonLength),
        deflated: deflatedLength === 0 ? undefined : deflated.subarray(deflatedAtRun, deflatedAtRun + deflatedLength),
      })
      flagsSeen += count
      offsetsAtRun += count + 1
      deflatedAtRun += deflatedLength
      jsonAtRun += jsonLength
    }
    if (flagsSeen !== names.length || offsetsAtRun !== offsets.length || deflatedAtRun !== deflated.length || jsonAtRun !== json.length) return undefined
    // The scope's flags walked in the maps' order (a lookup per name costs three times as much at
    // 50,000 flags), each put at its place in the kept order: exactly the kept ones, or none.
    const places = new Map<string, number>()
    names.forEach((name, i) => places.set(name, i))
    const flags: Feature[] = new Array<Feature>(names.length)
    const prefix = prefixMatcher(query.namePrefix)
    let found = 0
    for (const [projectId, project] of this.source.projects()) {
      if (query.projects !== '*' && !query.projects.includes(projectId)) continue
      for (const feature of project.features.values()) {
        if (!matchesQuery(feature, query, prefix)) continue
        const at = places.get(feature.name)
        if (at === undefined || flags[at] !== undefined) return undefined
        flags[at] = feature
        found++
      }
    }
    if (found !== names.length) return undefined
    const segments = this.source.segments()
    const segmentsJson = this.segmentsJsonFor(flags, query, segments, segmentsRevision)
    const { etag, rest } = bodyEnd(query, key, revision, segmentsJson)
    const sample = Math.min(flags.length, 16)
    for (let k = 0; k < sample; k++) {
      const i = sample === 1 ? 0 : Math.round((k * (flags.length - 1)) / (sample - 1))
      const r = runOf(runStarts, i)
      const runJson = jsonOf(runs[r])
      if (runJson.length !== runs[r].length || flagBytes(runs[r], runJson, i - runStarts[r]).toString() !== flagJson(flags[i], query, segments)) return undefined
    }
    const payload = new ClientPayload(etag, runs, rest, this.options.plainKeptMs, this.counters, undefined, brotliAt >= 0 ? view(brotliAt) : undefined)
    return {
      version: revisions.version(),
      revision,
      payload,
      query,
      segmentsRevision,
      flags,
      runs,
      runStarts,
      segments: segmentsJson,
      environment: query.environment,
      inline: query.inlineSegmentConstraints,
    }
  }

  // The query's flags (the features array, brackets included) and the segments they use (text), as
  // JSON: the body's parts, shared by the delta API and the streams so that both serve exactly what
  // /api/client/features does.
  parts(query: ClientQuery): { features: Buffer; segments: string } {
    const built = this.current(query)
    return { features: built.payload.features(), segments: built.segments }
  }

  // One flag as the query's SDKs see it, or undefined when the query does not select it.
  featureJson(feature: Feature, query: ClientQuery): string | undefined {
    if (query.projects !== '*' && !query.projects.includes(feature.project)) return undefined
    if (!matchesQuery(feature, query, prefixMatcher(query.namePrefix))) return undefined
    const built = this.payloads.get(this.keyOf(query))
    const at = built && reusable(built, query, this.source.revisions.segments()) ? indexOf(built.flags, feature.name) : -1
    if (built && at >= 0 && built.flags[at] === feature) {
      const r = runOf(built.runStarts, at)
      const json = built.runs[r].json
      if (json !== undefined) return flagBytes(built.runs[r], json, at - built.runStarts[r]).toString()
    }
    return this.serialise(feature, query, this.source.segments())
  }

  segmentJsonOf(segment: Segment): string {
    return this.segmentJson(segment, this.source.revisions.segments())
  }

  private build(query: ClientQuery, key: string, version: number, revision: number, earlier: Built | undefined): Built {
    const segmentsRevision = this.source.revisions.segments()
    const segments = this.source.segments()
    const prefix = prefixMatcher(query.namePrefix)
    const selected: Feature[] = []
    for (const [projectId, project] of this.source.projects()) {
      if (query.projects !== '*' && !query.projects.includes(projectId)) continue
      for (const feature of project.features.values()) if (matchesQuery(feature, query, prefix)) selected.push(feature)
    }
    selected.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const segmentsJson = this.segmentsJsonFor(selected, query, segments, segmentsRevision)
    const { etag, rest } = bodyEnd(query, key, revision, segmentsJson)

    // same[i]: where flag i is in the earlier body (walked by name alongside) when it is the same state
    // object there, else -1.
    const donor = earlier && reusable(earlier, query, segmentsRevision) ? earlier : undefined
    const same = new Int32Array(selected.length).fill(-1)
    if (donor) {
      const flags = donor.flags
      let j = 0
      for (let i = 0; i < selected.length; i++) {
        const name = selected[i].name
        while (j < flags.length && flags[j].name < name) j++
        if (j < flags.length && flags[j] === selected[i]) same[i] = j
      }
    }
    const runs: Run[] = []
    const starts: number[] = []
    // The earlier runs' plain JSON inflated for this build (not kept by them).
    const inflated = new Map<Run, Buffer>()
    for (let from = 0; from < selected.length; ) {
      let to = from + 1
      while (to < selected.length && to - from < maxRunLength && !beginsRun(selected[to].name)) to++
      starts.push(from)
      runs.push((donor && sameRun(donor, same, from, to)) ?? this.newRun(selected, same, donor, inflated, from, to, query, segments))
      from = to
    }
    return {
      version,
      revision,
      payload: new ClientPayload(etag, runs, rest, this.options.plainKeptMs, this.counters, earlier?.payload.lastPlainUse),
      query,
      segmentsRevision,
      flags: selected,
      runs,
      runStarts: Uint32Array.from(starts),
      segments: segmentsJson,
      environment: query.environment,
      inline: query.inlineSegmentConstraints,
    }
  }

  // The run of flags [from, to): each one's JSON copied from the earlier body where it is the same state
  // object there, else serialised.
  private newRun(
    selected: readonly Feature[],
    same: Int32Array,
    donor: Built | undefined,
    inflated: Map<Run, Buffer>,
    from: number,
    to: number,
    query: ClientQuery,
    segments: ReadonlyMap<number, Segment>,
  ): Run {
    const count = to - from
    const pieces: (Buffer | string)[] = new Array(count)
    const offsets = new Uint32Array(count + 1)
    let length = 0
    for (let k = 0; k < count; k++) {
      const j = same[from + k]
      let piece: Buffer | string
      if (j >= 0) {
        const r = runOf(donor!.runStarts, j)
        const run = donor!.runs[r]
        let json = run.json ?? inflated.get(run)
        if (json === undefined) inflated.set(run, (json = inflatePart(run.deflated!)))
        piece = flagBytes(run, json, j - donor!.runStarts[r])
      } else piece = this.serialise(selected[from + k], query, segments)
      pieces[k] = piece
      offsets[k] = length
      length += (typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length) + 1
    }
    offsets[count] = length
    const json = runBuffer(length - 1)
    let at = 0
    for (let k = 0; k < count; k++) {
      if (k > 0) json[at++] = 0x2c
      const piece = pieces[k]
      at += typeof piece === 'string' ? json.write(piece, at) : piece.copy(json, at)
    }
    if (at !== json.length) throw new Error(`client features: wrote ${at} bytes of ${json.length}`)
    return { count, offsets, length: json.length, crc: crc32(json), json, deflated: undefined }
  }

  // The segments the query's flags use, as the body's JSON array (empty when they are inlined).
  private segmentsJsonFor(selected: readonly Feature[], query: ClientQuery, segments: ReadonlyMap<number, Segment>, segmentsRevision: number): string {
    if (query.inlineSegmentConstraints) return '[]'
    const used = new Set<number>()
    for (const feature of selected) {
      for (const strategy of feature.environments.get(query.environment)?.strategies ?? []) {
        if (!strategy.disabled) for (const id of strategy.segments) used.add(id)
      }
    }
    const list = [...used].map((id) => segments.get(id)).filter((s): s is Segment => s !== undefined)
    list.sort((a, b) => a.name.localeCompare(b.name))
    return `[${list.map((s) => this.segmentJson(s, segmentsRevision)).join(',')}]`
  }

  private segmentJson(segment: Segment, revision: number): string {
    if (this.segmentFragmentsRevision !== revision) {
      this.segmentsJson = new Map()
      this.segmentFragmentsRevision = revision
    }
    let json = this.segmentsJson.get(segment.id)
    if (json === undefined) {
      json = JSON.stringify({ id: segment.id, name: segment.name, constraints: segment.constraints })
      this.segmentsJson.set(segment.id, json)
    }
    return json
  }
}

// The scope's ETag, and what follows the features array in its body (from its closing bracket on).
const bodyEnd = (query: ClientQuery, key: string, revision: number, segmentsJson: string): { etag: string; rest: string } => {
  const queryHash = createHash('sha256').update(key).digest('hex').slice(0, 16)
  const etag = `"${queryHash}:${revision}:v1"`
  const segmentsPart = query.inlineSegmentConstraints ? '' : `,"segments":${segmentsJson}`
  const meta = JSON.stringify({ revisionId: revision, etag, queryHash })
  return { etag, rest: `],"query":${JSON.stringify(queryEcho(query))}${segmentsPart},"meta":${meta}}` }
}

// Whether a body's flag JSON holds for the query: the same environment and inlining, and for inlined
// segment constraints the same segments.
const reusable = (built: Built, query: ClientQuery, segmentsRevision: number): boolean =>
  built.environment === query.environment && built.inline === query.inlineSegmentConstraints && (!built.inline || built.segmentsRevision === segmentsRevision)

// The earlier body's run that holds exactly the state objects of flags [from, to), in order, if there is one.
const sameRun = (donor: Built, same: Int32Array, from: number, to: number): Run | undefined => {
  const j = same[from]
  if (j < 0) return undefined
  const r = runOf(donor.runStarts, j)
  if (donor.runStarts[r] !== j || donor.runs[r].count !== to - from) return undefined
  for (let k = from + 1; k < to; k++) if (same[k] !== j + (k - from)) return undefined
  return donor.runs[r]
}

// The position of the flag named `name` in a name-ordered list, or -1.
const indexOf = (flags: readonly Feature[], name: string): number => {
  let lo = 0
  let hi = flags.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (flags[mid].name < name) lo = mid + 1
    else hi = mid
  }
  return lo < flags.length && flags[lo].name === name ? lo : -1
}
