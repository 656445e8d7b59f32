import { createHash } from 'node:crypto'
import { brotliCompress, brotliCompressSync, constants as zlibConstants, gzip, gzipSync } from 'node:zlib'
import type { Segment } from '../domain/instance-state.js'
import type { Feature, FeatureEnvironment, ProjectState, Strategy } from '../domain/project-state.js'
import { orderedStrategies } from '../domain/strategies.js'
import { likePrefixMatcher } from '../domain/like-prefix.js'
import type { ClientRevisions } from './client-revisions.js'

// Shared by the polls that ask the same (clientQueryFor keeps one per token and spec), so never changed.
export interface ClientQuery {
  readonly environment: string
  readonly projects: readonly string[] | '*'
  readonly namePrefix?: string
  readonly tags?: readonly { readonly type: string; readonly value: string }[]
  readonly inlineSegmentConstraints: boolean
}

export interface ClientPayload {
  etag: string
  body: Buffer
  // Compressed copies (compressedCopy), each made when an SDK first asks for its encoding.
  gzip: Buffer | undefined
  brotli: Buffer | undefined
}

export type Encoding = 'gzip' | 'brotli'

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

// Below this a body compresses in well under a millisecond; above it (a 1 MB body takes 20-35 ms)
// the copies are made on libuv's thread pool and the plain body is served until they are ready.
const compressInlineBelow = 64 * 1024

const compressChunkMax = 1024 * 1024

const compress = (payload: ClientPayload, encoding: Encoding): void => {
  const { body } = payload
  const params = { [zlibConstants.BROTLI_PARAM_QUALITY]: 5, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.length }
  if (body.length < compressInlineBelow) {
    payload[encoding] = encoding === 'gzip' ? gzipSync(body, { level: 6 }) : brotliCompressSync(body, { params })
    return
  }
  // Output in chunks of up to 1 MB: each chunk is a callback on the event loop (at the default 16 KB, a
  // 53 MB body at 50,000 flags took about 3,500 of them and half a second of the event loop).
  const chunkSize = Math.min(compressChunkMax, Math.max(64 * 1024, body.length >> 3))
  const done = (error: Error | null, compressed: Buffer) => {
    if (!error) payload[encoding] = compressed
  }
  if (encoding === 'gzip') gzip(body, { level: 6, chunkSize }, done)
  else brotliCompress(body, { params, chunkSize }, done)
}

// The copies started, so that each is made once per payload.
const started: Record<Encoding, WeakSet<ClientPayload>> = { gzip: new WeakSet(), brotli: new WeakSet() }

// The payload's copy in `encoding` when it is ready; otherwise undefined, and it is made (off the event
// loop for a large body: the plain body is served until then). Only the encodings SDKs ask for are made
// and held (issue 26: at 50,000 flags each copy is 8-9 MB beside the 53 MB body).
export const compressedCopy = (payload: ClientPayload, encoding: Encoding): Buffer | undefined => {
  const copy = payload[encoding]
  if (copy !== undefined || started[encoding].has(payload)) return copy
  started[encoding].add(payload)
  compress(payload, encoding)
  return payload[encoding]
}

// A scope's answer as built: the body, and where each flag's JSON is in it. The flags are in the
// body's order (by name); flag i's JSON is body[starts[i], ends[i]).
interface Built {
  version: number
  revision: number
  payload: ClientPayload
  query: ClientQuery
  // The segments' revision the flags were serialised at (inlined constraints change with it).
  segmentsRevision: number
  flags: readonly Feature[]
  starts: Uint32Array
  ends: Uint32Array
  // The features array (brackets included) and the segments array within the body.
  features: readonly [number, number]
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

// One kept scope: its Built's facts, and which sections hold its body, gzip and brotli copies (-1: none)
// and its flags' starts and ends.
interface KeptScope {
  key: string
  query: ClientQuery
  revision: number
  segmentsRevision: number
  names: string[]
  features: readonly [number, number]
  sections: [number, number, number, number, number]
}

const bodyHead = '{"version":2,"features":['

const flagJson = (feature: Feature, query: ClientQuery, segments: ReadonlyMap<number, Segment>): string =>
  JSON.stringify(clientFeature(feature, feature.environments.get(query.environment), segments, query.inlineSegmentConstraints))

// What a build writes, in order: text, or bytes of an earlier body (a run of flags that did not change).
type Piece = string | { from: Buffer; start: number; end: number }

// Built on the first request after a change, then served as bytes. A flag's JSON exists only inside
// the bodies (no string per flag besides): a rebuild copies the JSON of every flag whose (immutable)
// state object is the one an earlier body of the same environment holds, in runs, and serialises only
// the others. At 50,000 flags the per-flag strings were 1.3 KB a flag of heap beside the same bytes
// in the body.
export class ClientFeatures {
  private readonly payloads = new Map<string, Built>()
  // The routes hand the same query object to every poll that asks the same (clientQueryFor).
  private readonly keys = new WeakMap<ClientQuery, string>()
  private segmentFragmentsRevision = -1
  private segmentsJson = new Map<number, string>()
  // The scopes a clean stop kept that no request has asked for since the start, and where they are.
  private keptScopes = new Map<string, KeptScope>()
  private keptReader: KeptReader | undefined
  // Flags serialised so far (a fragment made): a test's proof that a change to one flag re-serialises
  // that flag alone.
  readonly counters = { flagsSerialised: 0 }

  constructor(private readonly source: ClientFeaturesSource) {}

  payload(query: ClientQuery): ClientPayload {
    return this.current(query).payload
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
    const section = (bytes: Uint8Array | undefined) => (bytes ? sections.push(bytes) - 1 : -1)
    for (const [key, built] of this.payloads) {
      if (!this.holds(built)) continue
      const { payload } = built
      header.push({
        key,
        query: built.query,
        revision: built.revision,
        segmentsRevision: built.segmentsRevision,
        names: built.flags.map((flag) => flag.name),
        features: built.features,
        sections: [section(payload.body), section(payload.gzip), section(payload.brotli), section(new Uint8Array(built.starts.buffer)), section(new Uint8Array(built.ends.buffer))],
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
    for (const scope of kept.header as KeptScope[]) this.keptScopes.set(scope.key, scope)
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
    const { key, query, names, features: range } = scope
    if (key !== cacheKey(query) || !this.holds(scope)) return undefined
    const revisions = this.source.revisions
    const segmentsRevision = revisions.segments()
    const revision = scope.revision
    const [bodyAt, gzipAt, brotliAt, startsAt, endsAt] = scope.sections
    const view = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const numbers = (bytes: Uint8Array) => new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
    const starts = numbers(reader.section(startsAt))
    const ends = numbers(reader.section(endsAt))
    if (starts.length !== names.length || ends.length !== names.length) return undefined
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
    const body = view(reader.section(bodyAt))
    if (!body.subarray(0, range[0] + 1).equals(Buffer.from(bodyHead)) || !body.subarray(range[1] - 1).equals(Buffer.from(rest))) return undefined
    const sample = Math.min(flags.length, 16)
    for (let k = 0; k < sample; k++) {
      const i = sample === 1 ? 0 : Math.round((k * (flags.length - 1)) / (sample - 1))
      if (body.toString('utf8', starts[i], ends[i]) !== flagJson(flags[i], query, segments)) return undefined
    }
    const copy = (at: number) => (at >= 0 ? view(reader.section(at)) : undefined)
    const payload: ClientPayload = { etag, body, gzip: copy(gzipAt), brotli: copy(brotliAt) }
    return {
      version: revisions.version(),
      revision,
      payload,
      query,
      segmentsRevision,
      flags,
      starts,
      ends,
      features: range,
      segments: segmentsJson,
      environment: query.environment,
      inline: query.inlineSegmentConstraints,
    }
  }

  // The query's flags (a view of the body's bytes) and the segments they use (text), as JSON arrays:
  // the body's parts, shared by the delta API and the streams so that both serve exactly what
  // /api/client/features does.
  parts(query: ClientQuery): { features: Buffer; segments: string } {
    const built = this.current(query)
    return { features: built.payload.body.subarray(built.features[0], built.features[1]), segments: built.segments }
  }

  // One flag as the query's SDKs see it, or undefined when the query does not select it.
  featureJson(feature: Feature, query: ClientQuery): string | undefined {
    if (query.projects !== '*' && !query.projects.includes(feature.project)) return undefined
    if (!matchesQuery(feature, query, prefixMatcher(query.namePrefix))) return undefined
    const built = this.payloads.get(this.keyOf(query))
    const at = built && reusable(built, query, this.source.revisions.segments()) ? indexOf(built.flags, feature.name) : -1
    if (built && at >= 0 && built.flags[at] === feature) return built.payload.body.toString('utf8', built.starts[at], built.ends[at])
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

    // The pieces in order; each flag's JSON is copied from the earlier body (the same state object, the
    // earlier a name-ordered walk alongside this one) or serialised now. Runs of copied flags that
    // were next to each other there are copied as one piece.
    const donor = earlier && reusable(earlier, query, segmentsRevision) ? earlier : undefined
    const pieces: Piece[] = [bodyHead]
    const starts = new Uint32Array(selected.length)
    const ends = new Uint32Array(selected.length)
    let length = Buffer.byteLength(pieces[0] as string)
    const featuresStart = length - 1
    let run: { from: Buffer; start: number; end: number } | undefined
    let j = 0
    for (let i = 0; i < selected.length; i++) {
      const feature = selected[i]
      if (i > 0) length += 1
      let at = -1
      if (donor) {
        const flags = donor.flags
        while (j < flags.length && flags[j].name < feature.name) j++
        if (j < flags.length && flags[j] === feature) at = j
      }
      if (at >= 0) {
        const start = donor!.starts[at]
        const end = donor!.ends[at]
        // Joined to the run when it follows it there, comma included.
        if (run && i > 0 && run.end + 1 === start) run.end = end
        else {
          if (run) pieces.push(run)
          if (i > 0) pieces.push(',')
          run = { from: donor!.payload.body, start, end }
        }
        starts[i] = length
        length += end - start
        ends[i] = length
        continue
      }
      if (run) pieces.push(run)
      run = undefined
      const json = this.serialise(feature, query, segments)
      pieces.push(i > 0 ? `,${json}` : json)
      starts[i] = length
      length += Buffer.byteLength(json)
      ends[i] = length
    }
    if (run) pieces.push(run)
    const featuresEnd = length + 1
    pieces.push(rest)
    length += Buffer.byteLength(rest)

    const body = Buffer.allocUnsafe(length)
    let at = 0
    for (const piece of pieces) {
      if (typeof piece === 'string') at += body.write(piece, at)
      else at += piece.from.copy(body, at, piece.start, piece.end)
    }
    if (at !== length) throw new Error(`client features: wrote ${at} bytes of ${length}`)
    return {
      version,
      revision,
      payload: { etag, body, gzip: undefined, brotli: undefined },
      query,
      segmentsRevision,
      flags: selected,
      starts,
      ends,
      features: [featuresStart, featuresEnd],
      segments: segmentsJson,
      environment: query.environment,
      inline: query.inlineSegmentConstraints,
    }
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
