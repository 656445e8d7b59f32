import { badData, notFound } from '../domain/errors.js'
import { legacyVariantsOf } from '../domain/feature-variants.js'
import { PatchError, applyJsonPatch } from '../domain/json-patch.js'
import type { Request, Route } from '../http/types.js'
import { jsonPatchSchema, type JsonPatch } from '../schemas/features.js'
import { featureVariantsSchema, variantsBatchSchema } from '../schemas/variants.js'
import type { FeatureVariant } from '../schemas/shared.js'
import { json, metaOf, type ApiDeps } from './deps.js'
import { committedFeature } from './lookups.js'
import { parse } from './parse.js'
import { variantsResponse } from '../schemas/responses.js'

const featurePath = '/api/admin/projects/:projectId/features/:featureName'

const patched = (variants: FeatureVariant[], patch: JsonPatch): unknown => {
  try {
    return applyJsonPatch(variants, patch)
  } catch (error) {
    if (error instanceof PatchError) throw badData(`Could not apply provided patch: ${error.message}`)
    throw error
  }
}

export const variantRoutes = (deps: ApiDeps): Route[] => {
  const current = (req: Request) => {
    const feature = committedFeature(deps, req.params.projectId, req.params.featureName)
    const env = feature.environments.get(req.params.environment)
    if (!env) throw notFound(`Could not find environment ${req.params.environment} for feature: ${feature.name}`)
    return env.variants
  }
  const write = async (req: Request, variants: FeatureVariant[]) => {
    await deps.commands.toProject(req.params.projectId, {
      type: 'variants.set',
      feature: req.params.featureName,
      environments: [req.params.environment],
      variants,
      meta: metaOf(deps, req),
    })
    return json({ version: 1, variants: current(req) })
  }
  // Legacy flag-level variants (SEMANTICS 3.5): read from the first production environment, written to all.
  const legacy = (req: Request) =>
    legacyVariantsOf(committedFeature(deps, req.params.projectId, req.params.featureName), deps.reads.instance.environments)
  const writeLegacy = async (req: Request, variants: FeatureVariant[]) => {
    await deps.commands.toProject(req.params.projectId, {
      type: 'variants.setLegacy',
      feature: req.params.featureName,
      variants,
      meta: metaOf(deps, req),
    })
    return json({ version: 1, variants: legacy(req) })
  }
  return [
    {
      method: 'GET',
      path: `${featurePath}/environments/:environment/variants`,
      access: 'admin',
      docs: { responses: { 200: variantsResponse } },
      handler: (req) => json({ version: 1, variants: current(req) }),
    },
    {
      method: 'PUT',
      path: `${featurePath}/environments/:environment/variants`,
      access: 'admin',
      permission: 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS',
      body: true,
      docs: { body: featureVariantsSchema, responses: { 200: variantsResponse } },
      handler: (req) => write(req, parse(featureVariantsSchema, req.body)),
    },
    {
      method: 'PATCH',
      path: `${featurePath}/environments/:environment/variants`,
      access: 'admin',
      permission: 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS',
      body: true,
      docs: { body: jsonPatchSchema, responses: { 200: variantsResponse } },
      handler: (req) => write(req, parse(featureVariantsSchema, patched(current(req), parse(jsonPatchSchema, req.body)))),
    },
    {
      method: 'PUT',
      path: `${featurePath}/variants-batch`,
      access: 'admin',
      permission: 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS',
      body: true,
      docs: { body: variantsBatchSchema, responses: { 200: variantsResponse } },
      handler: async (req) => {
        const input = parse(variantsBatchSchema, req.body)
        await deps.commands.toProject(req.params.projectId, {
          type: 'variants.set',
          feature: req.params.featureName,
          environments: input.environments,
          variants: input.variants,
          meta: metaOf(deps, req),
        })
        // Unleash echoes the input with its defaults, not the normalised weights.
        return json({ version: 1, variants: input.variants })
      },
    },
    {
      method: 'GET',
      path: `${featurePath}/variants`,
      access: 'admin',
      docs: { responses: { 200: variantsResponse } },
      handler: (req) => json({ version: 1, variants: legacy(req) }),
    },
    {
      method: 'PUT',
      path: `${featurePath}/variants`,
      access: 'admin',
      permission: 'UPDATE_FEATURE_VARIANTS',
      body: true,
      docs: { body: featureVariantsSchema, responses: { 200: variantsResponse } },
      handler: (req) => writeLegacy(req, parse(featureVariantsSchema, req.body)),
    },
    {
      method: 'PATCH',
      path: `${featurePath}/variants`,
      access: 'admin',
      permission: 'UPDATE_FEATURE_VARIANTS',
      body: true,
      docs: { body: jsonPatchSchema, responses: { 200: variantsResponse } },
      handler: (req) => writeLegacy(req, parse(featureVariantsSchema, patched(legacy(req), parse(jsonPatchSchema, req.body)))),
    },
  ]
}
