import { limits } from './limits.js'
import type { CreateEnvironment, UpdateEnvironment } from '../schemas/environments.js'
import { badData, fail, nameExists, notFound, ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import type { Environment, InstanceState } from './instance-state.js'


export const decideCreateEnvironment = (state: InstanceState, input: CreateEnvironment, meta: CommandMeta): Result<EventDraft[]> => {
  if (state.environments.has(input.name)) return fail(nameExists(`Environment with name ${input.name} already exists`))
  if (state.environments.size >= limits.environments) {
    return fail(badData(`Failed to create environment. You can't create more than the established limit of ${limits.environments}.`))
  }
  const environment: Environment = {
    name: input.name,
    type: input.type,
    enabled: input.enabled,
    sortOrder: input.sortOrder ?? state.environments.size + 1,
    protected: false,
    createdAt: meta.now,
  }
  return ok([draft(meta, 'environment-created', { environment: input.name, data: environment })])
}

export const decideUpdateEnvironment = (state: InstanceState, name: string, input: UpdateEnvironment, meta: CommandMeta): Result<EventDraft[]> => {
  const current = state.environments.get(name)
  if (!current) return fail(notFound(`Could not find environment with name: ${name}`))
  const next: Environment = { ...current, type: input.type ?? current.type, sortOrder: input.sortOrder ?? current.sortOrder }
  if (next.type === current.type && next.sortOrder === current.sortOrder) return ok([])
  return ok([draft(meta, 'environment-updated', { environment: name, data: next, preData: current })])
}

export const decideToggleEnvironment = (state: InstanceState, name: string, enabled: boolean, meta: CommandMeta): Result<EventDraft[]> => {
  const current = state.environments.get(name)
  if (!current) return fail(notFound(`Could not find environment with name: ${name}`))
  if (current.enabled === enabled) return ok([])
  return ok([draft(meta, 'environment-updated', { environment: name, data: { ...current, enabled }, preData: current })])
}

// Unleash refuses to delete the last enabled environment: there would be nowhere left to serve flags.
export const decideDeleteEnvironment = (state: InstanceState, name: string, meta: CommandMeta): Result<EventDraft[]> => {
  const current = state.environments.get(name)
  if (!current) return fail(notFound(`Could not find environment with name: ${name}`))
  const isLastEnabled = current.enabled && ![...state.environments.values()].some((env) => env.enabled && env.name !== name)
  if (isLastEnabled) return fail(badData('You must always have one active environment'))
  return ok([draft(meta, 'environment-deleted', { environment: name, preData: current })])
}
