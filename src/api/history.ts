import { worldAt, type LogPoint, type World } from '../actors/recovery.js'
import { badData, notFound } from '../domain/errors.js'
import type { Feature, ProjectState } from '../domain/project-state.js'
import type { Request } from '../http/types.js'
import { childrenIn, type AdminViewContext } from '../read/admin-views.js'
import { ClientFeatures, type ClientPayload, type ClientQuery } from '../read/client-features.js'
import { ClientRevisions } from '../read/client-revisions.js'
import type { ApiDeps } from './deps.js'
import { viewerKey } from './viewer.js'

export interface PastWorld {
  world: World
  // The event the world stops after.
  lastId: number
}

const isoDateTime = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/

const pointOf = (raw: string): LogPoint => {
  if (/^\d+$/.test(raw)) {
    const id = Number(raw)
    if (!Number.isSafeInteger(id) || id < 1) throw badData(`"at" must be an event id of 1 or more or an ISO 8601 date-time; got "${raw.slice(0, 40)}"`)
    return { id }
  }
  const time = Date.parse(raw)
  if (!isoDateTime.test(raw) || Number.isNaN(time)) throw badData(`"at" must be an event id or an ISO 8601 date-time; got "${raw.slice(0, 40)}"`)
  return { time }
}

// `?at=<event id | ISO time>`: the state just after that event (or the last one at or before that time),
// rebuilt from the log; undefined when the request asks for the present.
export const pastWorld = (deps: ApiDeps, req: Request): PastWorld | undefined => {
  const raw = req.query.get('at')
  if (raw === null) return undefined
  const point = pointOf(raw)
  return 'id' in point ? worldAfter(deps, point.id, 'at') : worldAt(deps.log, point)
}

// The state just after event `id`; a 400 naming `field` when the log holds no such event yet.
export const worldAfter = (deps: ApiDeps, id: number, field: string): PastWorld => {
  const newest = deps.reads.lastId
  if (id > newest) throw badData(`"${field}": there is no event ${id}; the newest is ${newest}`)
  return worldAt(deps.log, { id })
}

const existedMessage = (what: string, past: PastWorld) => `${what} did not exist just after event ${past.lastId}`

export const pastProject = (past: PastWorld, projectId: string): ProjectState => {
  const project = past.world.projects.get(projectId)
  if (!project) throw notFound(existedMessage(`Project ${projectId}`, past))
  return project
}

export const pastFeature = (past: PastWorld, projectId: string, featureName: string): Feature => {
  const feature = pastProject(past, projectId).features.get(featureName)
  if (!feature) throw notFound(existedMessage(`Feature flag "${featureName}" in project "${projectId}"`, past))
  return feature
}

// Last seen and the metric-driven lifecycle stages come from SDK metrics, which the log does not keep.
export const pastViewContext = (past: PastWorld, project: ProjectState, req: Request): AdminViewContext => ({
  environments: past.world.instance.environments,
  lastSeen: () => null,
  childrenOf: childrenIn(project),
  viewer: viewerKey(req),
})

// What SDKs were served then: the same builder as the live payload, over the past state.
export const pastClientPayload = (past: PastWorld, query: ClientQuery): ClientPayload =>
  new ClientFeatures({
    projects: () => past.world.projects,
    segments: () => past.world.instance.segments,
    revisions: new ClientRevisions(past.lastId),
  }).payload(query)
