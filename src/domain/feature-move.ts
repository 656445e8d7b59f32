import { childrenOf } from './flag-facts.js'
import { DomainError, fail, forbidden, ok, type Result } from './errors.js'
import type { MovedFeature } from './event-data.js'
import { draft, type EventDraft } from './events.js'
import { findActiveFeature } from './features.js'
import { SmallMap, withEntry, withoutEntry } from './immutable.js'
import type { Feature, ProjectState } from './project-state.js'
import type { WithMeta } from './world.js'

type MoveOut = { type: 'feature.moveOut'; feature: string; target: ProjectState }
type MoveIn = { type: 'feature.moveIn'; feature: Feature }

export type MoveCommand = MoveOut | MoveIn

// Moving a flag (POST …/features/:f/changeProject) is one log append of two records: the source
// project's internal:feature-moved-out, then the target's feature-project-change, which carries the
// whole flag (hidden: replay-only) so that replaying it into the target rebuilds the flag as it was.

const movedFeature = (feature: Feature): MovedFeature => ({ ...feature, environments: [...feature.environments] })

const incompatible = (target: string, message: string) =>
  new DomainError('IncompatibleProjectError', `${target} is not a compatible target`, undefined, { details: [{ validationErrors: [], message }] })

const sameEnvironments = (a: ProjectState, b: ProjectState) =>
  a.environments.size === b.environments.size && [...a.environments.keys()].every((env) => b.environments.has(env))

// SEMANTICS 11.4 and 12: the source's side of a move.
export const decideMoveOut = (state: ProjectState, { feature: featureName, target, world, meta }: WithMeta<MoveOut>): Result<EventDraft[]> => {
  const found = findActiveFeature(state, featureName, world)
  if (!found.ok) return found
  const feature = found.value
  const newProject = target.settings.id
  if (newProject === state.settings.id) return ok([])
  const hasChildren = childrenOf(state.features, featureName).length > 0
  if (feature.dependencies.length > 0 || hasChildren) return fail(forbidden('Changing project not allowed. Feature has dependencies.'))
  if (!sameEnvironments(state, target)) return fail(incompatible(newProject, 'The target project does not have the same environments as the current project.'))
  const foreignSegment = [...feature.environments.values()]
    .flatMap((env) => env.strategies.flatMap((s) => s.segments))
    .map((id) => world.segment(id))
    .find((segment) => segment?.project && segment.project !== newProject)
  if (foreignSegment) return fail(incompatible(newProject, `The flag uses segment "${foreignSegment.name}", which belongs to project ${foreignSegment.project}.`))
  return ok([
    draft(meta, 'internal:feature-moved-out', { project: state.settings.id, featureName, data: { oldProject: state.settings.id, newProject } }),
  ])
}

// The target's side: refused where change requests are required (a move cannot be reviewed).
export const decideMoveIn = (state: ProjectState, { feature, meta }: WithMeta<MoveIn>): Result<EventDraft[]> => {
  const newProject = state.settings.id
  if ([...state.environments.values()].some((env) => env.changeRequestsEnabled)) {
    return fail(forbidden(`Changing project not allowed. Project ${newProject} has change requests enabled.`))
  }
  return ok([
    draft(meta, 'feature-project-change', {
      project: newProject,
      featureName: feature.name,
      data: { oldProject: feature.project, newProject },
      hidden: { feature: movedFeature(feature) },
    }),
  ])
}

export const evolveFeatureMove = (state: ProjectState, event: EventDraft): ProjectState => {
  const name = String(event.featureName)
  if (event.type === 'internal:feature-moved-out') return { ...state, features: withoutEntry(state.features, name) }
  if (event.type === 'feature-project-change') {
    const moved = event.hidden.feature
    const feature: Feature = { ...moved, project: state.settings.id, environments: SmallMap.from(moved.environments) }
    return { ...state, features: withEntry(state.features, name, feature) }
  }
  return state
}
