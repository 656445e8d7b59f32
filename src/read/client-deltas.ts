import type { EventRecord } from '../domain/events.js'
import type { Segment } from '../domain/instance-state.js'
import type { Feature, ProjectState } from '../domain/project-state.js'
import { cacheKey, type ClientFeatures, type ClientQuery } from './client-features.js'
import type { ClientRevisions } from './client-revisions.js'

// What one committed record changed for SDKs: a flag, a segment, or (for the few records that change
// many flags at once, like an import) everything of a project in an environment.
export type Touch =
  | { id: number; kind: 'feature'; featureName: string; project: string; environment: string | undefined }
  | { id: number; kind: 'segment'; segmentId: number; project: string | undefined }
  | { id: number; kind: 'project'; project: string; environment: string | undefined }

// Records of a project that change nothing a flag looks like to an SDK, even when they name one.
const notFlagContent = ['change-request-', 'change-', 'project-access-', 'project-user-', 'project-group-']
const notFlagContentTypes = new Set(['project-created', 'project-updated', 'project-deleted', 'default-strategy-updated'])

const segmentOf = (record: EventRecord): Segment | undefined => {
  switch (record.type) {
    case 'segment-created':
    case 'segment-updated':
      return record.data
    case 'segment-deleted':
      return record.preData
    default:
      return undefined
  }
}

// Only called for records that touch the client payload (server.ts decides which do).
export const touchOf = (record: EventRecord): Touch | undefined => {
  const { id, type } = record
  if (type.startsWith('segment-')) {
    const segment = segmentOf(record)
    return segment && { id, kind: 'segment', segmentId: segment.id, project: segment.project ?? undefined }
  }
  if (!record.project || notFlagContentTypes.has(type) || notFlagContent.some((prefix) => type.startsWith(prefix))) return undefined
  const environment = record.environment ?? undefined
  if (record.featureName) return { id, kind: 'feature', featureName: record.featureName, project: record.project, environment }
  return { id, kind: 'project', project: record.project, environment }
}

export interface DeltaSource {
  projects(): ReadonlyMap<string, ProjectState>
  segments(): ReadonlyMap<number, Segment>
  revisions: ClientRevisions
  clientFeatures: ClientFeatures
}

// A delta answer: the events' JSON objects joined by commas, ready to go inside {"events":[…]}. A
// hydration's are pieces of bytes, its flags a view of the client answer's own (at 50,000 flags a copy
// as text was 53 MB per scope beside the body).
export interface Delta {
  revision: number
  events: string | readonly Uint8Array[]
  hydration: boolean
}

// The delta's events between `head` and `tail`, as bytes to send.
export const deltaBytes = (delta: Delta, head: string, tail: string): Buffer =>
  typeof delta.events === 'string' ? Buffer.from(`${head}${delta.events}${tail}`) : Buffer.concat([Buffer.from(head), ...delta.events, Buffer.from(tail)])

export const hasEvents = (delta: Delta): boolean => delta.hydration || delta.events.length > 0

const inScope = (query: ClientQuery, project: string | undefined): boolean =>
  project === undefined || query.projects === '*' || query.projects.includes(project)

const matchesEnvironment = (query: ClientQuery, environment: string | undefined) => environment === undefined || environment === query.environment

// Unleash's delta events (feature-updated, feature-removed, segment-updated, segment-removed, hydration),
// for any query, from the last `capacity` touches. A flag changed several times since the client's revision
// is sent once, as it is now: the SDK needs the end state, not the steps.
export class ClientDeltas {
  // The kept touches are touches[first..]: the oldest is dropped by moving `first` (a shift moved every
  // other touch, 15 µs of each write at the default 1,000), and the array is cut once half is dropped.
  private touches: Touch[] = []
  private first = 0
  // Touches above this id are all kept: a client at or above it can be answered with events.
  private floor: number
  private readonly hydrations = new Map<string, { version: number; delta: Delta }>()
  private readonly answers = new Map<string, Delta>()
  private answersVersion = -1

  constructor(
    private readonly source: DeltaSource,
    private readonly capacity: number,
    // The log position the touches start after (the log is read from there at start-up).
    start: number,
  ) {
    this.floor = start
  }

  // State replaced wholesale (a read replica's snapshot at `position`): no kept change leads to it.
  restart(position: number): void {
    this.touches = []
    this.first = 0
    this.floor = position
    this.hydrations.clear()
    this.answers.clear()
  }

  record(records: readonly EventRecord[]): void {
    for (const record of records) {
      const touch = touchOf(record)
      if (!touch) continue
      this.touches.push(touch)
      if (this.touches.length - this.first > this.capacity) this.floor = this.touches[this.first++].id
      if (this.first > this.capacity) {
        this.touches = this.touches.slice(this.first)
        this.first = 0
      }
    }
  }

  revisionFor(query: ClientQuery): number {
    return this.source.revisions.revisionFor(query.projects, query.environment)
  }

  // Everything the query selects, as one hydration event; built once per change and query.
  hydration(query: ClientQuery): Delta {
    const key = cacheKey(query)
    const version = this.source.revisions.version()
    const cached = this.hydrations.get(key)
    if (cached && cached.version === version) return cached.delta
    const revision = this.revisionFor(query)
    const parts = this.source.clientFeatures.parts(query)
    const delta = {
      revision,
      events: [Buffer.from(`{"type":"hydration","eventId":${revision},"features":`), parts.features, Buffer.from(`,"segments":${parts.segments}}`)],
      hydration: true,
    }
    if (this.hydrations.size >= 500) this.hydrations.delete(this.hydrations.keys().next().value!)
    this.hydrations.set(key, { version, delta })
    return delta
  }

  // The events a client at `since` has missed; a hydration when they are no longer kept.
  since(query: ClientQuery, since: number): Delta {
    const revision = this.revisionFor(query)
    if (since === revision) return { revision, events: '', hydration: false }
    if (since < this.floor || since > revision) return this.hydration(query)
    const version = this.source.revisions.version()
    if (version !== this.answersVersion) {
      this.answers.clear()
      this.answersVersion = version
    }
    const key = `${cacheKey(query)}\u0000${since}`
    let answer = this.answers.get(key)
    if (!answer) {
      answer = this.build(query, since, revision)
      if (this.answers.size < 1000) this.answers.set(key, answer)
    }
    return answer
  }

  private build(query: ClientQuery, since: number, revision: number): Delta {
    const features = new Map<string, { id: number; project: string }>()
    const segments = new Map<number, number>()
    for (let i = this.touches.length - 1; i >= this.first && this.touches[i].id > since; i--) {
      const touch = this.touches[i]
      if (touch.kind === 'segment') {
        if (!inScope(query, touch.project)) continue
        // Inlined segment constraints live inside every flag that uses the segment.
        if (query.inlineSegmentConstraints) return this.hydration(query)
        if (!segments.has(touch.segmentId)) segments.set(touch.segmentId, touch.id)
        continue
      }
      if (!inScope(query, touch.project) || !matchesEnvironment(query, touch.environment)) continue
      if (touch.kind === 'project') return this.hydration(query)
      if (!features.has(touch.featureName)) features.set(touch.featureName, { id: touch.id, project: touch.project })
    }
    const events: { id: number; json: string }[] = []
    const currentSegments = this.source.segments()
    for (const [segmentId, id] of segments) {
      const segment = currentSegments.get(segmentId)
      events.push({
        id,
        json: segment
          ? `{"type":"segment-updated","eventId":${id},"segment":${this.source.clientFeatures.segmentJsonOf(segment)}}`
          : `{"type":"segment-removed","eventId":${id},"segmentId":${segmentId}}`,
      })
    }
    for (const [name, { id, project }] of features) {
      const feature = this.findFeature(name, project)
      const json = feature && !feature.archived ? this.source.clientFeatures.featureJson(feature, query) : undefined
      if (json !== undefined) events.push({ id, json: `{"type":"feature-updated","eventId":${id},"feature":${json}}` })
      else if (!query.namePrefix || name.startsWith(query.namePrefix.replace(/[%_].*$/s, ''))) {
        events.push({ id, json: `{"type":"feature-removed","eventId":${id},"featureName":${JSON.stringify(name)},"project":${JSON.stringify(feature?.project ?? project)}}` })
      }
    }
    events.sort((a, b) => a.id - b.id)
    return { revision, events: events.map((e) => e.json).join(','), hydration: false }
  }

  private findFeature(name: string, project: string): Feature | undefined {
    const own = this.source.projects().get(project)?.features.get(name)
    if (own) return own
    for (const state of this.source.projects().values()) {
      const feature = state.features.get(name)
      if (feature) return feature
    }
    return undefined
  }
}
