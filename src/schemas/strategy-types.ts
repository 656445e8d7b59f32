import * as v from 'valibot'
import { boundedString, nullableText, urlFriendlyName } from './shared.js'

export const strategyParameterSchema = v.object({
  name: v.pipe(boundedString('parameters[].name', 100), v.minLength(1, '"parameters[].name" is not allowed to be empty')),
  type: v.picklist(['string', 'percentage', 'list', 'number', 'boolean'], '"parameters[].type" must be one of string, percentage, list, number, boolean'),
  description: v.optional(boundedString('parameters[].description', 1000)),
  required: v.optional(v.boolean('"parameters[].required" must be a boolean'), false),
})

export const upsertStrategyTypeSchema = v.object({
  name: urlFriendlyName('name'),
  title: nullableText('title', 255),
  description: nullableText('description', 1000),
  editable: v.optional(v.boolean()),
  parameters: v.optional(v.pipe(v.array(strategyParameterSchema, '"parameters" must be an array'), v.maxLength(50)), []),
})
export type UpsertStrategyType = v.InferOutput<typeof upsertStrategyTypeSchema>
export type StrategyParameter = v.InferOutput<typeof strategyParameterSchema>

// PUT /api/admin/strategies/:name: Unleash 8.2 refuses a body without parameters (they are replaced).
export const updateStrategyTypeSchema = v.object({
  ...upsertStrategyTypeSchema.entries,
  parameters: v.pipe(v.array(strategyParameterSchema, '"parameters" must be an array'), v.maxLength(50)),
})
