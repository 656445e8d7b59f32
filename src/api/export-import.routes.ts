import { notFound } from '../domain/errors.js'
import { importIdsNeeded, importRefusal, prepareImport, validateImport, type ImportFacts } from '../domain/feature-import.js'
import type { Request, Route } from '../http/types.js'
import { exportFeatures, exportedFeatureNames } from '../read/feature-export.js'
import { exportQuerySchema, importSchema, type ImportInput } from '../schemas/export-import.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { parse } from './parse.js'
import { newId } from '../new-id.js'

// Unleash's features-batch API: export flags of one environment, validate and import them into a
// project's environment (SEMANTICS; Unleash's export-import-service).
export const exportImportRoutes = (deps: ApiDeps): Route[] => {
  // Decided state: what the import command will be decided against right after.
  const factsFor = (projectId: string): ImportFacts => {
    const instance = deps.reads.instance
    const projects = [...deps.reads.projects]
    return {
      project: projects.find(([id]) => id === projectId)?.[1],
      featureLocation: (name) => {
        for (const [id, state] of projects) {
          const feature = state.features.get(name)
          if (feature) return { project: id, archived: feature.archived }
        }
        return undefined
      },
      strategyTypes: instance.strategyTypes,
      contextFields: instance.contextFields,
      segments: [...instance.segments.values()],
      environments: instance.environments,
    }
  }

  // The permissions an import of this data needs, in the target project and environment.
  const neededPermissions = (input: ImportInput, facts: ImportFacts): string[] => {
    const instance = deps.reads.instance
    const needed = ['CREATE_FEATURE', 'UPDATE_FEATURE', 'UPDATE_FEATURE_ENVIRONMENT', 'CREATE_FEATURE_STRATEGY', 'DELETE_FEATURE_STRATEGY']
    if (input.data.tagTypes.some((t) => !instance.tagTypes.has(t.name))) needed.push('CREATE_TAG_TYPE')
    if (input.data.contextFields.some((f) => !facts.contextFields.has(f.name))) needed.push('CREATE_CONTEXT_FIELD')
    return needed
  }
  const missingPermissions = (req: Request, input: ImportInput, facts: ImportFacts) =>
    neededPermissions(input, facts).filter((p) => !req.principal?.can(p, input.project, input.environment))

  return [
    {
      method: 'POST',
      path: '/api/admin/features-batch/export',
      access: 'admin',
      body: true,
      docs: { body: exportQuerySchema },
      handler: async (req) => {
        const query = parse(exportQuerySchema, req.body)
        const source = { instance: deps.reads.instance, projects: deps.reads.projects }
        const result = exportFeatures(source, exportedFeatureNames(source, query), query.environment)
        await deps.commands.toInstance({ type: 'features.recordExport', data: result, environment: query.environment, meta: metaOf(deps, req) })
        const headers: Record<string, string> = query.downloadFile
          ? { 'content-disposition': `attachment; filename=export-${deps.clock().toISOString().slice(0, 10)}.json` }
          : {}
        return { status: 200, body: result, headers }
      },
    },
    {
      method: 'POST',
      path: '/api/admin/features-batch/validate',
      access: 'admin',
      body: true,
      docs: { body: importSchema },
      handler: (req) => {
        const input = parse(importSchema, req.body)
        const facts = factsFor(input.project)
        if (!facts.project) throw notFound(`Project ${input.project} does not exist`)
        const validation = validateImport(input, facts)
        const missing = missingPermissions(req, input, facts)
        const permissions = missing.length > 0 ? [{ message: 'We detected you are missing the following permissions:', affectedItems: missing }] : []
        return json({ ...validation, permissions })
      },
    },
    {
      method: 'POST',
      path: '/api/admin/features-batch/import',
      access: 'admin',
      body: true,
      docs: { body: importSchema },
      handler: async (req) => {
        const input = parse(importSchema, req.body)
        const facts = factsFor(input.project)
        if (!facts.project) throw notFound(`Project ${input.project} does not exist`)
        for (const permission of neededPermissions(input, facts)) req.authorize(permission, input.project, input.environment)
        const { errors } = validateImport(input, facts)
        if (errors.length > 0) throw importRefusal(errors)
        const prepared = prepareImport(input, facts)
        const meta = metaOf(deps, req)
        // Instance first (tag types, context fields, new tags), then every flag change in one project command.
        const tags = prepared.plan.tags.map((t) => t.tag)
        await deps.commands.toInstance({ type: 'import.prepare', tagTypes: prepared.tagTypes, contextFields: prepared.contextFields, tags, meta })
        const ids = Array.from({ length: importIdsNeeded(prepared.plan) }, () => newId())
        await deps.commands.toProject(input.project, { type: 'features.import', plan: prepared.plan, ids, meta })
        return empty(200)
      },
    },
  ]
}
