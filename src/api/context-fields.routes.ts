import { contextFieldInUse } from '../domain/usage.js'
import * as v from 'valibot'
import { notFound } from '../domain/errors.js'
import type { ContextField } from '../domain/instance-state.js'
import type { Route } from '../http/types.js'
import { upsertContextFieldSchema } from '../schemas/context-fields.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { parse } from './parse.js'
import { committedProject } from './lookups.js'

export const contextFieldRoutes = (deps: ApiDeps): Route[] => {
  const fields = () => [...deps.reads.instance.contextFields.values()]
  const rootFields = () => fields().sort((a, b) => a.sortOrder - b.sortOrder || a.name.localeCompare(b.name))
  const find = (name: string): ContextField => {
    const field = deps.reads.instance.contextFields.get(name)
    if (!field) throw notFound(`Could not find context field with name ${name}`)
    return field
  }
  return [
    {
      method: 'GET',
      path: '/api/admin/context',
      access: 'admin',
      handler: () => json(rootFields()),
    },
    {
      // Every context field here is instance-wide (Unleash's project-specific fields are not kept): a
      // project has none of its own, and with ?include=root it lists the instance's.
      method: 'GET',
      path: '/api/admin/projects/:projectId/context',
      access: 'admin',
      docs: { summary: "The project's context fields", query: { include: '"root" adds the instance-wide context fields' } },
      handler: (req) => {
        committedProject(deps, req.params.projectId)
        return json(req.query.get('include') === 'root' ? rootFields() : [])
      },
    },
    {
      method: 'POST',
      path: '/api/admin/context',
      access: 'admin',
      permission: 'CREATE_CONTEXT_FIELD',
      body: true,
      docs: { body: upsertContextFieldSchema },
      handler: async (req) => {
        const input = parse(upsertContextFieldSchema, req.body)
        await deps.commands.toInstance({ type: 'contextField.create', input, meta: metaOf(deps, req) })
        return { status: 201, body: find(input.name), headers: { location: `context/${input.name}` } }
      },
    },
    { method: 'GET', path: '/api/admin/context/:name', access: 'admin', handler: (req) => json(find(req.params.name)) },
    {
      method: 'PUT',
      path: '/api/admin/context/:name',
      access: 'admin',
      permission: 'UPDATE_CONTEXT_FIELD',
      body: true,
      // The name comes from the path; one in the body is overridden.
      docs: { body: v.partial(upsertContextFieldSchema, ['name']) },
      handler: async (req) => {
        const input = parse(upsertContextFieldSchema, { name: req.params.name, ...(req.body as object) })
        await deps.commands.toInstance({ type: 'contextField.update', name: req.params.name, input, meta: metaOf(deps, req) })
        return empty(200)
      },
    },
    {
      method: 'DELETE',
      path: '/api/admin/context/:name',
      access: 'admin',
      permission: 'DELETE_CONTEXT_FIELD',
      handler: async (req) => {
        const inUse = contextFieldInUse(deps.reads.projects, req.params.name)
        await deps.commands.toInstance({ type: 'contextField.delete', name: req.params.name, inUse, meta: metaOf(deps, req) })
        return empty(200)
      },
    },
  ]
}
