import * as v from 'valibot'
import { boundedString } from './shared.js'

const count = v.pipe(v.number('counts must be numbers'), v.safeInteger('counts must be whole numbers'), v.minValue(0, 'counts must not be negative'))
// A date-time string or milliseconds since 1970, inside the range a Date can hold.
const maxDateMs = 8.64e15
const timestamp = (what: string) =>
  v.union(
    [
      v.pipe(boundedString(what, 64), v.check((s) => !Number.isNaN(Date.parse(s)), `"${what}" must be a date-time`)),
      v.pipe(v.number(), v.check((n) => Math.abs(n) <= maxDateMs, `"${what}" is outside the range of dates`)),
    ],
    `"${what}" must be a date-time string or a number of milliseconds since 1970`,
  )

export const clientMetricsSchema = v.object({
  appName: v.pipe(boundedString('appName', 255), v.minLength(1, '"appName" is not allowed to be empty')),
  instanceId: v.optional(boundedString('instanceId', 255), 'default'),
  environment: v.optional(boundedString('environment', 100)),
  bucket: v.optional(
    v.object({
      start: timestamp('bucket.start'),
      stop: timestamp('bucket.stop'),
      toggles: v.record(
        boundedString('toggle name', 255),
        v.object({ yes: v.optional(count, 0), no: v.optional(count, 0), variants: v.optional(v.record(boundedString('variant', 255), count)) }),
      ),
    }),
  ),
})
export type ClientMetrics = v.InferOutput<typeof clientMetricsSchema>

export const clientRegisterSchema = v.object({
  appName: v.pipe(boundedString('appName', 255), v.minLength(1, '"appName" is not allowed to be empty')),
  instanceId: v.optional(boundedString('instanceId', 255), 'default'),
  sdkVersion: v.optional(boundedString('sdkVersion', 255)),
  environment: v.optional(boundedString('environment', 100)),
  interval: v.optional(v.number('"interval" must be a number')),
  started: v.optional(timestamp('started')),
  strategies: v.optional(v.pipe(v.array(boundedString('strategies[]', 255)), v.maxLength(1000)), []),
})

export type ClientRegister = v.InferOutput<typeof clientRegisterSchema>

// What Unleash Edge (and Unleash's own bulk endpoint) sends: the applications it saw and per-flag counts.
export const clientBulkMetricsSchema = v.object({
  applications: v.optional(
    v.pipe(
      v.array(
        v.object({
          appName: v.pipe(boundedString('applications[].appName', 255), v.minLength(1, '"applications[].appName" is not allowed to be empty')),
          instanceId: v.optional(boundedString('applications[].instanceId', 255), 'default'),
          environment: v.optional(boundedString('applications[].environment', 100)),
          sdkVersion: v.optional(v.nullable(boundedString('applications[].sdkVersion', 255))),
          started: v.optional(timestamp('applications[].started')),
          strategies: v.optional(v.pipe(v.array(boundedString('applications[].strategies[]', 255)), v.maxLength(1000)), []),
        }),
      ),
      v.maxLength(10_000, '"applications" has more than 10000 entries'),
    ),
    [],
  ),
  metrics: v.optional(
    v.pipe(
      v.array(
        v.object({
          featureName: v.pipe(boundedString('metrics[].featureName', 255), v.minLength(1, '"metrics[].featureName" is not allowed to be empty')),
          appName: boundedString('metrics[].appName', 255),
          environment: boundedString('metrics[].environment', 100),
          timestamp: v.optional(timestamp('metrics[].timestamp')),
          yes: v.optional(count, 0),
          no: v.optional(count, 0),
          variants: v.optional(v.record(boundedString('variant', 255), count)),
        }),
      ),
      v.maxLength(100_000, '"metrics" has more than 100000 entries'),
    ),
    [],
  ),
})

export const edgeValidateSchema = v.object({
  tokens: v.pipe(v.array(boundedString('tokens[]', 1000), '"tokens" must be a list of token strings'), v.maxLength(1000, '"tokens" has more than 1000 entries')),
})

// GET /api/admin/client-metrics/features/:name/raw: how many hours back, 1 to 48 (Unleash's range; 24 when absent).
export const usageQuerySchema = v.object({
  hoursBack: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[0-9]{1,2}$/, '"hoursBack" must be a whole number from 1 to 48'),
      v.transform(Number),
      v.minValue(1, '"hoursBack" must be a whole number from 1 to 48'),
      v.maxValue(48, '"hoursBack" must be a whole number from 1 to 48'),
    ),
    '24',
  ),
})
