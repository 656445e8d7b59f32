import type { DistributiveOmit } from '../domain/type-utils.js'
import { changeConflict, defaultChangeFor, featureConflict, isSegmentChange, stepsFor, targetOf } from '../domain/change-request-changes.js'
import { isOpen, type Author, type ChangeContent, type ChangeRequest } from '../domain/change-request-state.js'
import type { ChangeRequestCommand, NewChange } from '../domain/change-requests.js'
import { badData, notFound } from '../domain/errors.js'
import type { CommandMeta } from '../domain/events.js'
import type { Request, Route } from '../http/types.js'
import {
  changeInputsSchema,
  changeRequestConfigSchema,
  changeRequestResponse,
  changeRequestsResponse,
  commentSchema,
  editChangeSchema,
  payloadSchemas,
  stateChangeSchema,
  titleSchema,
  type ChangeAction,
  type ChangeInput,
} from '../schemas/change-requests.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { committedProject } from './lookups.js'
import { numericId } from './people-context.js'
import { parse } from './parse.js'
import { newId } from '../new-id.js'


const base = '/api/admin/projects/:projectId/change-requests'

// The permission of the direct endpoint each action stands for.
const permissionOf: Record<ChangeAction, string> = {
  updateEnabled: 'UPDATE_FEATURE_ENVIRONMENT',
  addStrategy: 'CREATE_FEATURE_STRATEGY',
  updateStrategy: 'UPDATE_FEATURE_STRATEGY',
  deleteStrategy: 'DELETE_FEATURE_STRATEGY',
  reorderStrategy: 'UPDATE_FEATURE_STRATEGY',
  patchVariant: 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS',
  addDependency: 'UPDATE_FEATURE_DEPENDENCY',
  deleteDependency: 'UPDATE_FEATURE_DEPENDENCY',
  archiveFeature: 'DELETE_FEATURE',
  updateSegment: 'UPDATE_SEGMENT',
  deleteSegment: 'DELETE_SEGMENT',
}

// The actions whose payload Unleash gives what they replaced, as `snapshot` (see changeRequestResponse).
const unleashSnapshots = new Set<ChangeAction>(['updateStrategy', 'deleteStrategy', 'patchVariant', 'updateSegment', 'deleteSegment'])

// Unleash shows a user's username where there is one (the principal's name prefers the email).
const authorOf = (deps: ApiDeps, req: Request): Author => {
  const userId = req.principal?.userId ?? null
  const user = userId === null ? undefined : deps.reads.instance.people.users.get(userId)
  return { id: userId, username: user?.username ?? req.principal?.name ?? 'unknown' }
}
const person = (author: Author) => ({ id: author.id, username: author.username, imageUrl: null })

export const changeRequestRoutes = (deps: ApiDeps): Route[] => {
  const instance = () => deps.reads.instance

  const find = (req: Request): ChangeRequest => {
    const id = numericId(req.params.id, 'id')
    const request = deps.reads.changeRequests.get(id)
    if (!request || request.discarded || request.project !== req.params.projectId) throw notFound(`Could not find change request ${id} in project ${req.params.projectId}`)
    return request
  }

  const view = (request: ChangeRequest) => {
    const project = deps.reads.projects.get(request.project)
    const changeView = (c: ChangeRequest['changes'][number]) => {
      const conflict = isOpen(request) ? changeConflict(c, request.environment, project, instance()) : undefined
      const replaced = c.replaced === undefined ? {} : { replaced: c.replaced }
      const payload = c.replaced !== undefined && unleashSnapshots.has(c.action) ? { ...c.payload, snapshot: c.replaced } : c.payload
      return { id: c.id, action: c.action, payload, createdAt: c.createdAt, createdBy: person(c.createdBy), ...(conflict ? { conflict } : {}), ...replaced }
    }
    const featureNames = [...new Set(request.changes.filter((c) => !isSegmentChange(c)).map((c) => c.feature ?? ''))]
    const features = featureNames.map((name) => {
      const conflict = isOpen(request) ? featureConflict(name, project) : undefined
      const defaultChange = isOpen(request) ? defaultChangeFor(request, name, project) : undefined
      return {
        name,
        ...(conflict ? { conflict } : {}),
        changes: request.changes.filter((c) => c.feature === name && !isSegmentChange(c)).map(changeView),
        ...(defaultChange ? { defaultChange } : {}),
      }
    })
    const segments = request.changes
      .filter(isSegmentChange)
      .map((c) => {
        const { payload } = c
        return { ...changeView(c), id: payload.id, name: instance().segments.get(payload.id)?.name ?? ('name' in payload ? payload.name : undefined) ?? '', changeId: c.id }
      })
    return {
      id: request.id,
      title: request.title,
      environment: request.environment,
      minApprovals: request.minApprovals,
      project: request.project,
      state: request.state,
      createdAt: request.createdAt,
      createdBy: person(request.createdBy),
      features,
      segments,
      approvals: request.approvals.map((a) => ({ createdBy: person(a.createdBy), createdAt: a.createdAt })),
      rejections: request.rejections.map((r) => ({ createdBy: person(r.createdBy), createdAt: r.createdAt })),
      comments: request.comments.map((c) => ({ id: c.id, text: c.text, createdAt: c.createdAt, createdBy: { username: c.createdBy.username, imageUrl: null } })),
      ...(request.schedule ? { schedule: { scheduledAt: request.schedule.scheduledAt, status: request.schedule.status, ...(request.schedule.failureReason ? { failureReason: request.schedule.failureReason } : {}), ...(request.schedule.reason ? { reason: request.schedule.reason } : {}) } } : {}),
      stateTimestamps: request.stateTimestamps,
    }
  }

  const projectRequests = (projectId: string) =>
    [...deps.reads.changeRequests.values()].filter((r) => r.project === projectId && !r.discarded).sort((a, b) => b.id - a.id)

  const step = (req: Request, fields: DistributiveOmit<ChangeRequestCommand, 'meta' | 'author' | 'isAdmin'>): ChangeRequestCommand =>
    ({ ...fields, meta: metaOf(deps, req), author: authorOf(deps, req), isAdmin: req.principal?.can('ADMIN') === true }) as ChangeRequestCommand

  // The payload checked with the schema of its action's direct endpoint. TypeScript cannot tie a payload
  // parsed by payloadSchemas[action] to that action, so the link is asserted here, where it is made.
  const checkedChange = (action: ChangeAction, payload: unknown) => ({ action, payload: parse(payloadSchemas[action], payload, 'body') }) as ChangeContent

  // Checks a change as its direct endpoint would, and captures its target for later conflict checks.
  const prepareChange = (req: Request, input: ChangeInput, environment: string): NewChange => {
    const projectId = req.params.projectId
    req.authorize(permissionOf[input.action], projectId, environment)
    const content = checkedChange(input.action, input.payload)
    const project = committedProject(deps, projectId)
    const feature = isSegmentChange(content) ? null : input.feature ?? null
    if (!isSegmentChange(content)) {
      if (!feature) throw badData(`"feature" is required for the action ${input.action}`)
      const flag = project.features.get(feature)
      if (!flag) throw notFound(`There's no feature named "${feature}" in project "${projectId}"`)
      if (flag.archived) throw badData(`The feature flag "${feature}" is archived`)
    } else if (!instance().segments.has(content.payload.id)) {
      throw notFound(`Could not find segment with id ${content.payload.id}`)
    }
    const change = { feature, ...content }
    return { ...change, snapshot: targetOf(change, environment, project, instance()) }
  }

  const apply = async (request: ChangeRequest, author: Author, meta: CommandMeta, stepFor: ChangeRequestCommand) => {
    const project = deps.reads.projects.get(request.project)
    // A request that cannot be applied in its state is refused for its state (by the machine), not as a conflict.
    const applicable = request.state === 'Approved' || request.state === 'Scheduled'
    const conflicts = applicable ? request.changes.map((c) => changeConflict(c, request.environment, project, instance())).filter(Boolean) : []
    if (conflicts.length > 0) throw badData(`Change request ${request.id} conflicts with the current state and cannot be applied: ${conflicts.join('; ')}`)
    const steps = stepsFor(request, meta, { newStrategyId: newId })
    return deps.commands.applyChangeRequest(request.id, stepFor, request.project, steps.project, steps.instance)
  }

  const changeState = async (req: Request) => {
    const request = find(req)
    const input = parse(stateChangeSchema, req.body)
    const env = request.environment
    const id = request.id
    switch (input.state) {
      case 'In review':
        await deps.commands.toChangeRequest(id, step(req, { type: 'state.review' }))
        break
      case 'Approved':
        req.authorize('APPROVE_CHANGE_REQUEST', request.project, env)
        await deps.commands.toChangeRequest(id, step(req, { type: 'state.approve', comment: input.comment }))
        break
      case 'Rejected':
        req.authorize('APPROVE_CHANGE_REQUEST', request.project, env)
        await deps.commands.toChangeRequest(id, step(req, { type: 'state.reject', comment: input.comment }))
        break
      case 'Cancelled':
        await deps.commands.toChangeRequest(id, step(req, { type: 'state.cancel' }))
        break
      case 'Scheduled':
        req.authorize('APPLY_CHANGE_REQUEST', request.project, env)
        if (!input.scheduledAt) throw badData('"scheduledAt" is required to schedule a change request')
        await deps.commands.toChangeRequest(id, step(req, { type: 'state.schedule', scheduledAt: input.scheduledAt }))
        break
      case 'Applied': {
        req.authorize('APPLY_CHANGE_REQUEST', request.project, env)
        const author = authorOf(deps, req)
        const meta = { ...metaOf(deps, req), mayBypassChangeRequests: () => true }
        await apply(request, author, meta, { type: 'state.apply', meta, author, isAdmin: req.principal?.can('ADMIN') === true })
        break
      }
      default:
        throw badData(`Change request ${id} is "${request.state}", so it cannot be moved to "${input.state}".`)
    }
    return json(view(deps.reads.changeRequests.get(id)!))
  }

  return [
    {
      method: 'GET',
      path: `${base}/config`,
      access: 'admin',
      handler: (req) => {
        const project = committedProject(deps, req.params.projectId)
        return json(
          [...project.environments.values()].map((e) => ({
            environment: e.environment,
            type: instance().environments.get(e.environment)?.type ?? 'development',
            changeRequestEnabled: e.changeRequestsEnabled,
            requiredApprovals: e.requiredApprovals,
          })),
        )
      },
    },
    {
      method: 'PUT',
      path: '/api/admin/projects/:projectId/environments/:environment/change-requests/config',
      access: 'admin',
      permission: 'UPDATE_PROJECT',
      body: true,
      docs: { body: changeRequestConfigSchema, responses: { 204: null } },
      handler: async (req) => {
        const input = parse(changeRequestConfigSchema, req.body)
        await deps.commands.toProject(req.params.projectId, {
          type: 'changeRequestConfig.set',
          environment: req.params.environment,
          changeRequestsEnabled: input.changeRequestsEnabled,
          requiredApprovals: input.requiredApprovals,
          meta: metaOf(deps, req),
        })
        return empty(204)
      },
    },
    {
      method: 'POST',
      path: '/api/admin/projects/:projectId/environments/:environment/change-requests',
      access: 'admin',
      body: true,
      docs: { body: changeInputsSchema },
      handler: async (req) => {
        const parsed = parse(changeInputsSchema, req.body)
        const inputs = Array.isArray(parsed) ? parsed : [parsed]
        const { projectId, environment } = req.params
        const project = committedProject(deps, projectId)
        const projectEnvironment = project.environments.get(environment)
        if (!projectEnvironment) throw badData('You have not added the current environment to the project')
        const changes = inputs.map((input) => prepareChange(req, input, environment))
        const author = authorOf(deps, req)
        // The caller's one open draft for this environment takes the changes, or a new one is started.
        const draftRequest = [...deps.reads.changeRequests.values()]
          .find((r) => r.project === projectId && r.environment === environment && r.state === 'Draft' && !r.discarded && r.createdBy.id === author.id && r.createdBy.username === author.username)
        const id = draftRequest?.id ?? deps.commands.nextChangeRequestId()
        await deps.commands.toChangeRequest(
          id,
          draftRequest
            ? step(req, { type: 'change.add', changes })
            : step(req, { type: 'changeRequest.create', id, project: projectId, environment, minApprovals: projectEnvironment.requiredApprovals, changes }),
        )
        return json(view(deps.reads.changeRequests.get(id)!))
      },
    },
    {
      method: 'GET',
      path: base,
      access: 'admin',
      docs: { responses: { 200: changeRequestsResponse } },
      handler: (req) => json(projectRequests(committedProject(deps, req.params.projectId).settings.id).map(view)),
    },
    {
      method: 'GET',
      path: `${base}/open`,
      access: 'admin',
      handler: (req) => {
        const author = authorOf(deps, req)
        return json(projectRequests(req.params.projectId).filter((r) => r.state === 'Draft' && r.createdBy.id === author.id && r.createdBy.username === author.username).map(view))
      },
    },
    {
      method: 'GET',
      path: `${base}/pending/:featureName`,
      access: 'admin',
      handler: (req) =>
        json(
          projectRequests(req.params.projectId)
            .filter((r) => ['Draft', 'In review', 'Approved'].includes(r.state) && r.changes.some((c) => c.feature === req.params.featureName))
            .map(view),
        ),
    },
    { method: 'GET', path: `${base}/:id`, access: 'admin', docs: { responses: { 200: changeRequestResponse } }, handler: (req) => json(view(find(req))) },
    { method: 'PUT', path: `${base}/:id/state`, access: 'admin', body: true, docs: { body: stateChangeSchema }, handler: changeState },
    {
      method: 'POST',
      path: `${base}/:id/comments`,
      access: 'admin',
      body: true,
      docs: { body: commentSchema },
      handler: async (req) => {
        const request = find(req)
        await deps.commands.toChangeRequest(request.id, step(req, { type: 'comment.add', text: parse(commentSchema, req.body).text }))
        return json(view(deps.reads.changeRequests.get(request.id)!), 201)
      },
    },
    {
      method: 'PUT',
      path: `${base}/:id/title`,
      access: 'admin',
      body: true,
      docs: { body: titleSchema },
      handler: async (req) => {
        const request = find(req)
        await deps.commands.toChangeRequest(request.id, step(req, { type: 'title.set', title: parse(titleSchema, req.body).title }))
        return empty(204)
      },
    },
    {
      method: 'PUT',
      path: `${base}/:id/changes/:changeId`,
      access: 'admin',
      body: true,
      docs: { body: editChangeSchema },
      handler: async (req) => {
        const request = find(req)
        const changeId = numericId(req.params.changeId, 'changeId')
        const existing = request.changes.find((c) => c.id === changeId)
        if (!existing) throw notFound(`Could not find change ${changeId} in change request ${request.id}`)
        const input = parse(editChangeSchema, req.body)
        const { feature: _feature, ...change } = prepareChange(req, { feature: existing.feature, action: input.action ?? existing.action, payload: input.payload }, request.environment)
        await deps.commands.toChangeRequest(request.id, step(req, { type: 'change.edit', changeId, change }))
        return json(view(deps.reads.changeRequests.get(request.id)!))
      },
    },
    {
      method: 'DELETE',
      path: `${base}/:id/changes/:changeId`,
      access: 'admin',
      handler: async (req) => {
        const request = find(req)
        await deps.commands.toChangeRequest(request.id, step(req, { type: 'change.discard', changeId: numericId(req.params.changeId, 'changeId') }))
        return empty(200)
      },
    },
    {
      method: 'DELETE',
      path: `${base}/:id`,
      access: 'admin',
      handler: async (req) => {
        const request = find(req)
        await deps.commands.toChangeRequest(request.id, step(req, { type: 'discard' }))
        return empty(200)
      },
    },
  ]
}
