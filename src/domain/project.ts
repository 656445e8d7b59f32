import { decideAddDependency, decideRemoveDependency, type DependencyCommand } from './dependencies.js'
import { decideRevert, type RevertRequest } from './feature-revert.js'
import { decideMoveIn, decideMoveOut, evolveFeatureMove, type MoveCommand } from './feature-move.js'
import { decideAccess, emptyAccess, evolveAccess, type AccessCommand } from './project-access.js'
import { decideSetEnvironmentVariants, decideSetLegacyVariants, type VariantsCommand } from './feature-variants.js'
import { fail, notFound, ok, type Result } from './errors.js'
import { checkChangeRequestRequirement, decideChangeRequestConfig, type ChangeRequestConfigCommand } from './change-request-rules.js'
import type { EventDraft } from './events.js'
import {
  decideArchiveFeatures,
  decideCreateFeature,
  decideDeleteFeatures,
  decidePatchFeature,
  decideReplaceFeature,
  decideReviveFeatures,
  decideUpdateFeature,
  type FeatureCommand,
} from './features.js'
import { SmallMap, updateEntry, withEntry, withoutEntry } from './immutable.js'
import { carryFlagFacts } from './flag-facts.js'
import { initialLifecycle, updateFeatureIn, type Dependency, type Feature, type FeatureEnvironment, type ProjectEnvironment, type ProjectState, type Strategy } from './project-state.js'
import {
  decideAddProjectEnvironment,
  decideCreateProject,
  decideDeleteProject,
  decideDropDeletedEnvironment,
  decideRemoveProjectEnvironment,
  decideSetDefaultStrategy,
  decideUpdateProject,
  type ProjectSetupCommand,
} from './projects.js'
import {
  decideAddStrategy,
  decideDeleteStrategy,
  decideReorderStrategies,
  decideToggleEnvironment,
  decideUpdateStrategy,
  type StrategyCommand,
} from './strategies.js'
import type { WithMeta } from './world.js'
import { decideCuration, evolveCuration, type CurationCommand } from './project-curation.js'
import { decideImport } from './feature-import.js'
import { emptyFeatureEnvironment, noItems, orNoItems } from './no-items.js'

export type ProjectCommand = WithMeta<
  | ProjectSetupCommand
  | FeatureCommand
  | StrategyCommand
  | VariantsCommand
  | MoveCommand
  | DependencyCommand
  | AccessCommand
  | CurationCommand
  | ChangeRequestConfigCommand
  | { type: 'batch'; commands: ProjectCommand[] }
  | ({ type: 'feature.revert' } & RevertRequest)
>

export type ProjectCommandType = ProjectCommand['type']

export const decideProject = (state: ProjectState, command: ProjectCommand): Result<EventDraft[]> => {
  const decided = decideAndEvolveProject(state, command)
  return decided.ok ? ok(decided.value.events) : decided
}

// A decision and the state its events lead to (evolveProject over them). A batch, a revert and an
// import evolve the state as they decide, each command against the one before it: their state is
// taken as it is, not made again from their events (an import of 1,000 realistic flags is about 3,700 events).
export const decideAndEvolveProject = (state: ProjectState, command: ProjectCommand): Result<{ events: EventDraft[]; state: ProjectState | undefined }> => {
  const blocked = checkChangeRequestRequirement(state, command as Parameters<typeof checkChangeRequestRequirement>[1])
  if (blocked) return fail(blocked)
  switch (command.type) {
    case 'batch':
      return decideBatch(state, command.commands)
    case 'feature.revert': {
      const commands = decideRevert(state, command, command.meta, command.world)
      return commands.ok ? decideBatch(state, commands.value) : commands
    }
    case 'features.import':
      return decideImport(state, command, evolveProject)
  }
  const events = decideOne(state, command)
  return events.ok ? ok({ events: events.value, state: events.value.reduce(evolveProject, state) }) : events
}

type SingleCommand = Exclude<ProjectCommand, { type: 'batch' | 'feature.revert' | 'features.import' }>

const decideOne = (state: ProjectState, command: SingleCommand): Result<EventDraft[]> => {
  const { meta, world } = command
  switch (command.type) {
    case 'changeRequestConfig.set':
      return decideChangeRequestConfig(state, command)
    case 'project.create':
      return decideCreateProject(state, command)
    case 'project.update':
      return decideUpdateProject(state, command.input, meta)
    case 'project.delete':
      return decideDeleteProject(state, meta)
    case 'projectEnvironment.add':
      return decideAddProjectEnvironment(state, command)
    case 'projectEnvironment.remove':
      return decideRemoveProjectEnvironment(state, command.environment, meta)
    case 'projectEnvironment.dropDeleted':
      return decideDropDeletedEnvironment(state, command.environment, meta)
    case 'defaultStrategy.set':
      return decideSetDefaultStrategy(state, command.environment, command.strategy, meta)
    case 'feature.create':
      return decideCreateFeature(state, command.input, world, meta)
    case 'feature.update':
      return decideUpdateFeature(state, command)
    case 'feature.replace':
      return decideReplaceFeature(state, command)
    case 'feature.patch':
      return decidePatchFeature(state, command)
    case 'feature.archive':
      return decideArchiveFeatures(state, command.names, world, meta)
    case 'feature.revive':
      return decideReviveFeatures(state, command.names, world, meta)
    case 'feature.delete':
      return decideDeleteFeatures(state, command.names, world, meta)
    case 'featureEnvironment.toggle':
      return decideToggleEnvironment(state, command)
    case 'strategy.add':
      return decideAddStrategy(state, command)
    case 'strategy.update':
      return decideUpdateStrategy(state, command)
    case 'strategy.delete':
      return decideDeleteStrategy(state, command)
    case 'strategy.reorder':
      return decideReorderStrategies(state, command)
    case 'variants.set':
      return decideSetEnvironmentVariants(state, command)
    case 'feature.moveOut':
      return decideMoveOut(state, command)
    case 'feature.moveIn':
      return decideMoveIn(state, command)
    case 'variants.setLegacy':
      return decideSetLegacyVariants(state, command)
    case 'dependency.add':
      return decideAddDependency(state, command)
    case 'dependency.remove':
      return decideRemoveDependency(state, command)
    case 'access.add':
    case 'access.setUserRoles':
    case 'access.setGroupRoles':
    case 'access.removeUser':
    case 'access.removeGroup':
      return decideAccess(state, command, world.people, meta)
    default:
      return decideCuration(state, command, evolveProject)
  }
}

// All or nothing: each command is decided against the state the ones before it leave.
const decideBatch = (state: ProjectState, commands: ProjectCommand[]): Result<{ events: EventDraft[]; state: ProjectState | undefined }> => {
  const events: EventDraft[] = []
  let current: ProjectState | undefined = state
  for (const command of commands) {
    if (!current) return fail(notFound('The project no longer exists'))
    const result = decideAndEvolveProject(current, command)
    if (!result.ok) return result
    events.push(...result.value.events)
    current = result.value.state
  }
  return ok({ events, state: current })
}

// The flag's environments, each changed by `change`.
const eachEnvironment = (feature: Feature, change: (env: FeatureEnvironment) => FeatureEnvironment): SmallMap<string, FeatureEnvironment> =>
  SmallMap.from([...feature.environments].map(([name, env]) => [name, change(env)] as const))

const updateFeature = (state: ProjectState, name: string | null | undefined, update: (feature: Feature) => Feature): ProjectState => ({
  ...state,
  features: updateFeatureIn(state.features, String(name), update),
})

const updateFeatureEnvironment = (
  state: ProjectState,
  event: EventDraft,
  update: (environment: FeatureEnvironment) => FeatureEnvironment,
): ProjectState =>
  updateFeature(state, event.featureName, (feature) => ({
    ...feature,
    environments: updateEntry(feature.environments, String(event.environment), update),
  }))

const projectEnvironmentFrom = (data: Partial<ProjectEnvironment> & { environment: string }): ProjectEnvironment => ({
  environment: data.environment,
  changeRequestsEnabled: data.changeRequestsEnabled ?? false,
  requiredApprovals: data.requiredApprovals ?? 1,
  defaultStrategy: data.defaultStrategy ?? null,
})

// Applying an event never fails: decide has already checked everything. An event about one flag
// changes that flag alone: the facts kept about the project's flags go with it (flag-facts.ts).
export const evolveProject = (state: ProjectState | undefined, event: EventDraft): ProjectState | undefined => {
  const next = evolveProjectState(state, event)
  if (state && next && next.features !== state.features && event.featureName) carryFlagFacts(state.features, next.features, event.featureName)
  return next
}

const evolveProjectState = (state: ProjectState | undefined, event: EventDraft): ProjectState | undefined => {
  if (event.type === 'project-created') {
    const { environments, owner, ...settings } = event.data
    const access = emptyAccess()
    return {
      access: typeof owner === 'number' ? evolveAccess(access, { ...event, type: 'project-access-added', data: { roles: [{ roleId: 4, userIds: [owner], groupIds: [] }] } }) : access,
      settings,
      environments: new Map((environments as string[]).map((environment) => [environment, projectEnvironmentFrom({ environment })])),
      features: new Map(),
    }
  }
  if (!state) return state
  switch (event.type) {
    case 'project-updated':
      return { ...state, settings: event.data }
    case 'project-access-added':
    case 'project-access-user-roles-updated':
    case 'project-access-group-roles-updated':
    case 'project-access-user-roles-deleted':
    case 'project-access-group-roles-deleted':
      return { ...state, access: evolveAccess(state.access, event) }
    case 'project-deleted':
      return undefined
    case 'project-environment-added': {
      const environment = String(event.environment)
      const features = new Map<string, Feature>()
      for (const [name, feature] of state.features) {
        features.set(name, { ...feature, environments: withEntry(feature.environments, environment, emptyFeatureEnvironment) })
      }
      return { ...state, environments: withEntry(state.environments, environment, projectEnvironmentFrom(event.data)), features }
    }
    case 'project-environment-removed': {
      const environment = String(event.environment)
      const features = new Map<string, Feature>()
      for (const [name, feature] of state.features) features.set(name, { ...feature, environments: withoutEntry(feature.environments, environment) })
      return { ...state, environments: withoutEntry(state.environments, environment), features }
    }
    case 'change-request-configuration-updated':
      return {
        ...state,
        environments: updateEntry(state.environments, String(event.environment), (env) => ({ ...env, ...event.data })),
      }
    case 'default-strategy-updated':
      return {
        ...state,
        environments: updateEntry(state.environments, String(event.environment), (env) => ({ ...env, defaultStrategy: event.data })),
      }
    case 'feature-created': {
      const data = event.data
      const feature: Feature = {
        name: data.name,
        project: state.settings.id,
        type: data.type,
        description: data.description ?? null,
        impressionData: data.impressionData ?? false,
        stale: false,
        archived: false,
        archivedAt: null,
        createdAt: data.createdAt ?? event.createdAt,
        environments: SmallMap.from([...state.environments.keys()].map((env) => [env, emptyFeatureEnvironment])),
        dependencies: noItems,
        tags: orNoItems(event.tags ?? noItems),
        lifecycle: initialLifecycle(event.createdAt),
        createdByUserId: event.createdByUserId,
      }
      return { ...state, features: withEntry(state.features, feature.name, feature) }
    }
    case 'feature-metadata-updated':
      return updateFeature(state, event.featureName, (f) => ({
        ...f,
        description: event.data.description ?? null,
        type: event.data.type,
        impressionData: event.data.impressionData,
        // A PUT records a stale change here alone (older logs also carry the stale event after it).
        stale: event.data.stale ?? f.stale,
      }))
    case 'feature-stale-on':
    case 'feature-stale-off':
      return updateFeature(state, event.featureName, (f) => ({ ...f, stale: event.type === 'feature-stale-on' }))
    case 'feature-archived':
      return updateFeature(state, event.featureName, (f) => ({
        ...f,
        archived: true,
        archivedAt: event.createdAt,
        lifecycle: [...f.lifecycle, { stage: 'archived', enteredStageAt: event.createdAt }],
      }))
    case 'feature-revived':
      return updateFeature(state, event.featureName, (f) => {
        const environments = eachEnvironment(f, (env) => ({ ...env, enabled: false }))
        return { ...f, archived: false, archivedAt: null, environments, lifecycle: initialLifecycle(event.createdAt) }
      })
    case 'feature-deleted':
      return { ...state, features: withoutEntry(state.features, String(event.featureName)) }
    case 'internal:feature-moved-out':
    case 'feature-project-change':
      return evolveFeatureMove(state, event)
    case 'feature-environment-enabled':
    case 'feature-environment-disabled':
      return updateFeatureEnvironment(state, event, (env) => ({ ...env, enabled: event.type === 'feature-environment-enabled' }))
    case 'feature-strategy-add':
      // concat makes a list of the exact length; a spread with the item after it leaves room for 16 more.
      return updateFeatureEnvironment(state, event, (env) => ({ ...env, strategies: env.strategies.concat([event.data]) }))
    case 'feature-strategy-update':
      return updateFeatureEnvironment(state, event, (env) => ({
        ...env,
        strategies: env.strategies.map((s) => (s.id === event.data.id ? event.data : s)),
      }))
    case 'feature-strategy-remove':
      return updateFeatureEnvironment(state, event, (env) => ({ ...env, strategies: env.strategies.filter((s) => s.id !== event.preData.id) }))
    case 'strategy-order-changed':
      return updateFeatureEnvironment(state, event, (env) => ({
        ...env,
        strategies: env.strategies.map((s) => ({ ...s, sortOrder: event.data.sortOrders[s.id] ?? s.sortOrder })),
      }))
    case 'feature-environment-variants-updated':
      return updateFeatureEnvironment(state, event, (env) => ({ ...env, variants: event.data.variants }))
    case 'feature-variants-updated':
      return updateFeature(state, event.featureName, (f) => {
        const environments = eachEnvironment(f, (env) => ({ ...env, variants: event.data.variants }))
        return { ...f, environments }
      })
    case 'feature-dependency-added':
      return updateFeature(state, event.featureName, (f) => ({
        ...f,
        dependencies: [{ feature: event.data.feature, enabled: event.data.enabled ?? true, variants: event.data.variants ?? [] }],
      }))
    case 'feature-dependency-removed':
      return updateFeature(state, event.featureName, (f) => ({ ...f, dependencies: f.dependencies.filter((d) => d.feature !== event.data.feature) }))
    case 'feature-dependencies-removed':
      return updateFeature(state, event.featureName, (f) => ({ ...f, dependencies: [] }))
    case 'feature-tagged':
    case 'feature-untagged':
    case 'feature-favorited':
    case 'feature-unfavorited':
    case 'project-favorited':
    case 'project-unfavorited':
    case 'feature-completed':
    case 'feature-uncompleted':
    case 'feature-potentially-stale-on':
      return evolveCuration(state, event)
    default:
      return state
  }
}
