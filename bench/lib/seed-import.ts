// Seeding through Unleash's import API (POST /api/admin/features-batch/import), a batch of flags per
// request: the same flags seedFeature makes one call at a time (created, their strategies in the
// environment, turned on there), in one commit per batch. 50,000 flags take 50 requests instead of
// about 150,000.
import type { AdminApi } from './admin-api.js'
import type { FeatureFixture } from './realistic-features.js'

export interface ImportSeedOptions {
  project?: string
  environment?: string
  // Flags per request (the import API takes at most 5,000).
  batchSize?: number
  // Called after each batch with how many flags are in and how long that batch took.
  onBatch?: (done: number, ms: number) => void
}

// One batch in Unleash's export format, as `features-batch/export` would have written it.
export const importBody = (features: readonly FeatureFixture[], project: string, environment: string) => ({
  project,
  environment,
  data: {
    features: features.map((f) => ({ name: f.name, type: f.type, description: f.description, impressionData: f.impressionData, project })),
    featureStrategies: features.flatMap((f) =>
      f.strategies.map((s, i) => ({
        featureName: f.name,
        name: s.name,
        parameters: s.parameters,
        constraints: s.constraints,
        ...(s.variants ? { variants: s.variants } : {}),
        sortOrder: i,
      })),
    ),
    featureEnvironments: features.map((f) => ({ name: f.name, featureName: f.name, environment, enabled: true })),
    contextFields: [],
    featureTags: [],
    segments: [],
    tagTypes: [],
    dependencies: [],
  },
})

// Imports the flags in batches, one request at a time (each batch is one commit of one project), and
// returns each batch's time in ms. A batch the server finds too large (413: a realistic batch of 1,000
// is about 2 MB, more than a server's default body limit) is sent in halves, and so on.
export const seedByImport = async (api: AdminApi, features: readonly FeatureFixture[], options: ImportSeedOptions = {}): Promise<number[]> => {
  const project = options.project ?? 'default'
  const environment = options.environment ?? 'development'
  const batchSize = options.batchSize ?? 1000
  const times: number[] = []
  for (let start = 0; start < features.length; start += batchSize) {
    const batch = features.slice(start, start + batchSize)
    const started = performance.now()
    await importInParts(api, batch, project, environment)
    const ms = performance.now() - started
    times.push(ms)
    options.onBatch?.(start + batch.length, ms)
  }
  return times
}

const importInParts = async (api: AdminApi, batch: readonly FeatureFixture[], project: string, environment: string): Promise<void> => {
  try {
    await api.request('POST', '/api/admin/features-batch/import', importBody(batch, project, environment))
  } catch (error) {
    if (batch.length < 2 || !/: 413 /.test(String(error))) throw error
    const half = Math.ceil(batch.length / 2)
    await importInParts(api, batch.slice(0, half), project, environment)
    await importInParts(api, batch.slice(half), project, environment)
  }
}
