import type { ChangeRequest } from '../domain/change-request-state.js'
import { evolveChangeRequest, isChangeRequestEvent } from '../domain/change-requests.js'
import type { EventRecord } from '../domain/events.js'
import { evolveInstance, isInstanceEvent } from '../domain/instance.js'
import { emptyInstance, type InstanceState } from '../domain/instance-state.js'
import { evolveProject } from '../domain/project.js'
import type { ProjectState } from '../domain/project-state.js'
import type { EventLog, SnapshotEntry } from '../store/log.js'

// Bump whenever the shape of a state changes: older snapshots are then ignored and the log replayed.
export const snapshotFormat = 4

export interface Recovered {
  instance: InstanceState
  projects: Map<string, ProjectState>
  changeRequests: Map<number, ChangeRequest>
  lastId: number
  replayed: number
  fromSnapshot: boolean
}

export type World = { instance: InstanceState; projects: Map<string, ProjectState>; changeRequests: Map<number, ChangeRequest> }

export const applyRecord = (world: World, record: EventRecord): void => {
  if (isChangeRequestEvent(record.type)) {
    const id = record.data?.changeRequestId as number
    const next = evolveChangeRequest(world.changeRequests.get(id), record)
    if (next) world.changeRequests.set(id, next)
    return
  }
  if (isInstanceEvent(record.type)) {
    world.instance = evolveInstance(world.instance, record)
    return
  }
  if (!record.project) return
  const next = evolveProject(world.projects.get(record.project), record)
  if (next) world.projects.set(record.project, next)
  else world.projects.delete(record.project)
}

const loadInto = (world: World, snapshots: SnapshotEntry[]): void => {
  for (const entry of snapshots) {
    if (entry.key === 'instance') world.instance = entry.state as InstanceState
    else if (entry.key.startsWith('changeRequest:')) world.changeRequests.set(Number(entry.key.slice('changeRequest:'.length)), entry.state as ChangeRequest)
    else world.projects.set(entry.key.slice('project:'.length), entry.state as ProjectState)
  }
}

export const recover = (log: EventLog): Recovered => {
  const snapshots = log.loadSnapshots(snapshotFormat)
  const world: World = { instance: emptyInstance(), projects: new Map(), changeRequests: new Map() }
  let from = 1
  // A set is written whole at one log position; anything else is not ours to trust.
  const consistent = snapshots !== undefined && snapshots.length > 0 && snapshots.every((s) => s.lastId === snapshots[0].lastId)
  if (snapshots && consistent) {
    loadInto(world, snapshots)
    from = snapshots[0].lastId + 1
  }
  let replayed = 0
  for (const record of log.from(from)) {
    applyRecord(world, record as EventRecord)
    replayed++
  }
  return { ...world, lastId: log.lastId, replayed, fromSnapshot: from > 1 }
}

export const snapshotEntries = (
  instance: InstanceState,
  projects: ReadonlyMap<string, ProjectState>,
  changeRequests: ReadonlyMap<number, ChangeRequest>,
  lastId: number,
): SnapshotEntry[] => [
  { key: 'instance', lastId, state: instance },
  ...[...projects].map(([id, state]) => ({ key: `project:${id}`, lastId, state })),
  ...[...changeRequests].map(([id, state]) => ({ key: `changeRequest:${id}`, lastId, state })),
]

// A past moment: just after event `id`, or just after the last event at or before `time` (epoch ms).
export type LogPoint = { id: number } | { time: number }

const isAfter = (record: EventRecord, point: LogPoint): boolean =>
  'id' in point ? record.id > point.id : Date.parse(record.createdAt) > point.time

// The world as it was at a past moment: from the snapshot set when it is not past that moment, else
// replayed from the first record (only one snapshot set is kept). Also says which event it stops after.
export const worldAt = (log: EventLog, point: LogPoint): { world: World; lastId: number } => {
  const world: World = { instance: emptyInstance(), projects: new Map(), changeRequests: new Map() }
  let lastId = 0
  const snapshots = log.loadSnapshots(snapshotFormat)
  const snapshotId = snapshots && snapshots.length > 0 && snapshots.every((s) => s.lastId === snapshots[0].lastId) ? snapshots[0].lastId : 0
  const snapshotRecord = snapshotId > 0 ? (log.get(snapshotId) as EventRecord | undefined) : undefined
  if (snapshots && snapshotRecord && !isAfter(snapshotRecord, point)) {
    loadInto(world, snapshots)
    lastId = snapshotId
  }
  for (const record of log.from(lastId + 1) as Iterable<EventRecord>) {
    if (isAfter(record, point)) break
    applyRecord(world, record)
    lastId = record.id
  }
  return { world, lastId }
}
