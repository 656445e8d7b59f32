import type { DistributiveOmit } from './type-utils.js'
import type { Change, ChangeContent, ChangeOf, ChangeRequest, ChangeTarget, Replaced } from './change-request-state.js'
import type { CommandMeta } from './events.js'
import type { InstanceCommand } from './instance.js'
import type { InstanceState } from './instance-state.js'
import type { ProjectCommand } from './project.js'
import type { ProjectState } from './project-state.js'
import type { SegmentWorld } from './segments.js'
import { defaultStrategyFor } from './strategies.js'

export type ProjectStep = DistributiveOmit<ProjectCommand, 'world'>

export const isSegmentChange = <C extends ChangeContent>(change: C): change is Extract<C, ChangeOf<'updateSegment' | 'deleteSegment'>> =>
  change.action === 'updateSegment' || change.action === 'deleteSegment'

const isStrategyTargetChange = <C extends ChangeContent>(change: C): change is Extract<C, ChangeOf<'updateStrategy' | 'deleteStrategy'>> =>
  change.action === 'updateStrategy' || change.action === 'deleteStrategy'

// What a change acts on, as it is now; kept with the change so that a later difference is a conflict.
export const targetOf = (
  change: ChangeContent & Pick<Change, 'feature'>,
  environment: string,
  project: ProjectState | undefined,
  instance: InstanceState,
): ChangeTarget => {
  if (isSegmentChange(change)) return instance.segments.get(change.payload.id) ?? null
  const feature = change.feature ? project?.features.get(change.feature) : undefined
  const env = feature?.environments.get(environment)
  if (isStrategyTargetChange(change)) return env?.strategies.find((s) => s.id === change.payload.id) ?? null
  if (change.action === 'patchVariant') return env?.variants ?? null
  return null
}

// What applying a change replaces, read from the states the application is decided against (before
// any of its changes): undefined when it replaces nothing (a new strategy, a flag's first dependency) or
// nothing worth showing (archiving, refused for an archived flag).
export const replacedBy = (change: Change, environment: string, project: ProjectState | undefined, instance: InstanceState): Replaced | undefined => {
  const feature = change.feature ? project?.features.get(change.feature) : undefined
  const env = feature?.environments.get(environment)
  const dependencies = feature?.dependencies ?? []
  switch (change.action) {
    case 'updateEnabled':
      return env ? { enabled: env.enabled } : undefined
    case 'reorderStrategy':
      return env ? env.strategies.map((s) => ({ id: s.id, sortOrder: s.sortOrder })) : undefined
    // A flag has at most one parent: a new one replaces it.
    case 'addDependency':
      return dependencies.length > 0 ? dependencies : undefined
    case 'deleteDependency': {
      const parent = change.payload?.feature
      const removed = parent === undefined ? dependencies : dependencies.filter((d) => d.feature === parent)
      return removed.length > 0 ? removed : undefined
    }
    default:
      return targetOf(change, environment, project, instance) ?? undefined
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

// INTERFACE 2.14: a change (or its flag) conflicts when its target changed after the change was added.
export const featureConflict = (featureName: string | null, project: ProjectState | undefined): string | undefined => {
  if (featureName === null) return undefined
  const feature = project?.features.get(featureName)
  if (!feature) return 'The feature flag has been deleted'
  if (feature.archived) return 'The feature flag has been archived'
  return undefined
}

export const changeConflict = (change: Change, environment: string, project: ProjectState | undefined, instance: InstanceState): string | undefined => {
  if (isSegmentChange(change)) {
    const now = targetOf(change, environment, project, instance)
    if (now === null) return 'The segment has been deleted'
    return same(now, change.snapshot) ? undefined : 'The segment has been changed since this change was added'
  }
  const flag = featureConflict(change.feature, project)
  if (flag) return flag
  if (isStrategyTargetChange(change)) {
    const now = targetOf(change, environment, project, instance)
    if (now === null) return 'The strategy has been deleted'
    return same(now, change.snapshot) ? undefined : 'The strategy has been changed since this change was added'
  }
  if (change.action === 'patchVariant' && !same(targetOf(change, environment, project, instance), change.snapshot)) {
    return 'The variants have been changed since this change was added'
  }
  return undefined
}

export interface ApplyIds {
  newStrategyId: () => string
}

// The direct commands a request stands for, in its order.
export const stepsFor = (
  request: ChangeRequest,
  meta: CommandMeta,
  ids: ApplyIds,
): { project: ProjectStep[]; instance: InstanceCommand[] } => {
  const project: ProjectStep[] = []
  const instance: InstanceCommand[] = []
  const environment = request.environment
  for (const change of request.changes) {
    const feature = change.feature ?? ''
    switch (change.action) {
      case 'updateEnabled': {
        const { enabled, shouldActivateDisabledStrategies } = change.payload
        project.push({ type: 'featureEnvironment.toggle', feature, environment, enabled, activateDisabledStrategies: shouldActivateDisabledStrategies === true, newStrategyId: ids.newStrategyId(), meta })
        break
      }
      case 'addStrategy':
        project.push({ type: 'strategy.add', feature, environment, input: change.payload, id: ids.newStrategyId(), meta })
        break
      case 'updateStrategy': {
        const { id, ...input } = change.payload
        project.push({ type: 'strategy.update', feature, environment, id, input, meta })
        break
      }
      case 'deleteStrategy':
        project.push({ type: 'strategy.delete', feature, environment, id: change.payload.id, meta })
        break
      case 'reorderStrategy':
        project.push({ type: 'strategy.reorder', feature, environment, order: change.payload, meta })
        break
      case 'patchVariant':
        project.push({ type: 'variants.set', feature, environments: [environment], variants: change.payload.variants, meta })
        break
      case 'addDependency': {
        const { feature: parent, enabled, variants } = change.payload
        project.push({ type: 'dependency.add', feature, dependency: { feature: parent, enabled: enabled ?? true, variants: variants ?? [] }, meta })
        break
      }
      case 'deleteDependency':
        project.push({ type: 'dependency.remove', feature, parent: change.payload.feature, meta })
        break
      case 'archiveFeature':
        project.push({ type: 'feature.archive', names: [feature], meta })
        break
      case 'updateSegment': {
        const { id, ...input } = change.payload
        instance.push({ type: 'segment.update', id, input, meta })
        break
      }
      case 'deleteSegment':
        instance.push({ type: 'segment.delete', id: change.payload.id, meta })
        break
    }
  }
  return { project: enableAfterStrategies(project), instance }
}

const strategyStepTypes = new Set(['strategy.add', 'strategy.update', 'strategy.delete', 'strategy.reorder'])

// A request that enables an environment and adds its strategies must not get the default 100 %
// strategy too, which enabling adds only to an environment left without any: each enable moves to
// just after the last strategy change of its flag; everything else keeps its order.
const enableAfterStrategies = (steps: ProjectStep[]): ProjectStep[] => {
  const lastStrategyStep = new Map<string, number>()
  steps.forEach((step, i) => {
    if (strategyStepTypes.has(step.type) && 'feature' in step && typeof step.feature === 'string') lastStrategyStep.set(step.feature, i)
  })
  const deferred = new Map<number, ProjectStep[]>()
  const ordered: ProjectStep[] = []
  steps.forEach((step, i) => {
    const after = step.type === 'featureEnvironment.toggle' && step.enabled ? lastStrategyStep.get(step.feature) : undefined
    if (after !== undefined && after > i) deferred.set(after, [...(deferred.get(after) ?? []), step])
    else ordered.push(step)
    ordered.push(...(deferred.get(i) ?? []))
  })
  return ordered
}

// Unleash shows the strategy that enabling a flag with none will add (INTERFACE 2.14 defaultChange).
export const defaultChangeFor = (request: ChangeRequest, featureName: string, project: ProjectState | undefined) => {
  const changes = request.changes.filter((c) => c.feature === featureName)
  const enables = changes.some((c) => c.action === 'updateEnabled' && c.payload.enabled === true)
  const addsStrategy = changes.some((c) => c.action === 'addStrategy')
  const env = project?.features.get(featureName)?.environments.get(request.environment)
  if (!project || !enables || addsStrategy || !env || env.strategies.some((s) => !s.disabled)) return undefined
  return { action: 'addStrategy', payload: defaultStrategyFor(project, featureName, request.environment) }
}
