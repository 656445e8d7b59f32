import type { Dispatcher } from '../actors/dispatch.js'
import type { ChangeRequest } from '../domain/change-request-state.js'
import type { InstanceState } from '../domain/instance-state.js'
import type { ProjectState } from '../domain/project-state.js'
import type { ProjectWorld } from '../domain/world.js'

// Routes reach the actors through these two ports only. A command goes to the actor that owns it,
// which decides, appends and answers once its events are committed.
export type CommandPort = Pick<Dispatcher, 'toInstance' | 'toProject' | 'toChangeRequest' | 'together' | 'moveFeature' | 'applyChangeRequest' | 'nextChangeRequestId'>

// What routes read: committed state, the state the log holds, never a decision still in flight.
export interface ReadPort {
  readonly instance: InstanceState
  readonly projects: ReadonlyMap<string, ProjectState>
  readonly changeRequests: ReadonlyMap<number, ChangeRequest>
  // The id of the last committed record.
  readonly lastId: number
  // The world a flag's checks read (names, constraints), as committed.
  world(): ProjectWorld
}
