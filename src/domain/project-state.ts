import type { FeatureNaming } from '../schemas/projects.js'
import type { Constraint, CreateFeatureStrategy, FeatureVariant, StrategyVariant, Tag } from '../schemas/shared.js'

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
