import * as v from 'valibot'
import { boundedString, constraintSchema, nullableText } from './shared.js'

export const upsertSegmentSchema = v.object({
  name: v.pipe(boundedString('name', 255), v.trim(), v.minLength(1, '"name" is not allowed to be empty')),
  description: nullableText('description', 1000),
  project: v.nullish(boundedString('project', 100)),
  constraints: v.pipe(v.array(constraintSchema, '"constraints" must be an array'), v.maxLength(100, 'A segment may have at most 100 constraints')),
})
export type UpsertSegment = v.InferOutput<typeof upsertSegmentSchema>
