import type { DistributiveOmit } from '../domain/type-utils.js'
import { DomainError, notFound } from '../domain/errors.js'
import { isInternalRecord, type CommandMeta, type EventDraft, type EventRecord } from '../domain/events.js'
import { withFeatureTags } from '../domain/event-tags.js'
import type { ChangeRequestCommand } from '../domain/change-requests.js'
import { decideInstance, evolveInstance, type InstanceCommand } from '../domain/instance.js'
import { decideProject, type ProjectCommand } from '../domain/project.js'
import type { EventLog } from '../store/log.js'
import type { Decision } from './decision.js'
import { applyRecord, restoreWorld, type ReplayedReadModel } from './recovery.js'
import type { SnapshotEntry } from '../store/log.js'
import type { ChangeRequestActor, InstanceActor, ProjectActor, Registry } from './registry.js'

// commitSeconds: from the append to the durable commit (undefined for records committed elsewhere: a replica's).
export type CommittedListener = (records: EventRecord[], commitSeconds?: number) => void

// Records that are not Unleash events are indexed apart, so the event lists never see them.
export const internalIndexKey = 'internal'

export const indexKeysOf = (record: EventRecord): string[] => {
  if (isInternalRecord(record.type)) return [internalIndexKey]
  const keys: string[] = []
  if (record.project) keys.push(`project:${record.project}`)
  if (record.featureName) keys.push(`feature:${record.featureName}`)
  return keys
}

export type ProjectCommandInput = DistributiveOmit<ProjectCommand, 'world'>

// Sends a command to its actor, appends what was decided to the log and resolves once it is durable.
export class Dispatcher {
  private readonly listeners: CommittedListener[] = []
  private refusal: DomainError | undefined

  constructor(
    private readonly log: EventLog,
    private readonly registry: Registry,
    private readonly buildWorld: () => ProjectCommand['world'],
    private readonly onCommitFailed: (error: unknown) => void,
  ) {}

  onCommitted(listener: CommittedListener): void {
    this.listeners.push(listener)
  }

  // A read replica decides nothing: every command is answered with this error.
  refuseWrites(error: DomainError): void {
    this.refusal = error
  }

  // A read replica's records were committed by the writer: they change committed state exactly as
  // recovery replays them, and reach the same listeners as this process's own commits.
  applyCommitted(records: EventRecord[]): void {
    if (records.length === 0) return
    const world = { instance: this.registry.committedInstance, projects: this.registry.committedProjects, changeRequests: this.registry.committedChangeRequests }
    for (const record of records) applyRecord(world, record)
    this.registry.committedInstance = world.instance
    this.registry.lastCommittedId = records[records.length - 1].id
    for (const listener of this.listeners) listener(records)
  }

  // A read replica starting over from the writer's snapshot; false when the set is not whole.
  restoreCommitted(entries: readonly SnapshotEntry[], readModels: readonly ReplayedReadModel[]): boolean {
    const world = restoreWorld(entries, readModels)
    if (!world) return false
    const registry = this.registry
    registry.committedInstance = world.instance
    registry.committedProjects.clear()
    for (const [id, state] of world.projects) registry.committedProjects.set(id, state)
    registry.committedChangeRequests.clear()
    for (const [id, state] of world.changeRequests) registry.committedChangeRequests.set(id, state)
    registry.lastCommittedId = world.lastId
    return true
  }

  async toInstance(command: InstanceCommand): Promise<EventRecord[]> {
    if (this.refusal) throw this.refusal
    const actor = this.registry.instance
    const events = this.decide(actor, command)
    const decided = actor.getSnapshot().context.state
    return this.commit(events, () => {
      this.registry.committedInstance = decided
    })
  }

  async toProject(projectId: string, command: ProjectCommandInput): Promise<EventRecord[]> {
    if (this.refusal) throw this.refusal
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
    if (this.refusal) throw this.refusal
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

  // Commands to several projects (each at most once) and to the instance, all checked against the
  // decided states before any actor is sent anything, then written in ONE log append: a refusal
  // leaves every actor as it was. The projects' events come first, unless `instanceFirst` (a tag the
  // instance creates before a flag carries it).
  async together(
    steps: { projectId: string; command: ProjectCommandInput }[],
    instanceCommands: InstanceCommand[],
    { instanceFirst = false }: { instanceFirst?: boolean } = {},
  ): Promise<EventRecord[]> {
    if (this.refusal) throw this.refusal
    const planned = steps.map(({ projectId, command }) => {
      const actor = this.registry.project(projectId)
      const state = actor?.getSnapshot().context.state
      if (!actor || !state) throw notFound(`Project ${projectId} does not exist`)
      return { projectId, actor, state, command: { ...command, world: this.buildWorld() } as ProjectCommand }
    })
    for (const { state, command } of planned) {
      const result = decideProject(state, command)
      if (!result.ok) throw result.error
    }
    let instanceState = this.registry.decidedInstance()
    for (const command of instanceCommands) {
      const result = decideInstance(instanceState, command)
      if (!result.ok) throw result.error
      instanceState = result.value.reduce(evolveInstance, instanceState)
    }
    const projectEvents = planned.flatMap(({ actor, command }) => withFeatureTags(this.decide(actor, command), actor.getSnapshot().context.state))
    const instanceEvents = instanceCommands.flatMap((command) => this.decide(this.registry.instance, command))
    const events = instanceFirst ? [...instanceEvents, ...projectEvents] : [...projectEvents, ...instanceEvents]
    const decided = planned.map(({ projectId, actor }) => [projectId, actor.getSnapshot().context.state] as const)
    const decidedInstance = this.registry.decidedInstance()
    return this.commit(events, () => {
      for (const [projectId, state] of decided) if (state) this.registry.committedProjects.set(projectId, state)
      this.registry.committedInstance = decidedInstance
    })
  }

  // Moving a flag: the source's record, then the target's (SEMANTICS 11.4), in one append.
  async moveFeature(sourceId: string, targetId: string, featureName: string, meta: CommandMeta): Promise<EventRecord[]> {
    if (this.refusal) throw this.refusal
    const decidedState = (id: string) => {
      const state = this.registry.project(id)?.getSnapshot().context.state
      if (!state) throw notFound(`Project ${id} does not exist`)
      return state
    }
    const source = decidedState(sourceId)
    const target = decidedState(targetId)
    const steps: { projectId: string; command: ProjectCommandInput }[] = [{ projectId: sourceId, command: { type: 'feature.moveOut', feature: featureName, target, meta } }]
    const feature = source.features.get(featureName)
    if (feature && sourceId !== targetId) steps.push({ projectId: targetId, command: { type: 'feature.moveIn', feature, meta } })
    return this.together(steps, [])
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
    if (this.refusal) throw this.refusal
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
      // The log dropped this append and every one queued behind it: decided state goes back to what
      // is durable, reads go on, and the caller hears that nothing changed.
      this.registry.resetDecidedToCommitted()
      this.onCommitFailed(error)
      throw new DomainError('ServiceUnavailableError', 'The change could not be stored (is the disk full?); nothing was changed. Try again later.')
    }
    publish()
    this.registry.lastCommittedId = appended.records[appended.records.length - 1].id
    const commitSeconds = (performance.now() - started) / 1000
    for (const listener of this.listeners) listener(appended.records, commitSeconds)
    return appended.records
  }
}
