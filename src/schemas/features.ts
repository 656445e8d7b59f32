import * as v from 'valibot'
import { boundedString, closedObject, createFeatureStrategySchema, nullableText, tagSchema, urlFriendlyName } from './shared.js'

export const featureTypes = ['release', 'experiment', 'operational', 'kill-switch', 'permission', 'sunset'] as const

const featureType = v.picklist(featureTypes, `"type" must be one of ${featureTypes.join(', ')}`)

export const createFeatureSchema = v.object({
  name: urlFriendlyName('name'),
  type: v.optional(featureType, 'release'),
  description: nullableText('description', 10_000),
  impressionData: v.optional(v.boolean('"impressionData" must be a boolean'), false),
  tags: v.optional(v.pipe(v.array(tagSchema), v.maxLength(100))),
})
export type CreateFeature = v.InferOutput<typeof createFeatureSchema>

export const updateFeatureSchema = v.object({
  name: v.optional(v.string()),
  type: v.optional(featureType),
  description: nullableText('description', 10_000),
  impressionData: v.optional(v.boolean('"impressionData" must be a boolean')),
  stale: v.optional(v.boolean('"stale" must be a boolean')),
  archived: v.optional(v.boolean('"archived" must be a boolean')),
  project: v.optional(v.string()),
})
export type UpdateFeature = v.InferOutput<typeof updateFeatureSchema>

// PUT …/features/:featureName replaces the metadata (Unleash 8.2, featureMetadataSchema): a field left out
// goes back to its default (the description to none).
export const replaceFeatureSchema = v.object({
  ...updateFeatureSchema.entries,
  type: v.optional(featureType, 'release'),
  impressionData: v.optional(v.boolean('"impressionData" must be a boolean'), false),
  stale: v.optional(v.boolean('"stale" must be a boolean'), false),
})
export type ReplaceFeature = v.InferOutput<typeof replaceFeatureSchema>

export const validateFeatureNameSchema = v.object({
  name: urlFriendlyName('name'),
  projectId: v.optional(urlFriendlyName('projectId')),
})

export const jsonPatchSchema = v.pipe(
  v.array(
    v.object({
      op: v.picklist(['add', 'remove', 'replace', 'move', 'copy', 'test'], '"op" must be one of add, remove, replace, move, copy, test'),
      path: boundedString('path', 1000),
      from: v.optional(boundedString('from', 1000)),
      value: v.optional(v.unknown()),
    }),
    'The body must be a JSON patch: an array of operations',
  ),
  v.maxLength(100, 'A patch may hold at most 100 operations'),
)
export type JsonPatch = v.InferOutput<typeof jsonPatchSchema>

export const updateFeatureStrategySchema = v.object({
  ...createFeatureStrategySchema.entries,
  name: v.optional(createFeatureStrategySchema.entries.name),
})
export type UpdateFeatureStrategy = v.InferOutput<typeof updateFeatureStrategySchema>

export const strategySortOrderSchema = v.pipe(
  v.array(v.object({ id: boundedString('id', 100), sortOrder: v.pipe(v.number('"sortOrder" must be a number'), v.safeInteger('"sortOrder" must be an integer')) })),
  v.maxLength(1000),
)

// POST …/features/:featureName/revert: ours, not Unleash's.
export const revertFeatureSchema = closedObject({
  toEventId: v.pipe(v.number('"toEventId" must be an event id'), v.safeInteger('"toEventId" must be an event id'), v.minValue(1, '"toEventId" must be an event id of 1 or more')),
})

// POST …/features/:featureName/changeProject
export const changeProjectSchema = v.object({
  newProjectId: urlFriendlyName('newProjectId'),
})

export const featureNamesSchema = v.object({
  features: v.pipe(v.array(urlFriendlyName('features[]'), '"features" must be an array of names'), v.maxLength(1000)),
})
