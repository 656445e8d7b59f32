import { DomainError, notFound } from '../domain/errors.js'
import type { EventDraft, EventRecord } from '../domain/events.js'
import { withFeatureTags } from '../domain/event-tags.js'
import type { InstanceCommand } from '../domain/instance.js'
import type { ProjectCommand } from '../domain/project.js'
import type { EventLog } from '../store/log.js'
import type { Decision } from './decision.js'
import type { InstanceActor, ProjectActor, Registry } from './registry.js'

export type CommittedListener = (records: EventRecord[]) => void

export const indexKeysOf = (record: EventRecord): string[] => {
  const keys: string[] = []
  if (record.project) keys.push(`project:${record.project}`)
  if (record.featureName) keys.push(`feature:${record.featureName}`)
  return keys
}

type DistributiveOmit<T, K extends keyof any> = T extends unknown ? Omit<T, K> : never
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

  private decide(actor: InstanceActor | ProjectActor, command: InstanceCommand | ProjectCommand): EventDraft[] {
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
    for (const listener of this.listeners) listener(appended.records)
    return appended.records
  }
}
