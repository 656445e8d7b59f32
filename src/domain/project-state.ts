import type { FeatureNaming } from '../schemas/projects.js'
import type { Constraint, CreateFeatureStrategy, FeatureVariant, StrategyVariant, Tag } from '../schemas/shared.js'
import { updateEntry } from './immutable.js'

export type ProjectMode = 'open' | 'protected' | 'private'

export interface ProjectSettings {
  id: string
  name: string
  description: string | null
  mode: ProjectMode
  defaultStickiness: string
  featureLimit: number | null
  featureNaming: FeatureNaming
  createdAt: string
  updatedAt: string | null
}

export interface ProjectEnvironment {
  environment: string
  changeRequestsEnabled: boolean
  requiredApprovals: number
  defaultStrategy: CreateFeatureStrategy | null
}

export interface Strategy {
  id: string
  name: string
  title: string | null
  disabled: boolean
  sortOrder: number
  constraints: Constraint[]
  parameters: Record<string, string>
  variants: StrategyVariant[]
  segments: number[]
}

export interface FeatureEnvironment {
  enabled: boolean
  strategies: Strategy[]
  variants: FeatureVariant[]
}

export interface Dependency {
  feature: string
  enabled: boolean
  variants: string[]
}

export interface LifecycleStage {
  stage: 'initial' | 'pre-live' | 'live' | 'completed' | 'archived'
  enteredStageAt: string
  // Only on `completed` (SEMANTICS 11.6).
  status?: 'kept' | 'discarded'
  statusValue?: string
}

// A flag's first stage as it is created (or revived) at `at`. Flags created in one commit (an import of
// 1,000) or in one millisecond share it: one frozen list (states are never changed in place) where each
// kept a list and a stage of its own, 4.6 MiB at 50,000 flags (issue 26).
let lastInitial: readonly LifecycleStage[] = []
export const initialLifecycle = (at: string): LifecycleStage[] => {
  if (lastInitial[0]?.enteredStageAt !== at) lastInitial = Object.freeze([Object.freeze<LifecycleStage>({ stage: 'initial', enteredStageAt: at })])
  return lastInitial as LifecycleStage[]
}

export interface Feature {
  name: string
  project: string
  type: string
  description: string | null
  impressionData: boolean
  stale: boolean
  archived: boolean
  archivedAt: string | null
  createdAt: string
  environments: ReadonlyMap<string, FeatureEnvironment>
  dependencies: Dependency[]
  tags: Tag[]
  lifecycle: LifecycleStage[]
  // Set by the potentially-stale job (feature-potentially-stale-on); absent means false.
  potentiallyStale?: boolean
  // Keys of the users (or admin tokens) who favorited the flag; absent means none.
  favoritedBy?: readonly string[]
  // The user id its feature-created event carries (-42 for an admin token); absent in flags created
  // before it was kept, null when the event had none.
  createdByUserId?: number | null
}

// The flags with one flag changed by `update`, which returns it changed (by a spread, `{ ...f, stale }`), or
// unchanged. A flag changed by spreads at a few places ends in a hidden class with 4 of its fields in the
// object and the others in an array of their own (V8's clone of a clone): 168 bytes where its literal is
// 136, on each of 50,000 flags imported through the API, and a slower read of every field after (issue
// 26). So a changed flag is kept as one literal. A field a flag does not have stays away, except
// createdByUserId (its literal has it, even undefined).
export const updateFeatureIn = (features: ReadonlyMap<string, Feature>, name: string, update: (feature: Feature) => Feature): ReadonlyMap<string, Feature> =>
  updateEntry(features, name, (feature) => {
    const changed = update(feature)
    return changed === feature ? feature : featureLiteral(changed)
  })

const featureLiteral = (f: Feature): Feature => {
  const literal: Feature = {
    name: f.name,
    project: f.project,
    type: f.type,
    description: f.description,
    impressionData: f.impressionData,
    stale: f.stale,
    archived: f.archived,
    archivedAt: f.archivedAt,
    createdAt: f.createdAt,
    environments: f.environments,
    dependencies: f.dependencies,
    tags: f.tags,
    lifecycle: f.lifecycle,
    createdByUserId: f.createdByUserId,
  }
  if (f.potentiallyStale !== undefined) literal.potentiallyStale = f.potentiallyStale
  if (f.favoritedBy !== undefined) literal.favoritedBy = f.favoritedBy
  return literal
}

// Project roles by user id and by group id.
export interface ProjectAccess {
  users: ReadonlyMap<number, number[]>
  groups: ReadonlyMap<number, number[]>
  // When each user (`user:<id>`) or group (`group:<id>`) was first given a role here.
  addedAt: ReadonlyMap<string, string>
}

export interface ProjectState {
  access: ProjectAccess
  settings: ProjectSettings
  environments: ReadonlyMap<string, ProjectEnvironment>
  features: ReadonlyMap<string, Feature>
  // Keys of the users (or admin tokens) who favorited the project; absent means none.
  favoritedBy?: readonly string[]
}
