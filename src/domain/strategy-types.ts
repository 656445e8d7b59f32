import type { UpsertStrategyType } from '../schemas/strategy-types.js'
import { fail, invalidOperation, nameExists, notFound, ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import type { InstanceState, StrategyType } from './instance-state.js'

const typeFrom = (input: UpsertStrategyType, deprecated: boolean): StrategyType => ({
  name: input.name,
  displayName: input.title ?? null,
  title: input.title ?? null,
  description: input.description ?? null,
  editable: true,
  deprecated,
  builtIn: false,
  parameters: input.parameters,
})

export const decideCreateStrategyType = (state: InstanceState, input: UpsertStrategyType, meta: CommandMeta): Result<EventDraft[]> => {
  if (state.strategyTypes.has(input.name)) return fail(nameExists(`Strategy with name ${input.name} already exists`))
  return ok([draft(meta, 'strategy-created', { data: typeFrom(input, false) })])
}

const findEditable = (state: InstanceState, name: string): Result<StrategyType> => {
  const current = state.strategyTypes.get(name)
  if (!current) return fail(notFound(`Could not find strategy type with name ${name}`))
  if (current.builtIn) return fail(invalidOperation(`The built-in strategy type ${name} cannot be changed`))
  return ok(current)
}

export const decideUpdateStrategyType = (state: InstanceState, name: string, input: UpsertStrategyType, meta: CommandMeta): Result<EventDraft[]> => {
  const current = findEditable(state, name)
  if (!current.ok) return current
  if (input.name !== name) return fail(invalidOperation('The name of a strategy type cannot be changed'))
  // Unleash 8.2 (side by side): a title or description left out is kept; the parameters are replaced.
  const title = input.title === undefined ? current.value.title : input.title
  const description = input.description === undefined ? current.value.description : input.description
  const next = typeFrom({ ...input, title, description }, current.value.deprecated)
  if (JSON.stringify(next) === JSON.stringify(current.value)) return ok([])
  return ok([draft(meta, 'strategy-updated', { data: next, preData: current.value })])
}

export const decideDeleteStrategyType = (state: InstanceState, name: string, inUse: boolean, meta: CommandMeta): Result<EventDraft[]> => {
  const current = findEditable(state, name)
  if (!current.ok) return current
  if (inUse) return fail(invalidOperation(`The strategy type ${name} is used by feature flags and cannot be deleted`))
  return ok([draft(meta, 'strategy-deleted', { preData: current.value })])
}

export const decideDeprecateStrategyType = (state: InstanceState, name: string, deprecated: boolean, meta: CommandMeta): Result<EventDraft[]> => {
  const current = state.strategyTypes.get(name)
  if (!current) return fail(notFound(`Could not find strategy type with name ${name}`))
  if (name === 'default' && deprecated) return fail(invalidOperation('You cannot deprecate the default strategy'))
  if (current.deprecated === deprecated) return ok([])
  return ok([draft(meta, deprecated ? 'strategy-deprecated' : 'strategy-reactivated', { data: { ...current, deprecated } })])
}
