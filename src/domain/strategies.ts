import { limits } from './limits.js'
import type { Constraint, CreateFeatureStrategy } from '../schemas/shared.js'
import type { UpdateFeatureStrategy } from '../schemas/features.js'
import { savedConstraint, validateConstraint } from './constraints.js'
import { DomainError, badData, fail, forbidden, notFound, ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import { archivedFeature, featureNotInProject, findActiveFeature } from './features.js'
import type { Feature, FeatureEnvironment, ProjectState, Strategy } from './project-state.js'
import { normaliseVariants } from './variants.js'
import type { ProjectWorld, WithMeta } from './world.js'
import { orNoItems } from './no-items.js'

type ToggleEnvironment = { type: 'featureEnvironment.toggle'; feature: string; environment: string; enabled: boolean; activateDisabledStrategies: boolean; newStrategyId: string }
type AddStrategy = { type: 'strategy.add'; feature: string; environment: string; input: CreateFeatureStrategy; id: string }
type UpdateStrategy = { type: 'strategy.update'; feature: string; environment: string; id: string; input: UpdateFeatureStrategy; exact?: boolean }
type DeleteStrategy = { type: 'strategy.delete'; feature: string; environment: string; id: string }
type ReorderStrategies = { type: 'strategy.reorder'; feature: string; environment: string; order: { id: string; sortOrder: number }[] }

// A flag's strategies in an environment, and the environment switched on or off.
export type StrategyCommand = ToggleEnvironment | AddStrategy | UpdateStrategy | DeleteStrategy | ReorderStrategies


const exceedsLimit = (resource: string, limit: number) =>
  new DomainError('ExceedsLimitError', `Failed to create ${resource}. You can't create more than the established limit of ${limit}.`)

// Unleash (SEMANTICS 2.4): checked only when the strategy grows, so one saved under other limits stays editable.
const checkConstraintLimits = (updated: Constraint[], existing: readonly Constraint[]): DomainError | undefined => {
  if (updated.length > limits.constraints && updated.length > existing.length) return exceedsLimit('constraints', limits.constraints)
  const isSameLength = updated.length === existing.length
  const over = updated.find((constraint, i) => {
    const count = constraint.values?.length ?? 0
    return count > limits.constraintValues && !(isSameLength && (existing[i]?.values?.length ?? 0) >= count)
  })
  return over ? exceedsLimit(`constraint values for ${over.contextName}`, limits.constraintValues) : undefined
}

const stringifyParameter = (value: unknown): string => (value === null || value === undefined ? '' : String(value))

export interface StrategyTarget {
  feature: Feature
  environment: string
  featureEnvironment: FeatureEnvironment
}

export const findTarget = (state: ProjectState, featureName: string, environment: string, world: ProjectWorld): Result<StrategyTarget> => {
  const found = findActiveFeature(state, featureName, world)
  if (!found.ok) return found
  if (!state.environments.has(environment)) return fail(badData('You have not added the current environment to the project'))
  const featureEnvironment = found.value.environments.get(environment)
  if (!featureEnvironment) return fail(notFound(`Could not find environment ${environment} for feature: ${featureName}`))
  return ok({ feature: found.value, environment, featureEnvironment })
}

// A strategy to be saved on a flag: what was asked for, and the constraints it had (none when new).
interface StrategyToSave {
  featureName: string
  input: CreateFeatureStrategy
  id: string
  sortOrder: number
  existingConstraints?: readonly Constraint[]
}

// The server's defaults when saving (SEMANTICS 1.3): every parameter a string; a flexibleRollout gets
// rollout 100, the project's default stickiness and the flag name as groupId when those are empty.
export const prepareStrategy = (
  state: ProjectState,
  { featureName, input, id, sortOrder, existingConstraints = [] }: StrategyToSave,
  world: ProjectWorld,
): Result<Strategy> => {
  if (!world.strategyTypeExists(input.name)) return fail(badData(`Could not find strategy type with name ${input.name}`))
  const constraints = input.constraints ?? []
  const limitError = checkConstraintLimits(constraints, existingConstraints)
  if (limitError) return fail(limitError)
  for (const constraint of constraints) {
    const error = validateConstraint(constraint, world)
    if (error) return fail(error)
  }
  const segments = [...new Set(input.segments ?? [])].sort((a, b) => a - b)
  for (const segmentId of segments) {
    const segment = world.segment(segmentId)
    if (!segment) return fail(badData(`Segment with id ${segmentId} does not exist`))
    if (segment.project && segment.project !== state.settings.id) {
      return fail(badData(`The segments ${segment.name} with id ${segment.id} does not belong to project "${state.settings.id}".`))
    }
  }
  const variants = normaliseVariants(input.variants ?? [])
  if (!variants.ok) return variants
  const parameters: Record<string, string> = {}
  for (const [key, value] of Object.entries(input.parameters ?? {})) parameters[key] = stringifyParameter(value)
  if (input.name === 'flexibleRollout') {
    if (!parameters.rollout) parameters.rollout = '100'
    if (!parameters.stickiness) parameters.stickiness = state.settings.defaultStickiness
    if (!parameters.groupId) parameters.groupId = featureName
  }
  return ok({
    id,
    name: input.name,
    title: input.title ?? null,
    disabled: input.disabled ?? false,
    sortOrder,
    constraints: orNoItems(constraints.map(savedConstraint)),
    parameters,
    variants: orNoItems(variants.value),
    segments: orNoItems(segments),
  })
}

const nextSortOrder = (strategies: Strategy[]) => (strategies.length === 0 ? 0 : Math.max(...strategies.map((s) => s.sortOrder)) + 1)

const keysOf = (state: ProjectState, target: StrategyTarget) => ({
  project: state.settings.id,
  environment: target.environment,
  featureName: target.feature.name,
})

// A strategy as an event carries it (and the flag keeps it), as a literal: `{ ...strategy }` of a
// nine-field object gives a copy with four fields in the object and five in a property array beside it.
export const strategyData = (s: Strategy): Strategy => ({
  id: s.id,
  name: s.name,
  title: s.title,
  disabled: s.disabled,
  sortOrder: s.sortOrder,
  constraints: s.constraints,
  parameters: s.parameters,
  variants: s.variants,
  segments: s.segments,
})

export const decideAddStrategy = (state: ProjectState, command: WithMeta<AddStrategy>): Result<EventDraft[]> => {
  const { feature: featureName, environment, input, id, world, meta } = command
  const target = findTarget(state, featureName, environment, world)
  if (!target.ok) return target
  const strategies = target.value.featureEnvironment.strategies
  if (strategies.length >= limits.featureEnvironmentStrategies) {
    return fail(new DomainError('ExceedsLimitError', `Failed to create strategy. You can't create more than the established limit of ${limits.featureEnvironmentStrategies}.`))
  }
  const prepared = prepareStrategy(state, { featureName, input, id, sortOrder: input.sortOrder ?? nextSortOrder(strategies) }, world)
  if (!prepared.ok) return prepared
  return ok([draft(meta, 'feature-strategy-add', { ...keysOf(state, target.value), data: strategyData(prepared.value) })])
}

const findStrategy = (state: ProjectState, target: StrategyTarget, strategyId: string): Result<Strategy> => {
  const strategy = target.featureEnvironment.strategies.find((s) => s.id === strategyId)
  if (strategy) return ok(strategy)
  for (const feature of state.features.values()) {
    for (const env of feature.environments.values()) {
      if (env.strategies.some((s) => s.id === strategyId)) return fail(forbidden('You can not change the featureName for an activation strategy.'))
    }
  }
  return fail(notFound(`Could not find strategy with id ${strategyId}`))
}

// An environment with no active strategy left is switched off (SEMANTICS 11.3).
const switchOffWhenEmpty = (state: ProjectState, target: StrategyTarget, remaining: Strategy[], meta: CommandMeta): EventDraft[] =>
  target.featureEnvironment.enabled && !remaining.some((s) => !s.disabled)
    ? [draft(meta, 'feature-environment-disabled', keysOf(state, target))]
    : []

// A PUT replaces a strategy as Unleash 8.2 does (side by side): its constraints, variants and parameters
// become what the body says (none when left out, then the defaults of prepareStrategy); its name, title,
// disabled flag and segments are kept when left out or null. `exact` (a revert) writes a null title too.
export const decideUpdateStrategy = (state: ProjectState, command: WithMeta<UpdateStrategy>): Result<EventDraft[]> => {
  const { feature: featureName, environment, id: strategyId, input, exact = false, world, meta } = command
  const target = findTarget(state, featureName, environment, world)
  if (!target.ok) return target
  const current = findStrategy(state, target.value, strategyId)
  if (!current.ok) return current
  const replaced: CreateFeatureStrategy = {
    name: input.name ?? current.value.name,
    title: exact && input.title === null ? null : (input.title ?? current.value.title),
    disabled: input.disabled ?? current.value.disabled,
    constraints: input.constraints ?? [],
    variants: input.variants ?? [],
    parameters: input.parameters ?? {},
    segments: input.segments ?? current.value.segments,
  }
  const toSave = { featureName, input: replaced, id: strategyId, sortOrder: input.sortOrder ?? current.value.sortOrder, existingConstraints: current.value.constraints }
  const prepared = prepareStrategy(state, toSave, world)
  if (!prepared.ok) return prepared
  if (JSON.stringify(prepared.value) === JSON.stringify(current.value)) return ok([])
  const remaining = target.value.featureEnvironment.strategies.map((s) => (s.id === strategyId ? prepared.value : s))
  return ok([
    draft(meta, 'feature-strategy-update', { ...keysOf(state, target.value), data: strategyData(prepared.value), preData: strategyData(current.value) }),
    ...switchOffWhenEmpty(state, target.value, remaining, meta),
  ])
}

export const decideDeleteStrategy = (state: ProjectState, command: WithMeta<DeleteStrategy>): Result<EventDraft[]> => {
  const { feature: featureName, environment, id: strategyId, world, meta } = command
  const target = findTarget(state, featureName, environment, world)
  if (!target.ok) return target
  // Unleash 8.2 (side by side): an unknown id is a 404, one of another flag a 403.
  const current = findStrategy(state, target.value, strategyId)
  if (!current.ok) return current
  const remaining = target.value.featureEnvironment.strategies.filter((s) => s.id !== strategyId)
  return ok([
    ...switchOffWhenEmpty(state, target.value, remaining, meta),
    draft(meta, 'feature-strategy-remove', { ...keysOf(state, target.value), preData: strategyData(current.value) }),
  ])
}

export const decideReorderStrategies = (state: ProjectState, command: WithMeta<ReorderStrategies>): Result<EventDraft[]> => {
  const { feature: featureName, environment, order, world, meta } = command
  const target = findTarget(state, featureName, environment, world)
  if (!target.ok) return target
  const strategies = target.value.featureEnvironment.strategies
  const known = new Set(strategies.map((s) => s.id))
  const foreign = order.find((o) => !known.has(o.id))
  if (foreign) return fail(badData(`Strategy ${foreign.id} does not belong to feature ${featureName} in environment ${environment}`))
  const sortOrders: Record<string, number> = {}
  for (const strategy of strategies) sortOrders[strategy.id] = strategy.sortOrder
  for (const { id, sortOrder } of order) sortOrders[id] = sortOrder
  const before = orderedStrategies(strategies).map((s) => s.id)
  const after = orderedStrategies(strategies.map((s) => ({ ...s, sortOrder: sortOrders[s.id] }))).map((s) => s.id)
  if (strategies.every((s) => s.sortOrder === sortOrders[s.id])) return ok([])
  return ok([
    draft(meta, 'strategy-order-changed', {
      ...keysOf(state, target.value),
      data: { strategyIds: after, sortOrders },
      preData: { strategyIds: before },
    }),
  ])
}

// Unleash orders strategies by sortOrder, ties by id.
export const orderedStrategies = <S extends { id: string; sortOrder: number }>(strategies: readonly S[]): S[] =>
  [...strategies].sort((a, b) => a.sortOrder - b.sortOrder || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

// What enabling a flag without strategies adds in an environment of the project, before the flag's
// name is filled in as groupId: the configured default, or flexibleRollout at 100 %.
export const projectDefaultStrategy = (state: ProjectState, environment: string): CreateFeatureStrategy =>
  state.environments.get(environment)?.defaultStrategy ?? {
    name: 'flexibleRollout',
    constraints: [],
    parameters: { rollout: '100', stickiness: state.settings.defaultStickiness, groupId: '' },
  }

export const defaultStrategyFor = (state: ProjectState, featureName: string, environment: string): CreateFeatureStrategy => {
  const strategy = projectDefaultStrategy(state, environment)
  const parameters = { ...strategy.parameters }
  if (!parameters.groupId) parameters.groupId = featureName
  return { ...strategy, parameters }
}

export const decideToggleEnvironment = (state: ProjectState, command: WithMeta<ToggleEnvironment>): Result<EventDraft[]> => {
  const { feature: featureName, environment, enabled, world, meta } = command
  const feature = state.features.get(featureName)
  if (!feature) return fail(featureNotInProject(featureName, state.settings.id, world))
  const featureEnvironment = feature.environments.get(environment)
  if (!featureEnvironment) return fail(notFound(`Could not find environment ${environment} for feature: ${featureName}`))
  if (feature.archived) return fail(archivedFeature())
  const target: StrategyTarget = { feature, environment, featureEnvironment }
  const keys = keysOf(state, target)
  if (!enabled) return ok(featureEnvironment.enabled ? [draft(meta, 'feature-environment-disabled', keys)] : [])
  const events: EventDraft[] = []
  const strategies = featureEnvironment.strategies
  const hasActive = strategies.some((s) => !s.disabled)
  if (!hasActive && command.activateDisabledStrategies && strategies.length > 0) {
    for (const strategy of strategies) {
      events.push(draft(meta, 'feature-strategy-update', { ...keys, data: strategyData({ ...strategy, disabled: false }), preData: strategyData(strategy) }))
    }
  } else if (!hasActive) {
    const toSave = { featureName, input: defaultStrategyFor(state, featureName, environment), id: command.newStrategyId, sortOrder: nextSortOrder(strategies) }
    const prepared = prepareStrategy(state, toSave, world)
    if (!prepared.ok) return prepared
    events.push(draft(meta, 'feature-strategy-add', { ...keys, data: strategyData(prepared.value) }))
  }
  if (!featureEnvironment.enabled) events.push(draft(meta, 'feature-environment-enabled', keys))
  return ok(events)
}
