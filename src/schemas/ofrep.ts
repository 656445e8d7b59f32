import * as v from 'valibot'
import { boundedString } from './shared.js'

// The OpenFeature Remote Evaluation Protocol (open-feature/protocol, service/openapi.yaml): the request of
// both evaluation endpoints and their answers.
const contextValue = v.union([v.string(), v.number(), v.boolean(), v.null(), v.record(v.string(), v.unknown()), v.array(v.unknown())])

export const ofrepRequestSchema = v.object(
  {
  context: v.optional(
    v.pipe(
      v.looseObject({
        targetingKey: v.optional(v.union([boundedString('context.targetingKey', 1000), v.number()], '"context.targetingKey" must be a string')),
      }, '"context" must be an object'),
      v.check((context) => Object.keys(context).length <= 200, 'the context may hold at most 200 fields'),
      v.check((context) => Object.values(context).every((value) => v.is(contextValue, value)), 'context values must be strings, numbers, booleans, objects or arrays'),
    ),
    {},
  ),
  },
  'the body must be an object with a "context"',
)

export const ofrepReasons = ['TARGETING_MATCH', 'SPLIT', 'DISABLED', 'DEFAULT'] as const

export const ofrepEvaluationResponse = v.object({
  key: v.string(),
  reason: v.picklist(ofrepReasons),
  // Absent when the provider is to use the default in the application's code.
  value: v.optional(v.union([v.boolean(), v.string(), v.number(), v.null(), v.record(v.string(), v.unknown()), v.array(v.unknown())])),
  variant: v.optional(v.string()),
  metadata: v.optional(v.object({ project: v.string(), impressionData: v.optional(v.literal(true)) })),
})
export type OfrepEvaluation = v.InferOutput<typeof ofrepEvaluationResponse>

export const ofrepFailureResponse = v.object({
  key: v.optional(v.string()),
  errorCode: v.picklist(['FLAG_NOT_FOUND', 'PARSE_ERROR', 'INVALID_CONTEXT']),
  errorDetails: v.string(),
})
export type OfrepFailure = v.InferOutput<typeof ofrepFailureResponse>

export const ofrepBulkResponse = v.object({ flags: v.array(ofrepEvaluationResponse) })
