import * as v from 'valibot'
import { boundedString, dateTimeString } from './shared.js'

const contextValue = v.union([v.string(), v.number(), v.boolean(), v.null()], 'context values must be strings, numbers or booleans')

export const sdkContextSchema = v.pipe(
  v.looseObject({
    appName: v.optional(boundedString('context.appName', 255)),
    environment: v.optional(boundedString('context.environment', 100)),
    userId: v.optional(boundedString('context.userId', 1000)),
    sessionId: v.optional(boundedString('context.sessionId', 1000)),
    remoteAddress: v.optional(boundedString('context.remoteAddress', 100)),
    currentTime: v.optional(dateTimeString('context.currentTime')),
    properties: v.optional(v.record(boundedString('context.properties key', 255), v.pipe(contextValue, v.transform((x) => (x === null ? undefined : String(x)))))),
  }),
  v.check((ctx) => Object.keys(ctx).length <= 200, 'the context may hold at most 200 fields'),
)

export const playgroundRequestSchema = v.object({
  environment: v.pipe(boundedString('environment', 100), v.minLength(1, '"environment" is not allowed to be empty')),
  projects: v.optional(v.union([v.literal('*'), v.pipe(v.array(boundedString('projects[]', 100)), v.maxLength(500))], '"projects" must be "*" or an array of project ids'), '*'),
  context: v.pipe(
    sdkContextSchema,
    v.check((ctx) => typeof ctx.appName === 'string' && ctx.appName.length > 0, '"context.appName" is required and must not be empty'),
  ),
})

export const frontendRequestSchema = v.object({
  context: v.optional(sdkContextSchema, {}),
})

// POST /api/admin/playground/advanced: several environments at once, and context values that hold
// commas are split into one context per value (every combination is evaluated).
export const advancedPlaygroundRequestSchema = v.object({
  environments: v.pipe(
    v.array(boundedString('environments[]', 100), '"environments" must be an array of environment names'),
    v.minLength(1, '"environments" must name at least one environment'),
    v.maxLength(50, '"environments" may name at most 50 environments'),
  ),
  projects: playgroundRequestSchema.entries.projects,
  context: playgroundRequestSchema.entries.context,
})
