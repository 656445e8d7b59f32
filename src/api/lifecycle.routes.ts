import type { Route } from '../http/types.js'
import { featureLifecycle } from '../read/admin-views.js'
import { completeFeatureSchema, staleFeaturesSchema } from '../schemas/lifecycle.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { committedFeature } from './lookups.js'
import { parse } from './parse.js'

const featurePath = '/api/admin/projects/:projectId/features/:featureName'

// Lifecycle (SEMANTICS 11.6) and staleness (11.2) of flags.
export const lifecycleRoutes = (deps: ApiDeps): Route[] => [
  {
    method: 'GET',
    path: `${featurePath}/lifecycle`,
    access: 'admin',
    handler: (req) => {
      const feature = committedFeature(deps, req.params.projectId, req.params.featureName)
      const stages = featureLifecycle(feature, { metricStages: (name) => deps.lifecycleStages.of(name) })
      return json(stages.map((s) => ({ stage: s.stage, ...(s.status ? { status: s.status } : {}), ...(s.statusValue !== undefined ? { statusValue: s.statusValue } : {}), enteredStageAt: s.enteredStageAt })))
    },
  },
  {
    method: 'POST',
    path: `${featurePath}/lifecycle/complete`,
    access: 'admin',
    permission: 'UPDATE_FEATURE',
    body: true,
    docs: { body: completeFeatureSchema },
    handler: async (req) => {
      const input = parse(completeFeatureSchema, req.body)
      await deps.commands.toProject(req.params.projectId, { type: 'feature.complete', feature: req.params.featureName, input, meta: metaOf(deps, req) })
      return empty(200)
    },
  },
  {
    method: 'POST',
    path: `${featurePath}/lifecycle/uncomplete`,
    access: 'admin',
    permission: 'UPDATE_FEATURE',
    handler: async (req) => {
      await deps.commands.toProject(req.params.projectId, { type: 'feature.uncomplete', feature: req.params.featureName, meta: metaOf(deps, req) })
      return empty(200)
    },
  },
  {
    method: 'POST',
    path: '/api/admin/projects/:projectId/stale',
    access: 'admin',
    permission: 'UPDATE_FEATURE',
    body: true,
    docs: { body: staleFeaturesSchema },
    handler: async (req) => {
      const { features, stale } = parse(staleFeaturesSchema, req.body)
      await deps.commands.toProject(req.params.projectId, { type: 'feature.setStale', names: features, stale, meta: metaOf(deps, req) })
      return empty(202)
    },
  },
]
