import type { UpdateFeature } from '../schemas/features.js'
import { DomainError, fail, ok, type Result } from './errors.js'
import type { CommandMeta } from './events.js'
import type { TagWorld } from './feature-tags.js'
import type { ProjectCommand } from './project.js'
import { findFeature } from './features.js'
import type { Feature, ProjectState, Strategy } from './project-state.js'
import type { DistributiveOmit } from './type-utils.js'
import type { ProjectWorld } from './world.js'
import { emptyFeatureEnvironment } from './no-items.js'

export interface RevertRequest {
  // The flag as it was at the chosen event, and that event's id.
  past: Feature
  pastEventId: number
  // A strategy id per environment, for the default strategy that switching on adds to an environment
  // without an active strategy: a past state the ordinary commands cannot reach (removing the last
  // active strategy switches the environment off), so it comes back with that default.
  newStrategyIds: Readonly<Record<string, string>>
  tags: TagWorld
}

interface RevertTarget extends RevertRequest {
  current: Feature
  // Project environments the flag can still be changed in (one removed from the project since stays as it is).
  environments: readonly string[]
  meta: CommandMeta
  world: ProjectWorld
}

// A flag deleted, moved or archived since cannot be brought back by changing it.
export const decideRevert = (state: ProjectState, request: RevertRequest, meta: CommandMeta, world: ProjectWorld): Result<ProjectCommand[]> => {
  const found = findFeature(state, request.past.name, world)
  if (!found.ok) {
    return fail(new DomainError('ConflictError', `Feature flag "${request.past.name}" was deleted or moved out of project "${state.settings.id}" after event ${request.pastEventId}; it cannot be reverted`))
  }
  if (found.value.archived) return fail(new DomainError('ConflictError', `Feature flag "${request.past.name}" is archived; revive it before reverting it`))
  if (request.past.archived) return fail(new DomainError('ConflictError', `Feature flag "${request.past.name}" was archived just after event ${request.pastEventId}; archive it instead`))
  return ok(revertCommands({ ...request, current: found.value, environments: [...state.environments.keys()], meta, world }))
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

const strategyInput = (strategy: Strategy) => ({
  name: strategy.name,
  title: strategy.title,
  disabled: strategy.disabled,
  sortOrder: strategy.sortOrder,
  constraints: strategy.constraints,
  variants: strategy.variants,
  parameters: strategy.parameters,
  segments: strategy.segments,
})

// The ordinary commands that take a flag from its current state to a past one, in an order that never
// passes through a state Unleash would correct on its own: an environment to be switched off is switched
// off first, strategies are added before others are removed (so removing the last active one cannot
// switch the environment off), and an environment is switched on only once its strategies are back.
const revertCommands = (target: RevertTarget): ProjectCommand[] => {
  const { past, current, meta, world } = target
  const feature = current.name
  const commands: ProjectCommand[] = []
  const push = (command: DistributiveOmit<ProjectCommand, 'meta' | 'world'>) => commands.push({ ...command, meta, world } as ProjectCommand)

  if (past.type !== current.type || past.description !== current.description || past.impressionData !== current.impressionData || past.stale !== current.stale) {
    push({ type: 'feature.update', name: feature, input: { type: past.type as UpdateFeature['type'], description: past.description, impressionData: past.impressionData, stale: past.stale } })
  }

  for (const environment of target.environments) {
    const then = past.environments.get(environment) ?? emptyFeatureEnvironment
    const now = current.environments.get(environment)
    if (!now) continue
    if (now.enabled && !then.enabled) push({ type: 'featureEnvironment.toggle', feature, environment, enabled: false, activateDisabledStrategies: false, newStrategyId: '' })
    for (const strategy of then.strategies) {
      const existing = now.strategies.find((s) => s.id === strategy.id)
      if (!existing) push({ type: 'strategy.add', feature, environment, id: strategy.id, input: strategyInput(strategy) })
      else if (!same(strategyInput(existing), strategyInput(strategy))) {
        push({ type: 'strategy.update', feature, environment, id: strategy.id, input: strategyInput(strategy), exact: true })
      }
    }
    for (const strategy of now.strategies) {
      if (!then.strategies.some((s) => s.id === strategy.id)) push({ type: 'strategy.delete', feature, environment, id: strategy.id })
    }
    if (!same(now.variants, then.variants)) push({ type: 'variants.set', feature, environments: [environment], variants: then.variants })
    if (then.enabled) {
      push({ type: 'featureEnvironment.toggle', feature, environment, enabled: true, activateDisabledStrategies: false, newStrategyId: target.newStrategyIds[environment] })
    }
  }

  if (!same(past.dependencies, current.dependencies)) {
    for (const dependency of current.dependencies) {
      if (!past.dependencies.some((d) => same(d, dependency))) push({ type: 'dependency.remove', feature, parent: dependency.feature })
    }
    for (const dependency of past.dependencies) {
      if (!current.dependencies.some((d) => same(d, dependency))) push({ type: 'dependency.add', feature, dependency })
    }
  }

  if (!same(past.tags, current.tags)) push({ type: 'tags.update', feature, update: { set: past.tags }, tags: target.tags })
  return commands
}

