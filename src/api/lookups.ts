import { notFound } from '../domain/errors.js'
import type { Environment } from '../domain/instance-state.js'
import type { Feature, ProjectState } from '../domain/project-state.js'
import { childrenIn, type AdminViewContext } from '../read/admin-views.js'
import type { ApiDeps } from './deps.js'
import type { Request } from '../http/types.js'
import { viewerKey } from './viewer.js'
import { flagSeenKey } from '../read/seen-times.js'

export const committedProject = (deps: ApiDeps, projectId: string): ProjectState => {
  const project = deps.reads.projects.get(projectId)
  if (!project) throw notFound(`Project ${projectId} does not exist`)
  return project
}

export const committedEnvironment = (deps: Pick<ApiDeps, 'reads'>, name: string): Environment => {
  const environment = deps.reads.instance.environments.get(name)
  if (!environment) throw notFound(`Could not find environment with name: ${name}`)
  return environment
}

export const committedFeature = (deps: ApiDeps, projectId: string, featureName: string): Feature => {
  const feature = committedProject(deps, projectId).features.get(featureName)
  if (!feature) throw notFound(`Could not find feature flag "${featureName}" in project "${projectId}"`)
  return feature
}

export const locateFeature = (deps: ApiDeps, featureName: string): Feature | undefined => {
  for (const project of deps.reads.projects.values()) {
    const feature = project.features.get(featureName)
    if (feature) return feature
  }
  return undefined
}

export const viewContext = (deps: ApiDeps, project: ProjectState, req?: Request): AdminViewContext => ({
  environments: deps.reads.instance.environments,
  lastSeen: (feature, environment) => deps.lastSeen.of(flagSeenKey(feature, environment)),
  childrenOf: childrenIn(project),
  viewer: req && viewerKey(req),
  metricStages: (feature) => deps.lifecycleStages.of(feature),
})

// Whether an SDK reported evaluating the flag in any environment (its last-seen times).
export const seenBySdks = (deps: ApiDeps) => (feature: string): boolean => {
  for (const environment of deps.reads.instance.environments.keys()) if (deps.lastSeen.of(flagSeenKey(feature, environment)) !== null) return true
  return false
}

// The address the UI is reached at, for links made for it: UNLEASH_URL when given, else the host the
// request was sent to (as the cross-origin check takes it), so links work behind a proxy too.
export const publicUrlFor = (deps: Pick<ApiDeps, 'config'>, req: Request): string => {
  const host = req.header('host')
  return deps.config.publicOrigin === undefined && host ? `http://${host}` : deps.config.publicUrl
}
