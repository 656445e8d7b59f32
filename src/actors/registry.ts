import { createActor, type Actor } from 'xstate'
import type { ChangeRequest } from '../domain/change-request-state.js'
import type { InstanceState } from '../domain/instance-state.js'
import type { ProjectState } from '../domain/project-state.js'
import { changeRequestMachine } from './change-request.machine.js'
import { instanceMachine } from './instance.machine.js'
import { projectMachine } from './project.machine.js'

export type ProjectActor = Actor<typeof projectMachine>
export type InstanceActor = Actor<typeof instanceMachine>
export type ChangeRequestActor = Actor<typeof changeRequestMachine>

// Two views of every aggregate: the actors' decided state (what the next command is decided against)
// and the committed state (what is durable: the only thing reads and snapshots see).
export class Registry {
  instance: InstanceActor
  private readonly projects = new Map<string, ProjectActor>()
  committedInstance: InstanceState
  readonly committedProjects = new Map<string, ProjectState>()
  lastCommittedId: number
  private readonly changeRequestActors = new Map<number, ChangeRequestActor>()
  readonly committedChangeRequests = new Map<number, ChangeRequest>()

  constructor(
    instance: InstanceState,
    projects: Map<string, ProjectState>,
    lastCommittedId: number,
    changeRequests: Map<number, ChangeRequest> = new Map(),
  ) {
    for (const [id, request] of changeRequests) {
      this.changeRequestActors.set(id, createActor(changeRequestMachine, { input: { request } }).start())
      this.committedChangeRequests.set(id, request)
    }
    this.instance = createActor(instanceMachine, { input: { state: instance } }).start()
    this.committedInstance = instance
    for (const [id, state] of projects) {
      this.projects.set(id, createActor(projectMachine, { input: { state } }).start())
      this.committedProjects.set(id, state)
    }
    this.lastCommittedId = lastCommittedId
  }

  // After a failed commit: every actor starts again from the committed state, forgetting decisions
  // whose events never reached the log.
  resetDecidedToCommitted(): void {
    this.instance.stop()
    this.instance = createActor(instanceMachine, { input: { state: this.committedInstance } }).start()
    for (const actor of this.projects.values()) actor.stop()
    this.projects.clear()
    for (const [id, state] of this.committedProjects) this.projects.set(id, createActor(projectMachine, { input: { state } }).start())
    for (const actor of this.changeRequestActors.values()) actor.stop()
    this.changeRequestActors.clear()
    for (const [id, request] of this.committedChangeRequests) {
      this.changeRequestActors.set(id, createActor(changeRequestMachine, { input: { request } }).start())
    }
  }

  changeRequest(id: number): ChangeRequestActor | undefined {
    return this.changeRequestActors.get(id)
  }

  // Ids are handed out from decided state, so two new requests decided in one tick never share one.
  nextChangeRequestId(): number {
    return Math.max(0, ...this.changeRequestActors.keys()) + 1
  }

  spawnChangeRequest(id: number): ChangeRequestActor {
    const actor = createActor(changeRequestMachine, { input: { request: undefined } }).start()
    this.changeRequestActors.set(id, actor)
    return actor
  }

  forgetChangeRequest(id: number): void {
    this.changeRequestActors.get(id)?.stop()
    this.changeRequestActors.delete(id)
  }

  decidedChangeRequests(): ChangeRequest[] {
    const result: ChangeRequest[] = []
    for (const actor of this.changeRequestActors.values()) {
      const request = actor.getSnapshot().context.request
      if (request) result.push(request)
    }
    return result
  }

  project(id: string): ProjectActor | undefined {
    return this.projects.get(id)
  }

  // A fresh actor for a project that does not exist yet; kept only if its creation is decided.
  spawnProject(id: string): ProjectActor {
    const actor = createActor(projectMachine, { input: { state: undefined } }).start()
    return actor
  }

  adoptProject(id: string, actor: ProjectActor): void {
    this.projects.set(id, actor)
  }

  forgetProject(id: string, actor: ProjectActor): void {
    if (this.projects.get(id) === actor) {
      this.projects.delete(id)
      actor.stop()
    }
  }

  decidedProjects(): Iterable<[string, ProjectState]> {
    const result: [string, ProjectState][] = []
    for (const [id, actor] of this.projects) {
      const state = actor.getSnapshot().context.state
      if (state) result.push([id, state])
    }
    return result
  }

  decidedInstance(): InstanceState {
    return this.instance.getSnapshot().context.state
  }
}
