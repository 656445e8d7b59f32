import type { ChangeAction, ChangeRequestStateName } from '../schemas/change-requests.js'

export interface Author {
  id: number | null
  username: string
}

export interface Change {
  id: number
  feature: string | null
  action: ChangeAction
  payload: unknown
  createdAt: string
  createdBy: Author
  // The target as it was when the change was added: a later difference is a conflict.
  snapshot: unknown
}

export interface Stamp {
  createdBy: Author
  createdAt: string
}

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
  comments: (Stamp & { id: number; text: string })[]
  schedule: Schedule | null
  stateTimestamps: Partial<Record<ChangeRequestStateName, string>>
  discarded: boolean
  nextChangeId: number
  nextCommentId: number
}

export const openStates: readonly ChangeRequestStateName[] = ['Draft', 'In review', 'Approved', 'Scheduled']
export const isOpen = (request: ChangeRequest) => !request.discarded && openStates.includes(request.state)
