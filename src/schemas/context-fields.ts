import * as v from 'valibot'
import { boundedString, closedObject, isUrlFriendly, nullableText } from './shared.js'

export const legalValueSchema = closedObject({
  value: v.pipe(boundedString('legalValues[].value', 100), v.minLength(1, '"legalValues[].value" is not allowed to be empty')),
  description: v.optional(boundedString('legalValues[].description', 1000)),
})

export const upsertContextFieldSchema = v.object({
  name: v.pipe(
    boundedString('name', 100),
    v.minLength(1, '"name" is not allowed to be empty'),
    v.check(isUrlFriendly, '"name" must be URL friendly'),
  ),
  description: nullableText('description', 1000),
  stickiness: v.optional(v.boolean('"stickiness" must be a boolean'), false),
  sortOrder: v.optional(v.pipe(v.number(), v.safeInteger())),
  legalValues: v.optional(v.pipe(v.array(legalValueSchema, '"legalValues" must be an array'), v.maxLength(1000, '"legalValues" may hold at most 1000 items')), []),
})
export type UpsertContextField = v.InferOutput<typeof upsertContextFieldSchema>
