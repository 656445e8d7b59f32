import type { ChangeAction, ChangePayloads, ChangeRequestStateName } from '../schemas/change-requests.js'
import type { FeatureVariant } from '../schemas/shared.js'
import type { Segment } from './instance-state.js'
import type { Dependency, Strategy } from './project-state.js'

export interface Author {
  id: number | null
  username: string
}

// An action with the payload its direct endpoint's schema checked (payloadSchemas): narrowing on
// `action` gives the payload.
export type ChangeOf<A extends ChangeAction> = A extends ChangeAction ? { action: A; payload: ChangePayloads[A] } : never
export type ChangeContent = ChangeOf<ChangeAction>

// What a change acts on: a segment, a strategy, a flag's variants in the environment, or nothing.
export type ChangeTarget = Segment | Strategy | FeatureVariant[] | null

// A change's action and payload with its target as it is now (targetOf).
export type TargetedChange = ChangeContent & { snapshot: ChangeTarget }

// What applying a change replaced, as it was just before (replacedBy), kept so that an applied request
// still shows it: the strategy or segment it updated or deleted, the environment's variants, whether the
// environment was on, the strategies' order, the dependencies it replaced or removed.
export type Replaced = NonNullable<ChangeTarget> | { enabled: boolean } | { id: string; sortOrder: number }[] | Dependency[]

// What a change replaced, as change-request-applied records it.
export interface ReplacedByChange {
  changeId: number
  replaced: Replaced
}

export type Change = ChangeContent & {
  id: number
  feature: string | null
  createdAt: string
  createdBy: Author
  // The target as it was when the change was added: a later difference is a conflict.
  snapshot: ChangeTarget
  // Recorded by change-request-applied; absent before then, for a change that replaced nothing
  // (a new strategy) and in requests applied before it was recorded.
  replaced?: Replaced
}

export interface Stamp {
  createdBy: Author
  createdAt: string
}

export type Comment = Stamp & { id: number; text: string }

export interface Schedule {
  scheduledAt: string
  status: 'pending' | 'failed' | 'suspended'
  reason?: string
  failureReason?: string
  scheduledBy: Author
}

export interface ChangeRequest {
  id: number
  title: string
  project: string
  environment: string
  state: ChangeRequestStateName
  minApprovals: number
  createdAt: string
  createdBy: Author
  changes: Change[]
  approvals: Stamp[]
  rejections: Stamp[]
  comments: Comment[]
  schedule: Schedule | null
  stateTimestamps: Partial<Record<ChangeRequestStateName, string>>
  discarded: boolean
  nextChangeId: number
  nextCommentId: number
}

export const openStates: readonly ChangeRequestStateName[] = ['Draft', 'In review', 'Approved', 'Scheduled']
export const isOpen = (request: ChangeRequest) => !request.discarded && openStates.includes(request.state)
