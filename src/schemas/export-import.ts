import * as v from 'valibot'
import { legalValueSchema } from './context-fields.js'
import { featureTypes } from './features.js'
import { boundedString, closedObject, createFeatureStrategySchema, isUrlFriendly, featureVariantSchema, nullableText, tagSchema, urlFriendlyName } from './shared.js'

// Unleash's export format (exportResultSchema), read back by import. Unknown fields are dropped.

const names = (what: string, max: number) => v.pipe(v.array(urlFriendlyName(`${what}[]`), `"${what}" must be an array of names`), v.maxLength(max))

export const exportQuerySchema = v.object({
  features: v.optional(names('features', 5000)),
  environment: v.pipe(boundedString('environment', 100), v.minLength(1, '"environment" is not allowed to be empty')),
  downloadFile: v.optional(v.boolean('"downloadFile" must be a boolean')),
  tag: v.optional(boundedString('tag', 200)),
  project: v.optional(urlFriendlyName('project')),
})
export type ExportQuery = v.InferOutput<typeof exportQuerySchema>

const exportedFeatureSchema = v.object({
  name: urlFriendlyName('features[].name'),
  type: v.optional(v.picklist(featureTypes, `"features[].type" must be one of ${featureTypes.join(', ')}`), 'release'),
  description: nullableText('features[].description', 10_000),
  impressionData: v.optional(v.nullable(v.boolean('"features[].impressionData" must be a boolean')), false),
  stale: v.optional(v.nullable(v.boolean('"features[].stale" must be a boolean')), false),
  project: v.optional(v.nullable(v.string())),
})

const exportedStrategySchema = v.object({
  ...createFeatureStrategySchema.entries,
  id: v.optional(v.nullable(boundedString('featureStrategies[].id', 100))),
  featureName: urlFriendlyName('featureStrategies[].featureName'),
})

const exportedFeatureEnvironmentSchema = v.object({
  name: v.optional(urlFriendlyName('featureEnvironments[].name')),
  featureName: v.optional(urlFriendlyName('featureEnvironments[].featureName')),
  environment: v.optional(v.nullable(v.string())),
  enabled: v.boolean('"featureEnvironments[].enabled" must be a boolean'),
  variants: v.optional(v.pipe(v.array(featureVariantSchema), v.maxLength(100))),
})

const exportedContextFieldSchema = v.object({
  name: v.pipe(boundedString('contextFields[].name', 100), v.minLength(1), v.check(isUrlFriendly, '"contextFields[].name" must be URL friendly')),
  description: nullableText('contextFields[].description', 1000),
  stickiness: v.optional(v.nullable(v.boolean()), false),
  sortOrder: v.optional(v.nullable(v.pipe(v.number(), v.safeInteger()))),
  legalValues: v.optional(v.nullable(v.pipe(v.array(legalValueSchema), v.maxLength(1000))), []),
})

const exportedFeatureTagSchema = v.object({
  featureName: urlFriendlyName('featureTags[].featureName'),
  tagType: tagSchema.entries.type,
  tagValue: tagSchema.entries.value,
})

const exportedTagTypeSchema = v.object({
  name: v.pipe(boundedString('tagTypes[].name', 50), v.minLength(2, '"tagTypes[].name" must be 2 to 50 characters')),
  description: nullableText('tagTypes[].description', 1000),
  icon: nullableText('tagTypes[].icon', 1000),
})

const exportedDependencySchema = v.object({
  feature: urlFriendlyName('dependencies[].feature'),
  dependencies: v.pipe(
    v.array(
      v.object({
        feature: urlFriendlyName('dependencies[].dependencies[].feature'),
        enabled: v.optional(v.boolean(), true),
        variants: v.optional(v.pipe(v.array(urlFriendlyName('variants[]')), v.maxLength(100)), []),
      }),
    ),
    v.maxLength(10),
  ),
})

const list = <S extends v.GenericSchema>(item: S, max = 5000) => v.optional(v.pipe(v.array(item), v.maxLength(max)), [])

export const exportDataSchema = v.object({
  features: v.pipe(v.array(exportedFeatureSchema, '"data.features" must be an array'), v.maxLength(5000)),
  featureStrategies: list(exportedStrategySchema, 50_000),
  featureEnvironments: list(exportedFeatureEnvironmentSchema),
  contextFields: list(exportedContextFieldSchema, 1000),
  featureTags: list(exportedFeatureTagSchema, 50_000),
  segments: list(v.object({ id: v.pipe(v.number(), v.safeInteger()), name: boundedString('segments[].name', 200) }), 1000),
  tagTypes: list(exportedTagTypeSchema, 1000),
  dependencies: list(exportedDependencySchema),
})
export type ExportData = v.InferOutput<typeof exportDataSchema>

export const importSchema = closedObject({
  project: urlFriendlyName('project'),
  environment: urlFriendlyName('environment'),
  data: exportDataSchema,
})
export type ImportInput = v.InferOutput<typeof importSchema>
