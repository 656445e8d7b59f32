import * as v from 'valibot'
import { changeRequestRequired } from '../domain/change-request-rules.js'
import { notFound } from '../domain/errors.js'
import { recordOfType } from '../domain/events.js'
import type { Segment } from '../domain/instance-state.js'
import type { Request, Route } from '../http/types.js'
import { upsertSegmentSchema } from '../schemas/segments.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { parse } from './parse.js'
import { errorResponse, segmentResponse, segmentStrategiesResponse, segmentsResponse } from '../schemas/responses.js'

const idParams = v.object({
  id: v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,9}$/, '"id" must be a positive whole number'), v.transform(Number)),
})

export const segmentRoutes = (deps: ApiDeps): Route[] => {
  const usage = (segmentId: number) => {
    const projects = new Set<string>()
    const features = new Set<string>()
    for (const [projectId, project] of deps.reads.projects) {
      for (const feature of project.features.values()) {
        for (const env of feature.environments.values()) {
          if (env.strategies.some((s) => s.segments.includes(segmentId))) {
            projects.add(projectId)
            features.add(feature.name)
          }
        }
      }
    }
    return { usedInProjects: projects.size, usedInFeatures: features.size }
  }
  const view = (segment: Segment) => ({ ...segment, ...usage(segment.id) })
  const find = (req: Request) => {
    const { id } = parse(idParams, req.params, 'params')
    const segment = deps.reads.instance.segments.get(id)
    if (!segment) throw notFound(`Could not find segment with id ${id}`)
    return segment
  }
  // SEMANTICS 12: a project's segment goes through a change request when any of the project's
  // environments requires them (updateSegment / deleteSegment changes), unless the caller may skip.
  const requireNoChangeRequest = (req: Request, id: number) => {
    const project = deps.reads.instance.segments.get(id)?.project
    const state = project ? deps.reads.projects.get(project) : undefined
    if (!project || !state) return
    const blocked = [...state.environments.values()].find(
      (env) => env.changeRequestsEnabled && req.principal?.can('SKIP_CHANGE_REQUEST', project, env.environment) !== true,
    )
    if (blocked) throw changeRequestRequired()
  }

  return [
    {
      method: 'GET',
      path: '/api/admin/segments',
      access: 'admin',
      docs: { responses: { 200: segmentsResponse } },
      handler: () => json({ segments: [...deps.reads.instance.segments.values()].map(view) }),
    },
    {
      method: 'POST',
      path: '/api/admin/segments',
      access: 'admin',
      permission: 'CREATE_SEGMENT',
      body: true,
      docs: { body: upsertSegmentSchema, responses: { 201: segmentResponse } },
      handler: async (req) => {
        const input = parse(upsertSegmentSchema, req.body)
        const event = recordOfType(await deps.commands.toInstance({ type: 'segment.create', input, meta: metaOf(deps, req) }), 'segment-created')
        return { status: 201, body: view(deps.reads.instance.segments.get(event.data.id)!), headers: { location: `segments/${event.data.id}` } }
      },
    },
    { method: 'GET', path: '/api/admin/segments/:id', access: 'admin', docs: { responses: { 200: segmentResponse } }, handler: (req) => json(view(find(req))) },
    {
      method: 'PUT',
      path: '/api/admin/segments/:id',
      access: 'admin',
      permission: 'UPDATE_SEGMENT',
      body: true,
      docs: { body: upsertSegmentSchema, responses: { 204: null } },
      handler: async (req) => {
        const { id } = parse(idParams, req.params, 'params')
        const input = parse(upsertSegmentSchema, req.body)
        requireNoChangeRequest(req, id)
        await deps.commands.toInstance({ type: 'segment.update', id, input, meta: metaOf(deps, req) })
        return empty(204)
      },
    },
    {
      method: 'DELETE',
      path: '/api/admin/segments/:id',
      access: 'admin',
      permission: 'DELETE_SEGMENT',
      // A segment still used by a strategy is refused with 409.
      docs: { responses: { 204: null, 409: errorResponse } },
      handler: async (req) => {
        const { id } = parse(idParams, req.params, 'params')
        // Unleash answers a segment in use with a bare 409; ours carries the error body saying why.
        requireNoChangeRequest(req, id)
        await deps.commands.toInstance({ type: 'segment.delete', id, meta: metaOf(deps, req) })
        return empty(204)
      },
    },
    {
      method: 'GET',
      path: '/api/admin/segments/:id/strategies',
      access: 'admin',
      docs: { responses: { 200: segmentStrategiesResponse } },
      handler: (req) => {
        const segment = find(req)
        const strategies = []
        for (const [projectId, project] of deps.reads.projects) {
          for (const feature of project.features.values()) {
            for (const [environment, env] of feature.environments) {
              for (const s of env.strategies) {
                if (s.segments.includes(segment.id)) {
                  strategies.push({ id: s.id, projectId, featureName: feature.name, strategyName: s.name, environment })
                }
              }
            }
          }
        }
        return json({ strategies, changeRequestStrategies: [] })
      },
    },
  ]
}
