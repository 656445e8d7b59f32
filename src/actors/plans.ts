import type { ChangeRequest } from '../domain/change-request-state.js'
import { applyingTo, decideChangeRequest, evolveChangeRequest, type ChangeRequestCommand } from '../domain/change-requests.js'
import { DomainError, fail, notFound, ok, type Result } from '../domain/errors.js'
import { withFeatureTags } from '../domain/event-tags.js'
import type { CommandMeta, EventDraft } from '../domain/events.js'
import { decideInstance, evolveInstance, type InstanceCommand } from '../domain/instance.js'
import type { InstanceState } from '../domain/instance-state.js'
import type { ProjectCommand } from '../domain/project.js'
import type { ProjectState } from '../domain/project-state.js'
import { decideProjectCommand, type ProjectCommandInput, type ProjectEnv } from './project.machine.js'

// Commands that span actors: each has one owner that holds the others while it decides and commits
// (the instance for `together` and moves, the change request for its application), and all their
// events go in one append. These are the pure decisions; the machines do the holding.

export type ProjectStep = { projectId: string; command: ProjectCommandInput }

export type InstancePlan =
  | { kind: 'together'; steps: ProjectStep[]; instanceCommands: InstanceCommand[]; instanceFirst?: boolean }
  | { kind: 'move'; sourceId: string; targetId: string; featureName: string; meta: CommandMeta }

export interface ApplyPlan {
  step: ChangeRequestCommand
  projectId: string
  projectCommands: ProjectCommandInput[]
  instanceCommands: InstanceCommand[]
}

// The actors a plan holds, by registry key, in the one global order every coordinator acquires in:
// the instance first, then projects by id. Change requests are never held (each coordinates only
// itself), so no coordinator can wait for one that waits for it.
export const instanceKey = 'instance'
export const projectKey = (id: string) => `project:${id}`
export const inGlobalOrder = (keys: Iterable<string>): string[] =>
  [...new Set(keys)].sort((a, b) => (a === instanceKey ? -1 : b === instanceKey ? 1 : a < b ? -1 : a > b ? 1 : 0))

export const projectsHeldBy = (plan: InstancePlan): string[] =>
  inGlobalOrder(plan.kind === 'move' ? [projectKey(plan.sourceId), projectKey(plan.targetId)] : plan.steps.map((s) => projectKey(s.projectId)))

export const heldForApply = (plan: ApplyPlan): string[] => inGlobalOrder([...(plan.instanceCommands.length > 0 ? [instanceKey] : []), projectKey(plan.projectId)])

export interface Decided {
  events: EventDraft[]
  projects: Map<string, ProjectState | undefined>
  instance: InstanceState
}

const decideInstanceCommands = (env: ProjectEnv, state: InstanceState, commands: readonly InstanceCommand[]): Result<{ events: EventDraft[]; state: InstanceState }> => {
  const events: EventDraft[] = []
  for (const command of commands) {
    const result = decideInstance(state, command, env.instanceWorld())
    if (!result.ok) return result
    events.push(...result.value)
    state = result.value.reduce(evolveInstance, state)
  }
  return ok({ events, state })
}

// A plan computed before it was queued could miss a project that took up an environment the plan
// deletes while it waited: no project may be left with an environment that no longer exists.
const environmentsLeftBehind = (before: InstanceState, after: InstanceState, projects: Iterable<[string, ProjectState]>): DomainError | undefined => {
  const removed = [...before.environments.keys()].filter((name) => !after.environments.has(name))
  if (removed.length === 0) return undefined
  for (const [id, project] of projects) {
    const kept = removed.find((name) => project.environments.has(name))
    if (kept) return new DomainError('ConflictError', `Project ${id} started using environment ${kept} while it was being deleted; nothing was changed. Try again.`)
  }
  return undefined
}

// Commands to several projects (each at most once) and to the instance, decided against the held
// states: a refusal anywhere refuses the whole plan.
const decideTogether = (
  env: ProjectEnv,
  instance: InstanceState,
  held: ReadonlyMap<string, ProjectState | undefined>,
  { steps, instanceCommands, instanceFirst = false }: Omit<Extract<InstancePlan, { kind: 'together' }>, 'kind'>,
  others: () => Iterable<[string, ProjectState]>,
): Result<Decided> => {
  for (const { projectId } of steps) if (!held.get(projectId)) return fail(notFound(`Project ${projectId} does not exist`))
  const projects = new Map<string, ProjectState | undefined>()
  const events: EventDraft[] = []
  for (const { projectId, command } of steps) {
    const result = decideProjectCommand({ id: projectId, env }, projects.has(projectId) ? projects.get(projectId) : held.get(projectId), command)
    if (!result.ok) return result
    events.push(...result.value.events)
    projects.set(projectId, result.value.state)
  }
  const decidedInstance = decideInstanceCommands(env, instance, instanceCommands)
  if (!decidedInstance.ok) return decidedInstance
  const projectsAfter = [...held].map(([id, state]) => [id, projects.has(id) ? projects.get(id) : state] as [string, ProjectState | undefined])
  const all = [...projectsAfter.filter((entry): entry is [string, ProjectState] => entry[1] !== undefined), ...others()]
  const leftBehind = environmentsLeftBehind(instance, decidedInstance.value.state, all)
  if (leftBehind) return fail(leftBehind)
  const instanceEvents = decidedInstance.value.events
  return ok({ events: instanceFirst ? [...instanceEvents, ...events] : [...events, ...instanceEvents], projects, instance: decidedInstance.value.state })
}

// `others` gives the projects the plan does not hold, as the world sees them.
export const decideInstancePlan = (
  env: ProjectEnv,
  instance: InstanceState,
  held: ReadonlyMap<string, ProjectState | undefined>,
  plan: InstancePlan,
  others: () => Iterable<[string, ProjectState]>,
): Result<Decided> => {
  if (plan.kind === 'together') return decideTogether(env, instance, held, plan, others)
  // Moving a flag: the source's record, then the target's (SEMANTICS 11.4).
  const source = held.get(plan.sourceId)
  const target = held.get(plan.targetId)
  if (!source) return fail(notFound(`Project ${plan.sourceId} does not exist`))
  if (!target) return fail(notFound(`Project ${plan.targetId} does not exist`))
  const steps: ProjectStep[] = [{ projectId: plan.sourceId, command: { type: 'feature.moveOut', feature: plan.featureName, target, meta: plan.meta } }]
  const feature = source.features.get(plan.featureName)
  if (feature && plan.sourceId !== plan.targetId) steps.push({ projectId: plan.targetId, command: { type: 'feature.moveIn', feature, meta: plan.meta } })
  return decideTogether(env, instance, held, { steps, instanceCommands: [] }, others)
}

// Applying a change request: the project's changes, any segment changes and the request's own step,
// in that order, in one append.
export const decideApply = (
  env: ProjectEnv,
  request: ChangeRequest | undefined,
  project: ProjectState | undefined,
  instance: InstanceState,
  plan: ApplyPlan,
): Result<Decided & { request: ChangeRequest | undefined }> => {
  if (!project) return fail(notFound(`Project ${plan.projectId} does not exist`))
  const ownWorld = () => env.world(plan.projectId, project)
  const batch = {
    type: 'batch',
    commands: plan.projectCommands.map((command) => ({ ...command, world: ownWorld() })),
    meta: plan.step.meta,
  } as DistributiveBatch
  const decidedProject = decideProjectCommand({ id: plan.projectId, env }, project, batch)
  if (!decidedProject.ok) return decidedProject
  const decidedInstance = decideInstanceCommands(env, instance, plan.instanceCommands)
  if (!decidedInstance.ok) return decidedInstance
  const step = decideChangeRequest(request, applyingTo(plan.step, { project, instance }))
  if (!step.ok) return step
  const projectState = plan.projectCommands.length > 0 ? decidedProject.value.state : project
  const events = [...(plan.projectCommands.length > 0 ? decidedProject.value.events : []), ...decidedInstance.value.events, ...step.value]
  return ok({
    events: withFeatureTags(events, projectState),
    projects: new Map([[plan.projectId, projectState]]),
    instance: decidedInstance.value.state,
    request: step.value.reduce(evolveChangeRequest, request),
  })
}

type DistributiveBatch = ProjectCommandInput & Pick<Extract<ProjectCommand, { type: 'batch' }>, 'commands'>
