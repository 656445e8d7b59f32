import * as v from 'valibot'
import { boundedString } from './shared.js'

const count = v.pipe(v.number('counts must be numbers'), v.safeInteger('counts must be whole numbers'), v.minValue(0, 'counts must not be negative'))
const timestamp = v.union([v.pipe(boundedString('timestamp', 64)), v.number()], 'timestamps must be date-time strings or numbers')

export const clientMetricsSchema = v.object({
  appName: v.pipe(boundedString('appName', 255), v.minLength(1, '"appName" is not allowed to be empty')),
  instanceId: v.optional(boundedString('instanceId', 255), 'default'),
  environment: v.optional(boundedString('environment', 100)),
  bucket: v.optional(
    v.object({
      start: timestamp,
      stop: timestamp,
      toggles: v.record(
        boundedString('toggle name', 255),
        v.object({ yes: v.optional(count, 0), no: v.optional(count, 0), variants: v.optional(v.record(boundedString('variant', 255), count)) }),
      ),
    }),
  ),
})

export const clientRegisterSchema = v.object({
  appName: v.pipe(boundedString('appName', 255), v.minLength(1, '"appName" is not allowed to be empty')),
  instanceId: v.optional(boundedString('instanceId', 255), 'default'),
  sdkVersion: v.optional(boundedString('sdkVersion', 255)),
  environment: v.optional(boundedString('environment', 100)),
  interval: v.optional(v.number('"interval" must be a number')),
  started: v.optional(timestamp),
  strategies: v.optional(v.pipe(v.array(boundedString('strategies[]', 255)), v.maxLength(1000)), []),
})

export type ClientRegister = v.InferOutput<typeof clientRegisterSchema>
