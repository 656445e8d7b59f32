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
  // Compressed copies are made off the event loop; until one is ready the plain body is served.
  gzip: Buffer | undefined
  brotli: Buffer | undefined
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

// Below this a body compresses in well under a millisecond; above it (a 1 MB body takes 20-35 ms)
// the copies are made on libuv's thread pool and the plain body is served until they are ready.
const compressInlineBelow = 64 * 1024

const compress = (payload: ClientPayload): void => {
  const params = { [zlibConstants.BROTLI_PARAM_QUALITY]: 5, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: payload.body.length }
  if (payload.body.length < compressInlineBelow) {
    payload.gzip = gzipSync(payload.body, { level: 6 })
    payload.brotli = brotliCompressSync(payload.body, { params })
    return
  }
  gzip(payload.body, { level: 6 }, (error, compressed) => {
    if (!error) payload.gzip = compressed
  })
  brotliCompress(payload.body, { params }, (error, compressed) => {
    if (!error) payload.brotli = compressed
  })
}

// Built on the first request after a change, then served as bytes; one JSON fragment per flag and
// environment is kept while the flag's state object is unchanged (state is immutable).
export class ClientFeatures {
  private readonly payloads = new Map<string, { version: number; revision: number; payload: ClientPayload }>()
  private readonly fragments = new WeakMap<Feature, Map<string, string>>()
  // The routes hand the same query object to every poll that asks the same (clientQueryFor).
  private readonly keys = new WeakMap<ClientQuery, string>()
  private segmentFragmentsRevision = -1
  private segmentsJson = new Map<number, string>()
  // Flags serialised so far (a fragment made): a test's proof that a change to one flag re-serialises
  // that flag alone.
  readonly counters = { flagsSerialised: 0 }

  constructor(private readonly source: ClientFeaturesSource) {}

  payload(query: ClientQuery): ClientPayload {
    let key = this.keys.get(query)
    if (key === undefined) this.keys.set(query, (key = cacheKey(query)))
    const revisions = this.source.revisions
    const version = revisions.version()
    const cached = this.payloads.get(key)
    if (cached && cached.version === version) return cached.payload
    const revision = revisions.revisionFor(query.projects, query.environment)
    if (cached && cached.revision === revision) {
      cached.version = version
      return cached.payload
    }
    const payload = this.build(query, key, revision)
    compress(payload)
    if (this.payloads.size >= maxCachedScopes) this.payloads.delete(this.payloads.keys().next().value!)
    this.payloads.set(key, { version, revision, payload })
    return payload
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

  private fragment(feature: Feature, query: ClientQuery, segments: ReadonlyMap<number, Segment>, segmentsRevision: number): string {
    // Inlined segment constraints change with the segments, not with the flag.
    const key = query.inlineSegmentConstraints ? `${query.environment}\u0000inline\u0000${segmentsRevision}` : query.environment
    let byKey = this.fragments.get(feature)
    if (!byKey) this.fragments.set(feature, (byKey = new Map()))
    let json = byKey.get(key)
    if (json === undefined) {
      this.counters.flagsSerialised++
      json = JSON.stringify(clientFeature(feature, feature.environments.get(query.environment), segments, query.inlineSegmentConstraints))
      if (query.inlineSegmentConstraints) for (const k of byKey.keys()) if (k.includes('\u0000inline\u0000')) byKey.delete(k)
      byKey.set(key, json)
    }
    return json
  }

  // The query's flags and the segments they use, as JSON array texts: the body's parts, shared by the
  // delta API and the streams so that both serve exactly what /api/client/features does.
  parts(query: ClientQuery): { features: string; segments: string } {
    const segmentsRevision = this.source.revisions.segments()
    const segments = this.source.segments()
    const prefix = prefixMatcher(query.namePrefix)
    const selected: Feature[] = []
    for (const [projectId, project] of this.source.projects()) {
      if (query.projects !== '*' && !query.projects.includes(projectId)) continue
      for (const feature of project.features.values()) if (matchesQuery(feature, query, prefix)) selected.push(feature)
    }
    selected.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    let segmentsJson = '[]'
    if (!query.inlineSegmentConstraints) {
      const used = new Set<number>()
      for (const feature of selected) {
        for (const strategy of feature.environments.get(query.environment)?.strategies ?? []) {
          if (!strategy.disabled) for (const id of strategy.segments) used.add(id)
        }
      }
      const list = [...used].map((id) => segments.get(id)).filter((s): s is Segment => s !== undefined)
      list.sort((a, b) => a.name.localeCompare(b.name))
      segmentsJson = `[${list.map((s) => this.segmentJson(s, segmentsRevision)).join(',')}]`
    }
    return { features: `[${selected.map((f) => this.fragment(f, query, segments, segmentsRevision)).join(',')}]`, segments: segmentsJson }
  }

  // One flag as the query's SDKs see it, or undefined when the query does not select it.
  featureJson(feature: Feature, query: ClientQuery): string | undefined {
    if (query.projects !== '*' && !query.projects.includes(feature.project)) return undefined
    if (!matchesQuery(feature, query, prefixMatcher(query.namePrefix))) return undefined
    return this.fragment(feature, query, this.source.segments(), this.source.revisions.segments())
  }

  segmentJsonOf(segment: Segment): string {
    return this.segmentJson(segment, this.source.revisions.segments())
  }

  private build(query: ClientQuery, key: string, revision: number): ClientPayload {
    const queryHash = createHash('sha256').update(key).digest('hex').slice(0, 16)
    const etag = `"${queryHash}:${revision}:v1"`
    const parts = this.parts(query)
    const segmentsPart = query.inlineSegmentConstraints ? '' : `,"segments":${parts.segments}`
    const meta = JSON.stringify({ revisionId: revision, etag, queryHash })
    const json = `{"version":2,"features":${parts.features},"query":${JSON.stringify(queryEcho(query))}${segmentsPart},"meta":${meta}}`
    const body = Buffer.from(json)
    return { etag, body, gzip: undefined, brotli: undefined }
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
