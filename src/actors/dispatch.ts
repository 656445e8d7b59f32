import type { ChangeRequestCommand } from '../domain/change-requests.js'
import type { DomainError } from '../domain/errors.js'
import { isInternalRecord, type CommandMeta, type EventRecord } from '../domain/events.js'
import type { InstanceCommand } from '../domain/instance.js'
import type { SnapshotEntry } from '../store/log.js'
import type { CommitStep } from './commit-pipeline.js'
import type { ProjectStep } from './plans.js'
import type { ProjectCommandInput } from './project.machine.js'
import { restoreWorld, type ReplayedReadModel } from './recovery.js'
import type { Registry } from './registry.js'

export type { ProjectCommandInput } from './project.machine.js'

// commitSeconds: from the append to the durable commit (undefined for records committed elsewhere: a replica's).
export type CommittedListener = CommitStep

// Records that are not Unleash events are indexed apart, so the event lists never see them.
export const internalIndexKey = 'internal'

export const indexKeysOf = (record: EventRecord): string[] => {
  if (isInternalRecord(record.type)) return [internalIndexKey]
  const keys: string[] = []
  if (record.project) keys.push(`project:${record.project}`)
  if (record.featureName) keys.push(`feature:${record.featureName}`)
  return keys
}

// The command port the routes use: each method sends one command to the actor that owns it and
// resolves with its records once they are durable (and through the commit pipeline), or rejects
// with the actor's DomainError. The actors decide, append and commit; this only carries.
export class Dispatcher {
  private refusal: DomainError | undefined

  constructor(private readonly registry: Registry) {}

  // What else hears every commit (metrics, tests): the commit pipeline's last step.
  onCommitted(listener: CommittedListener): void {
    this.registry.listen(listener)
  }

  // A read replica decides nothing: every command is answered with this error.
  refuseWrites(error: DomainError): void {
    this.refusal = error
  }

  // A read replica's records were committed by the writer: they change committed state exactly as
  // recovery replays them, and go through the same commit pipeline as this process's own commits.
  applyCommitted(records: EventRecord[]): void {
    if (records.length > 0) this.registry.applyCommitted(records)
  }

  // A read replica starting over from the writer's snapshot; false when the set is not whole.
  restoreCommitted(entries: readonly SnapshotEntry[], readModels: readonly ReplayedReadModel[]): boolean {
    const world = restoreWorld(entries, readModels)
    if (!world) return false
    this.registry.restore(world)
    return true
  }

  // Ids are handed out over every request actor, so two new requests created in one tick never share one.
  nextChangeRequestId(): number {
    return this.registry.nextChangeRequestId()
  }

  async toInstance(command: InstanceCommand): Promise<EventRecord[]> {
    if (this.refusal) throw this.refusal
    return this.registry.sendToInstance(command)
  }

  async toProject(projectId: string, command: ProjectCommandInput): Promise<EventRecord[]> {
    if (this.refusal) throw this.refusal
    return this.registry.sendToProject(projectId, command)
  }

  async toChangeRequest(id: number, command: ChangeRequestCommand): Promise<EventRecord[]> {
    if (this.refusal) throw this.refusal
    return this.registry.sendToChangeRequest(id, command)
  }

  // Commands to several projects (each at most once) and to the instance, all or nothing, in one
  // append: the instance actor coordinates (plans.ts). The projects' events come first, unless
  // `instanceFirst` (a tag the instance creates before a flag carries it).
  async together(steps: ProjectStep[], instanceCommands: InstanceCommand[], { instanceFirst = false }: { instanceFirst?: boolean } = {}): Promise<EventRecord[]> {
    if (this.refusal) throw this.refusal
    return this.registry.coordinate({ kind: 'together', steps, instanceCommands, instanceFirst })
  }

  // Moving a flag: the source's record, then the target's (SEMANTICS 11.4), in one append; the
  // instance actor coordinates.
  async moveFeature(sourceId: string, targetId: string, featureName: string, meta: CommandMeta): Promise<EventRecord[]> {
    if (this.refusal) throw this.refusal
    return this.registry.coordinate({ kind: 'move', sourceId, targetId, featureName, meta })
  }

  // Applying a change request: its project's changes, any segment changes and the request's own
  // step in ONE append; the request's actor coordinates.
  async applyChangeRequest(
    id: number,
    step: ChangeRequestCommand,
    projectId: string,
    projectCommands: ProjectCommandInput[],
    instanceCommands: InstanceCommand[],
  ): Promise<EventRecord[]> {
    if (this.refusal) throw this.refusal
    return this.registry.apply(id, { step, projectId, projectCommands, instanceCommands })
  }
}
