import type { DistributiveOmit } from '../domain/type-utils.js'
import { DomainError, notFound } from '../domain/errors.js'
import type { EventDraft, EventRecord } from '../domain/events.js'
import { withFeatureTags } from '../domain/event-tags.js'
import type { ChangeRequestCommand } from '../domain/change-requests.js'
import { decideInstance, evolveInstance, type InstanceCommand } from '../domain/instance.js'
import { decideProject, type ProjectCommand } from '../domain/project.js'
import type { EventLog } from '../store/log.js'
import type { Decision } from './decision.js'
import type { ChangeRequestActor, InstanceActor, ProjectActor, Registry } from './registry.js'

// commitSeconds: from the append to the durable commit.
export type CommittedListener = (records: EventRecord[], commitSeconds: number) => void

export const indexKeysOf = (record: EventRecord): string[] => {
  const keys: string[] = []
  if (record.project) keys.push(`project:${record.project}`)
  if (record.featureName) keys.push(`feature:${record.featureName}`)
  return keys
}

export type ProjectCommandInput = DistributiveOmit<ProjectCommand, 'world'>

// Sends a command to its actor, appends what was decided to the log and resolves once it is durable.
export class Dispatcher {
  private readonly listeners: CommittedListener[] = []

  constructor(
    private readonly log: EventLog,
    private readonly registry: Registry,
    private readonly buildWorld: () => ProjectCommand['world'],
    private readonly onFatal: (error: unknown) => void,
  ) {}

  onCommitted(listener: CommittedListener): void {
    this.listeners.push(listener)
  }

  async toInstance(command: InstanceCommand): Promise<EventRecord[]> {
    const actor = this.registry.instance
    const events = this.decide(actor, command)
    const decided = actor.getSnapshot().context.state
    return this.commit(events, () => {
      this.registry.committedInstance = decided
    })
  }

  async toProject(projectId: string, command: ProjectCommandInput): Promise<EventRecord[]> {
    const full = { ...command, world: this.buildWorld() } as ProjectCommand
    let actor = this.registry.project(projectId)
    const isCreate = full.type === 'project.create'
    if (isCreate && (!actor || actor.getSnapshot().status !== 'active')) actor = this.registry.spawnProject(projectId)
    if (!actor) throw notFound(`Project ${projectId} does not exist`)
    const events = this.decide(actor, full)
    const decided = actor.getSnapshot().context.state
    if (isCreate && events.length > 0) this.registry.adoptProject(projectId, actor)
    const owner = actor
    return this.commit(withFeatureTags(events, decided), () => {
      if (decided) this.registry.committedProjects.set(projectId, decided)
      else {
        this.registry.committedProjects.delete(projectId)
        this.registry.forgetProject(projectId, owner)
      }
    })
  }

  async toChangeRequest(id: number, command: ChangeRequestCommand): Promise<EventRecord[]> {
    const isCreate = command.type === 'changeRequest.create'
    const actor = isCreate ? this.registry.spawnChangeRequest(id) : this.registry.changeRequest(id)
    if (!actor) throw notFound(`Could not find change request ${id}`)
    let events: EventDraft[]
    try {
      events = this.decide(actor, command)
    } catch (error) {
      if (isCreate) this.registry.forgetChangeRequest(id)
      throw error
    }
    const decided = actor.getSnapshot().context.request!
    return this.commit(events, () => {
      this.registry.committedChangeRequests.set(id, decided)
    })
  }

  // Applying a change request: the project's changes, any segment changes and the request's own
  // step are decided first without touching an actor, then sent, then written in ONE log append.
  async applyChangeRequest(
    id: number,
    step: ChangeRequestCommand,
    projectId: string,
    projectCommands: ProjectCommandInput[],
    instanceCommands: InstanceCommand[],
  ): Promise<EventRecord[]> {
    const requestActor = this.registry.changeRequest(id)
    if (!requestActor) throw notFound(`Could not find change request ${id}`)
    const state = requestActor.getSnapshot().context.request?.state
    if (state !== 'Approved' && state !== 'Scheduled') this.decide(requestActor, step)
    const projectActor = this.registry.project(projectId)
    if (!projectActor) throw notFound(`Project ${projectId} does not exist`)
    const batch = { type: 'batch', commands: projectCommands.map((c) => ({ ...c, world: this.buildWorld() })), meta: step.meta, world: this.buildWorld() } as ProjectCommand
    const projectState = projectActor.getSnapshot().context.state
    if (!projectState) throw notFound(`Project ${projectId} does not exist`)
    const precheck = decideProject(projectState, batch)
    if (!precheck.ok) throw precheck.error
    let instanceState = this.registry.decidedInstance()
    for (const command of instanceCommands) {
      const result = decideInstance(instanceState, command)
      if (!result.ok) throw result.error
      instanceState = result.value.reduce(evolveInstance, instanceState)
    }
    const events = [
      ...(projectCommands.length > 0 ? this.decide(projectActor, batch) : []),
      ...instanceCommands.flatMap((command) => this.decide(this.registry.instance, command)),
      ...this.decide(requestActor, step),
    ]
    const decidedProject = projectActor.getSnapshot().context.state
    const decidedInstance = this.registry.decidedInstance()
    const decidedRequest = requestActor.getSnapshot().context.request!
    return this.commit(withFeatureTags(events, decidedProject), () => {
      if (decidedProject) this.registry.committedProjects.set(projectId, decidedProject)
      this.registry.committedInstance = decidedInstance
      this.registry.committedChangeRequests.set(id, decidedRequest)
    })
  }

  private decide(actor: InstanceActor | ProjectActor | ChangeRequestActor, command: InstanceCommand | ProjectCommand | ChangeRequestCommand): EventDraft[] {
    let decision: Decision | undefined
    const subscription = (actor as InstanceActor).on('*', (emitted) => {
      decision = emitted
    })
    try {
      ;(actor as InstanceActor).send(command as InstanceCommand)
    } finally {
      subscription.unsubscribe()
    }
    if (!decision) throw notFound()
    if (decision.type === 'rejected') throw decision.error
    return decision.events
  }

  private async commit(events: EventDraft[], publish: () => void): Promise<EventRecord[]> {
    if (events.length === 0) return []
    const started = performance.now()
    const appended = this.log.append<EventRecord>(events, indexKeysOf)
    try {
      await appended.committed
    } catch (error) {
      // Memory is ahead of disk now; only a restart from the log is safe.
      this.onFatal(error)
      throw new DomainError('UnknownError', 'The change could not be stored.')
    }
    publish()
    this.registry.lastCommittedId = appended.records[appended.records.length - 1].id
    const commitSeconds = (performance.now() - started) / 1000
    for (const listener of this.listeners) listener(appended.records, commitSeconds)
    return appended.records
  }
}
