import { replacedBy } from './change-request-changes.js'
import type { Author, ChangeRequest, ReplacedByChange, TargetedChange } from './change-request-state.js'
import { badData, fail, forbidden, notFound, ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import type { InstanceState } from './instance-state.js'
import type { ProjectState } from './project-state.js'

export type NewChange = TargetedChange & { feature: string | null }

// The states an application is decided against, as its coordinator holds them (applyingTo).
export interface ApplyWorld {
  project: ProjectState | undefined
  instance: InstanceState
}

export type ChangeRequestCommand = { meta: CommandMeta; author: Author; isAdmin: boolean } & (
  | { type: 'changeRequest.create'; id: number; project: string; environment: string; minApprovals: number; changes: NewChange[] }
  | { type: 'change.add'; changes: NewChange[] }
  | { type: 'change.edit'; changeId: number; change: TargetedChange }
  | { type: 'change.discard'; changeId: number }
  | { type: 'title.set'; title: string }
  | { type: 'comment.add'; text: string }
  | { type: 'discard' }
  | { type: 'state.review' }
  | { type: 'state.approve'; comment?: string }
  | { type: 'state.reject'; comment?: string }
  | { type: 'state.cancel' }
  | { type: 'state.schedule'; scheduledAt: string }
  | { type: 'state.apply'; world?: ApplyWorld }
  | { type: 'schedule.fail'; reason: string }
  | { type: 'schedule.suspend'; reason: string }
)

export type ChangeRequestCommandType = ChangeRequestCommand['type']

const keys = (request: Pick<ChangeRequest, 'id' | 'project' | 'environment'>) => ({ project: request.project, environment: request.environment })

const changeEvents = (request: Pick<ChangeRequest, 'id' | 'project' | 'environment' | 'nextChangeId'>, changes: NewChange[], author: Author, meta: CommandMeta) =>
  changes.map((change, i) =>
    draft(meta, 'change-added', {
      ...keys(request),
      featureName: change.feature,
      data: { changeRequestId: request.id, change: { id: request.nextChangeId + i, ...change, createdAt: meta.now, createdBy: author } },
    }),
  )

const authorOnly = new Set<ChangeRequestCommandType>(['change.add', 'change.edit', 'change.discard', 'title.set'])

const isAuthor = (request: ChangeRequest, author: Author) => request.createdBy.id === author.id && request.createdBy.username === author.username

// Data rules of each step; which step a state accepts at all is the machine's business.
export const decideChangeRequest = (request: ChangeRequest | undefined, command: ChangeRequestCommand): Result<EventDraft[]> => {
  const { meta, author } = command
  if (command.type === 'changeRequest.create') {
    const created = {
      changeRequestId: command.id,
      id: command.id,
      title: `Change request #${command.id}`,
      project: command.project,
      environment: command.environment,
      minApprovals: command.minApprovals,
      createdBy: author,
    }
    const head = { id: command.id, project: command.project, environment: command.environment, nextChangeId: 1 }
    return ok([draft(meta, 'change-request-created', { ...keys(head), data: created }), ...changeEvents(head, command.changes, author, meta)])
  }
  if (!request) return fail(notFound('Could not find the change request'))
  const base = { ...keys(request) }
  const data = <D extends object>(extra: D) => ({ changeRequestId: request.id, ...extra })
  if (authorOnly.has(command.type) && !isAuthor(request, author) && !command.isAdmin) {
    return fail(forbidden('Only the author of a change request (or an admin) can change its title or its changes'))
  }
  switch (command.type) {
    case 'change.add':
      return ok(changeEvents(request, command.changes, author, meta))
    case 'change.edit': {
      const change = request.changes.find((c) => c.id === command.changeId)
      if (!change) return fail(notFound(`Could not find change ${command.changeId} in change request ${request.id}`))
      return ok([draft(meta, 'change-edited', { ...base, featureName: change.feature, data: data({ changeId: change.id, ...command.change }) })])
    }
    case 'change.discard': {
      const change = request.changes.find((c) => c.id === command.changeId)
      if (!change) return fail(notFound(`Could not find change ${command.changeId} in change request ${request.id}`))
      return ok([draft(meta, 'change-discarded', { ...base, featureName: change.feature, data: data({ changeId: change.id }) })])
    }
    // Unleash has no event types for a new title or a comment: they are records of our own, kept out
    // of the event list, so change-added and change-edited always carry a change.
    case 'title.set':
      return ok([draft(meta, 'internal:change-request-title-updated', { ...base, data: data({ title: command.title }), preData: data({ title: request.title }) })])
    case 'comment.add':
      return ok([draft(meta, 'internal:change-request-comment-added', { ...base, data: data({ comment: { id: request.nextCommentId, text: command.text, createdBy: author, createdAt: meta.now } }) })])
    case 'discard':
      if (!isAuthor(request, author) && !command.isAdmin) return fail(forbidden('Only the author or an admin can discard a change request'))
      return ok([draft(meta, 'change-request-discarded', { ...base, data: data({}) })])
    case 'state.review':
      if (request.changes.length === 0) return fail(badData('A change request without changes cannot be sent to review'))
      return ok([draft(meta, 'change-request-sent-to-review', { ...base, data: data({}) })])
    case 'state.approve': {
      // SEMANTICS 12: not the author; admins may approve their own.
      if (isAuthor(request, author) && !command.isAdmin) return fail(forbidden('You can not approve your own change request'))
      if (request.approvals.some((a) => a.createdBy.id === author.id && a.createdBy.username === author.username)) {
        return fail(badData(`Change request ${request.id} is "${request.state}" and you have already approved it, so it cannot be approved again.`))
      }
      const events: EventDraft[] = [draft(meta, 'change-request-approval-added', { ...base, data: data({ approver: author, comment: command.comment }) })]
      if (request.approvals.length + 1 >= request.minApprovals) events.push(draft(meta, 'change-request-approved', { ...base, data: data({}) }))
      return ok(events)
    }
    case 'state.reject':
      if (isAuthor(request, author) && !command.isAdmin) return fail(forbidden('You can not reject your own change request'))
      return ok([draft(meta, 'change-request-rejected', { ...base, data: data({ rejecter: author, comment: command.comment }) })])
    case 'state.cancel':
      if (!isAuthor(request, author) && !command.isAdmin) return fail(forbidden('Only the author or an admin can cancel a change request'))
      return ok([draft(meta, 'change-request-cancelled', { ...base, data: data({}) })])
    case 'state.schedule':
      if (Date.parse(command.scheduledAt) <= Date.parse(meta.now)) return fail(badData('"scheduledAt" must be in the future'))
      return ok([draft(meta, 'change-request-scheduled', { ...base, data: data({ scheduledAt: new Date(command.scheduledAt).toISOString(), scheduledBy: author }) })])
    case 'state.apply': {
      const replaced = command.world ? replacedByChanges(request, command.world) : []
      const events: EventDraft[] = [draft(meta, 'change-request-applied', { ...base, data: data(replaced.length > 0 ? { replaced } : {}) })]
      if (request.state === 'Scheduled') events.push(draft(meta, 'change-request-scheduled-application-success', { ...base, data: data({}) }))
      return ok(events)
    }
    case 'schedule.fail':
      return ok([draft(meta, 'change-request-scheduled-application-failure', { ...base, data: data({ reason: command.reason }) })])
    case 'schedule.suspend':
      return ok([draft(meta, 'change-request-schedule-suspended', { ...base, data: data({ reason: command.reason }) })])
  }
}

const replacedByChanges = (request: ChangeRequest, { project, instance }: ApplyWorld): ReplacedByChange[] =>
  request.changes.flatMap((change) => {
    const replaced = replacedBy(change, request.environment, project, instance)
    return replaced === undefined ? [] : [{ changeId: change.id, replaced }]
  })

// An application's step with the states it is decided against, so that it records what each change
// replaced: the coordinator gives them when it decides (plans.ts decideApply).
export const applyingTo = (command: ChangeRequestCommand, world: ApplyWorld): ChangeRequestCommand =>
  command.type === 'state.apply' ? { ...command, world } : command

const stamp = (meta: { createdAt: string }, by: Author) => ({ createdBy: by, createdAt: meta.createdAt })

export const evolveChangeRequest = (request: ChangeRequest | undefined, event: EventDraft): ChangeRequest | undefined => {
  if (event.type === 'change-request-created') {
    const d = event.data
    return {
      id: d.id,
      title: d.title,
      project: d.project,
      environment: d.environment,
      state: 'Draft',
      minApprovals: d.minApprovals,
      createdAt: event.createdAt,
      createdBy: d.createdBy,
      changes: [],
      approvals: [],
      rejections: [],
      comments: [],
      schedule: null,
      stateTimestamps: { Draft: event.createdAt },
      discarded: false,
      nextChangeId: 1,
      nextCommentId: 1,
    }
  }
  if (!request) return request
  const at = (state: ChangeRequest['state']) => ({ state, stateTimestamps: { ...request.stateTimestamps, [state]: event.createdAt } })
  switch (event.type) {
    case 'internal:change-request-comment-added':
      return { ...request, comments: [...request.comments, event.data.comment], nextCommentId: request.nextCommentId + 1 }
    case 'internal:change-request-title-updated':
      return { ...request, title: event.data.title }
    // Logs written before the records above carried comments and titles in change-added and change-edited.
    case 'change-added': {
      const data = event.data
      if ('comment' in data) return { ...request, comments: [...request.comments, data.comment], nextCommentId: request.nextCommentId + 1 }
      return { ...request, changes: [...request.changes, data.change], nextChangeId: Math.max(request.nextChangeId, data.change.id + 1) }
    }
    case 'change-edited': {
      if ('title' in event.data) return { ...request, title: event.data.title }
      const { changeRequestId: _request, changeId, ...edit } = event.data
      return {
        ...request,
        changes: request.changes.map((c) => (c.id === changeId ? { ...c, ...edit } : c)),
        // Unleash: editing a request under review takes back its approvals.
        approvals: request.state === 'In review' ? [] : request.approvals,
      }
    }
    case 'change-discarded': {
      const { changeId } = event.data
      return { ...request, changes: request.changes.filter((c) => c.id !== changeId), approvals: request.state === 'In review' ? [] : request.approvals }
    }
    case 'change-request-discarded':
      return { ...request, discarded: true, ...at('Cancelled') }
    case 'change-request-sent-to-review':
      return { ...request, ...at('In review') }
    case 'change-request-approval-added':
      return { ...request, approvals: [...request.approvals, stamp(event, event.data.approver)] }
    case 'change-request-approved':
      return { ...request, ...at('Approved') }
    case 'change-request-rejected':
      return { ...request, rejections: [...request.rejections, stamp(event, event.data.rejecter)], ...at('Rejected') }
    case 'change-request-cancelled':
      return { ...request, ...at('Cancelled') }
    case 'change-request-scheduled':
      return { ...request, schedule: { scheduledAt: event.data.scheduledAt, status: 'pending', scheduledBy: event.data.scheduledBy }, ...at('Scheduled') }
    case 'change-request-applied': {
      const replaced = new Map((event.data.replaced ?? []).map((r) => [r.changeId, r.replaced]))
      const changes = replaced.size === 0 ? request.changes : request.changes.map((c) => (replaced.has(c.id) ? { ...c, replaced: replaced.get(c.id) } : c))
      return { ...request, changes, ...at('Applied') }
    }
    case 'change-request-scheduled-application-failure':
      return request.schedule ? { ...request, schedule: { ...request.schedule, status: 'failed', failureReason: event.data.reason } } : request
    case 'change-request-schedule-suspended':
      return request.schedule ? { ...request, schedule: { ...request.schedule, status: 'suspended', reason: event.data.reason } } : request
    default:
      return request
  }
}

// The configuration is project state (evolveProject), not a request's: it must not be routed here on replay.
export const isChangeRequestEvent = (type: string) =>
  (type !== 'change-request-configuration-updated' && type.startsWith('change-')) || type.startsWith('internal:change-request-')

// A change request's records each name it (data.changeRequestId): what replay routes them by.
export const isChangeRequestRecord = <E extends EventDraft>(record: E): record is Extract<E, { data: { changeRequestId: number } }> =>
  isChangeRequestEvent(record.type)
