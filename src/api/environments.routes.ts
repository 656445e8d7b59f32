import type { Environment } from '../domain/instance-state.js'
import type { Request, Route } from '../http/types.js'
import { environmentView, projectEnvironmentsView } from '../read/admin-views.js'
import { createEnvironmentSchema, updateEnvironmentSchema } from '../schemas/environments.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { committedEnvironment, committedProject } from './lookups.js'
import { parse } from './parse.js'
import { environmentResponse, environmentsResponse, projectEnvironmentsResponse } from '../schemas/responses.js'

export const environmentRoutes = (deps: ApiDeps): Route[] => {
  const view = (environment: Environment) => {
    let projectCount = 0
    for (const project of deps.reads.projects.values()) if (project.environments.has(environment.name)) projectCount++
    return environmentView(environment, projectCount)
  }
  const find = (name: string) => committedEnvironment(deps, name)
  const toggle = (enabled: boolean) => async (req: Request) => {
    await deps.commands.toInstance({ type: 'environment.toggle', name: req.params.name, enabled, meta: metaOf(deps, req) })
    return empty(204)
  }
  return [
    {
      method: 'GET',
      path: '/api/admin/environments',
      access: 'admin',
      docs: { responses: { 200: environmentsResponse } },
      handler: () => {
        const environments = [...deps.reads.instance.environments.values()]
          .sort((a, b) => a.sortOrder - b.sortOrder || a.name.localeCompare(b.name))
          .map(view)
        return json({ version: 1, environments })
      },
    },
    {
      method: 'POST',
      path: '/api/admin/environments',
      access: 'admin',
      permission: 'ADMIN',
      body: true,
      docs: { body: createEnvironmentSchema, responses: { 201: environmentResponse } },
      handler: async (req) => {
        const input = parse(createEnvironmentSchema, req.body)
        await deps.commands.toInstance({ type: 'environment.create', input, meta: metaOf(deps, req) })
        return json(view(find(input.name)), 201)
      },
    },
    {
      method: 'GET',
      path: '/api/admin/environments/project/:projectId',
      access: 'admin',
      docs: { summary: 'Every environment as the project sees it', responses: { 200: projectEnvironmentsResponse } },
      handler: (req) => {
        const instance = deps.reads.instance
        const project = committedProject(deps, req.params.projectId)
        return json({ version: 1, environments: projectEnvironmentsView(project, instance.environments.values(), instance.apiTokens.values()) })
      },
    },
    { method: 'GET', path: '/api/admin/environments/:name', access: 'admin', docs: { responses: { 200: environmentResponse } }, handler: (req) => json(view(find(req.params.name))) },
    {
      method: 'PUT',
      path: '/api/admin/environments/update/:name',
      access: 'admin',
      permission: 'ADMIN',
      body: true,
      docs: { body: updateEnvironmentSchema },
      handler: async (req) => {
        const input = parse(updateEnvironmentSchema, req.body)
        await deps.commands.toInstance({ type: 'environment.update', name: req.params.name, input, meta: metaOf(deps, req) })
        return json(view(find(req.params.name)))
      },
    },
    {
      method: 'DELETE',
      path: '/api/admin/environments/:name',
      access: 'admin',
      permission: 'ADMIN',
      handler: async (req) => {
        const name = req.params.name
        find(name)
        const meta = metaOf(deps, req)
        // Every project lets go of it (its flags' configuration there goes too), then it is deleted: one append.
        const steps = [...deps.reads.projects]
          .filter(([, project]) => project.environments.has(name))
          .map(([projectId]) => ({ projectId, command: { type: 'projectEnvironment.dropDeleted' as const, environment: name, meta } }))
        await deps.commands.together(steps, [{ type: 'environment.delete', name, meta }])
        return empty(200)
      },
    },
    { method: 'POST', path: '/api/admin/environments/:name/on', access: 'admin', permission: 'ADMIN', handler: toggle(true) },
    { method: 'POST', path: '/api/admin/environments/:name/off', access: 'admin', permission: 'ADMIN', handler: toggle(false) },
  ]
}
