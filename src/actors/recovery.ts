import { withBuiltInFeatureTypes } from '../domain/feature-types.js'
import type { ChangeRequest } from '../domain/change-request-state.js'
import { evolveChangeRequest, isChangeRequestRecord } from '../domain/change-requests.js'
import type { EventRecord } from '../domain/events.js'
import { evolveInstance, ownedByInstance } from '../domain/instance.js'
import { emptyInstance, type InstanceState } from '../domain/instance-state.js'
import { evolveProject } from '../domain/project.js'
import type { ProjectState } from '../domain/project-state.js'
import { noItems } from '../domain/no-items.js'
import type { EventLog, SnapshotEntry } from '../store/log.js'
import './snapshot-codec.js'

// Bump whenever the shape of a state changes: older snapshots are then ignored and the log replayed.
// 13: a PersistentMap's chunks are blobs of their own (snapshot-codec.ts); a format-12 set is not read
// (decoding its nested chunks took minutes at 50,000 flags): the log is replayed once instead.
// 14: a flag's environments are a SmallMap (extension 0x52), not a Map.
// 15: the insights read model keeps who created a flag as two fields, not an object.
export const snapshotFormat = 15

// A read model whose state is a pure function of the log, snapshotted beside the actors' states so
// that it comes out the same whether a process replayed the whole log or started from a snapshot.
export interface ReplayedReadModel {
  key: string
  restore(state: unknown): void
  apply(record: EventRecord): void
  snapshot(): unknown
}

const readModelPrefix = 'read:'

export interface Recovered {
  instance: InstanceState
  projects: Map<string, ProjectState>
  changeRequests: Map<number, ChangeRequest>
  lastId: number
  replayed: number
  fromSnapshot: boolean
  // Seconds spent loading (reading and decoding) the snapshot set, restoring the read models from it,
  // and replaying the records after it.
  seconds: { snapshot: number; readModels: number; replay: number }
}

export type World = { instance: InstanceState; projects: Map<string, ProjectState>; changeRequests: Map<number, ChangeRequest> }

export const applyRecord = (world: World, record: EventRecord): void => {
  if (isChangeRequestRecord(record)) {
    const id = record.data.changeRequestId
    const next = evolveChangeRequest(world.changeRequests.get(id), record)
    if (next) world.changeRequests.set(id, next)
    return
  }
  if (ownedByInstance(record)) {
    world.instance = evolveInstance(world.instance, record)
    return
  }
  if (!record.project) return
  const next = evolveProject(world.projects.get(record.project), record)
  if (next) world.projects.set(record.project, next)
  else world.projects.delete(record.project)
}

export interface RestoredWorld extends World {
  lastId: number
}

// A set is written whole at one log position, with every read model in it; anything else is not
// ours to trust, and undefined says so.
export const restoreWorld = (entries: readonly SnapshotEntry[], readModels: readonly ReplayedReadModel[] = []): RestoredWorld | undefined => {
  if (entries.length === 0 || !entries.every((entry) => entry.lastId === entries[0].lastId)) return undefined
  const keys = new Set(entries.map((entry) => entry.key))
  if (!keys.has('instance') || !readModels.every((model) => keys.has(readModelPrefix + model.key))) return undefined
  const world: World = { instance: emptyInstance(), projects: new Map(), changeRequests: new Map() }
  for (const entry of entries) {
    if (entry.key === 'instance') world.instance = entry.state as InstanceState
    else if (entry.key.startsWith('changeRequest:')) world.changeRequests.set(Number(entry.key.slice('changeRequest:'.length)), entry.state as ChangeRequest)
    else if (entry.key.startsWith('project:')) world.projects.set(entry.key.slice('project:'.length), entry.state as ProjectState)
  }
  for (const model of readModels) model.restore(entries.find((entry) => entry.key === readModelPrefix + model.key)!.state)
  return { ...world, lastId: entries[0].lastId }
}

export const recover = (log: EventLog, readModels: readonly ReplayedReadModel[] = []): Recovered => {
  const began = performance.now()
  const snapshots = log.loadSnapshots(snapshotFormat, noItems)
  const loaded = performance.now()
  const restored = snapshots && restoreWorld(snapshots, readModels)
  const world: World = restored ?? { instance: emptyInstance(), projects: new Map(), changeRequests: new Map() }
  // A snapshot written by an older version holds the flag types it knew, with their texts then.
  if (restored) world.instance = withBuiltInFeatureTypes(world.instance)
  const from = restored ? restored.lastId + 1 : 1
  const replaying = performance.now()
  let replayed = 0
  for (const stored of log.from(from)) {
    const record = stored as EventRecord
    applyRecord(world, record)
    for (const model of readModels) model.apply(record)
    replayed++
  }
  const seconds = { snapshot: (loaded - began) / 1000, readModels: (replaying - loaded) / 1000, replay: (performance.now() - replaying) / 1000 }
  return { instance: world.instance, projects: world.projects, changeRequests: world.changeRequests, lastId: log.lastId, replayed, fromSnapshot: from > 1, seconds }
}

export const snapshotEntries = (
  instance: InstanceState,
  projects: ReadonlyMap<string, ProjectState>,
  changeRequests: ReadonlyMap<number, ChangeRequest>,
  lastId: number,
  readModels: readonly ReplayedReadModel[] = [],
): SnapshotEntry[] => [
  { key: 'instance', lastId, state: instance },
  ...[...projects].map(([id, state]) => ({ key: `project:${id}`, lastId, state })),
  ...[...changeRequests].map(([id, state]) => ({ key: `changeRequest:${id}`, lastId, state })),
  ...readModels.map((model) => ({ key: readModelPrefix + model.key, lastId, state: model.snapshot() })),
]

// A past moment: just after event `id`, or just after the last event at or before `time` (epoch ms).
export type LogPoint = { id: number } | { time: number }

const isAfter = (record: EventRecord, point: LogPoint): boolean =>
  'id' in point ? record.id > point.id : Date.parse(record.createdAt) > point.time

// The world as it was at a past moment: from the snapshot set when it is not past that moment, else
// replayed from the first record (only one snapshot set is kept). Also says which event it stops after.
export const worldAt = (log: EventLog, point: LogPoint): { world: World; lastId: number } => {
  const snapshots = log.loadSnapshots(snapshotFormat, noItems)
  const restored = snapshots && restoreWorld(snapshots)
  const snapshotRecord = restored ? (log.get(restored.lastId) as EventRecord | undefined) : undefined
  const usable = restored && snapshotRecord && !isAfter(snapshotRecord, point)
  const world: World = usable ? { instance: restored.instance, projects: restored.projects, changeRequests: restored.changeRequests } : { instance: emptyInstance(), projects: new Map(), changeRequests: new Map() }
  let lastId = usable ? restored.lastId : 0
  for (const record of log.from(lastId + 1) as Iterable<EventRecord>) {
    if (isAfter(record, point)) break
    applyRecord(world, record)
    lastId = record.id
  }
  return { world, lastId }
}
