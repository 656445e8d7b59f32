import type { Route } from '../http/types.js'
import type { Evaluators } from '../read/evaluators.js'
import { playgroundRequestSchema } from '../schemas/playground.js'
import { json, type ApiDeps } from './deps.js'
import { parse } from './parse.js'

const editLink = (project: string, feature: string, environment: string, strategyId: string) =>
  `/projects/${encodeURIComponent(project)}/features/${encodeURIComponent(feature)}/strategies/edit?environmentId=${encodeURIComponent(environment)}&strategyId=${encodeURIComponent(strategyId)}`

// The playground answers what an SDK would (SEMANTICS 6, following the SDK where Unleash's own differs).
export const playgroundRoutes = (deps: ApiDeps, evaluators: Evaluators): Route[] => [
  {
    method: 'POST',
    path: '/api/admin/playground',
    access: 'admin',
    body: true,
    handler: (req) => {
      const input = parse(playgroundRequestSchema, req.body)
      const evaluator = evaluators.for(input.environment)
      const inScope = input.projects === '*' ? () => true : (project: string) => (input.projects as string[]).includes(project)
      const features = []
      for (const [projectId, project] of deps.registry.committedProjects) {
        if (!inScope(projectId)) continue
        for (const feature of project.features.values()) {
          if (feature.archived) continue
          const explained = evaluator.explain(feature.name, input.context)
          deps.served.evaluations++
          if (!explained) continue
          for (const strategy of explained.strategies.data) {
            strategy.links = { edit: editLink(projectId, feature.name, input.environment, strategy.id) }
          }
          features.push(explained)
        }
      }
      features.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      return json({ input, features })
    },
  },
]
