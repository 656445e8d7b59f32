import type { Route } from '../http/types.js'
import { usageQuerySchema } from '../schemas/client.js'
import { featureUsageResponse, rawFeatureUsageResponse } from '../schemas/responses.js'
import { json, type ApiDeps } from './deps.js'
import { parse } from './parse.js'

// What SDKs reported for a flag (read/feature-usage.ts). A name no SDK reported (or no flag has) has
// no usage, not a 404: Unleash answers these for any name.
export const clientMetricsRoutes = (deps: ApiDeps): Route[] => [
  {
    method: 'GET',
    path: '/api/admin/client-metrics/features/:name',
    access: 'admin',
    docs: { summary: 'The last hour of evaluations of a flag per environment, and the applications that reported it', responses: { 200: featureUsageResponse } },
    handler: (req) => {
      const featureName = req.params.name
      const byEnvironment = new Map<string, { environment: string; timestamp: string; yes: number; no: number }>()
      for (const bucket of deps.usage.recent(featureName, 1)) {
        const sum = byEnvironment.get(bucket.environment)
        if (sum) {
          sum.yes += bucket.yes
          sum.no += bucket.no
        } else byEnvironment.set(bucket.environment, { environment: bucket.environment, timestamp: bucket.timestamp, yes: bucket.yes, no: bucket.no })
      }
      return json({ version: 1, maturity: 'stable', featureName, lastHourUsage: [...byEnvironment.values()], seenApplications: deps.usage.applications(featureName) })
    },
  },
  {
    method: 'GET',
    path: '/api/admin/client-metrics/features/:name/raw',
    access: 'admin',
    docs: { summary: 'Evaluations of a flag per hour, environment and application', query: { hoursBack: 'Hours back, 1 to 48 (24 when absent)' }, responses: { 200: rawFeatureUsageResponse } },
    handler: (req) => {
      const { hoursBack } = parse(usageQuerySchema, { hoursBack: req.query.get('hoursBack') ?? undefined }, 'query')
      return json({ version: 1, maturity: 'stable', data: deps.usage.hourly(req.params.name, hoursBack) })
    },
  },
]
