import type { EventRecord } from '../domain/events.js'
import { evolveInstance, isInstanceEvent } from '../domain/instance.js'
import { emptyInstance, type InstanceState } from '../domain/instance-state.js'
import { evolveProject } from '../domain/project.js'
import type { ProjectState } from '../domain/project-state.js'
import type { EventLog, SnapshotEntry } from '../store/log.js'

// Bump whenever the shape of a state changes: older snapshots are then ignored and the log replayed.
export const snapshotFormat = 3

export interface Recovered {
  instance: InstanceState
  projects: Map<string, ProjectState>
  lastId: number
  replayed: number
  fromSnapshot: boolean
}

export const applyRecord = (world: { instance: InstanceState; projects: Map<string, ProjectState> }, record: EventRecord): void => {
  if (isInstanceEvent(record.type)) {
    world.instance = evolveInstance(world.instance, record)
    return
  }
  if (!record.project) return
  const next = evolveProject(world.projects.get(record.project), record)
  if (next) world.projects.set(record.project, next)
  else world.projects.delete(record.project)
}

export const recover = (log: EventLog): Recovered => {
  const snapshots = log.loadSnapshots(snapshotFormat)
  const world = { instance: emptyInstance(), projects: new Map<string, ProjectState>() }
  let from = 1
  if (snapshots && snapshots.length > 0) {
    for (const entry of snapshots) {
      if (entry.key === 'instance') world.instance = entry.state as InstanceState
      else world.projects.set(entry.key.slice('project:'.length), entry.state as ProjectState)
    }
    from = Math.min(...snapshots.map((s) => s.lastId)) + 1
  }
  let replayed = 0
  for (const record of log.from(from)) {
    applyRecord(world, record as EventRecord)
    replayed++
  }
  return { ...world, lastId: log.lastId, replayed, fromSnapshot: from > 1 }
}

export const snapshotEntries = (instance: InstanceState, projects: ReadonlyMap<string, ProjectState>, lastId: number): SnapshotEntry[] => [
  { key: 'instance', lastId, state: instance },
  ...[...projects].map(([id, state]) => ({ key: `project:${id}`, lastId, state })),
]
