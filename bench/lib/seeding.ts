// How the harness seeds its flags: through the import API in batches (the default: 50,000 flags in a
// minute or two), or one create, strategy and enable call at a time (--seed create: what any
// Unleash-API server takes, and how the harness seeded before issue 26). Reports how long it took and,
// for a server on this machine, its CPU per batch.
import { forEachLimited, type AdminApi } from './admin-api.js'
import { sampleProcess } from './machine-info.js'
import { registerStrategyTypes, seedFeature, type FeatureFixture } from './realistic-features.js'
import { seedByImport } from './seed-import.js'

export type SeedMethod = 'import' | 'create'

export interface SeedingReport {
  method: SeedMethod
  flags: number
  seconds: number
  // Import only: flags per batch, the batches' times, and the server's CPU per batch (when known).
  batchSize: number | null
  batches: number | null
  batchP50Ms: number | null
  batchMaxMs: number | null
  // The batches that went into the last fifth of the flags (40,000 to 50,000 of 50,000): the cost at size.
  lastFifthP50Ms: number | null
  serverCpuMsPerBatch: number | null
}

export interface SeedingOptions {
  method: SeedMethod
  batchSize?: number
  // The server's pid, when it runs on this machine.
  pid?: number
  progress?: (done: number) => void
}

const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN

export const seedFlags = async (api: AdminApi, features: readonly FeatureFixture[], options: SeedingOptions): Promise<SeedingReport> => {
  const started = performance.now()
  const cpuBefore = options.pid === undefined ? 0 : sampleProcess(options.pid).cpuMs
  await registerStrategyTypes(api, features)
  const batchSize = options.batchSize ?? 1000
  let times: number[] | undefined
  if (options.method === 'import') {
    times = await seedByImport(api, features, { batchSize, onBatch: (done) => options.progress?.(done) })
  } else {
    let done = 0
    await forEachLimited(features, 8, async (feature) => {
      await seedFeature(api, feature)
      options.progress?.(++done)
    })
  }
  const cpuMs = options.pid === undefined ? undefined : sampleProcess(options.pid).cpuMs - cpuBefore
  const lastFifth = times?.slice(Math.floor((times.length * 4) / 5))
  return {
    method: options.method,
    flags: features.length,
    seconds: (performance.now() - started) / 1000,
    batchSize: times ? batchSize : null,
    batches: times?.length ?? null,
    batchP50Ms: times ? p50(times) : null,
    batchMaxMs: times ? Math.max(...times) : null,
    lastFifthP50Ms: lastFifth && lastFifth.length > 0 ? p50(lastFifth) : null,
    serverCpuMsPerBatch: times && cpuMs !== undefined ? cpuMs / times.length : null,
  }
}

export const describeSeeding = (r: SeedingReport): string => {
  const base = `seeding: ${r.flags.toLocaleString('en-US')} flags ${r.method === 'import' ? 'through the import API' : 'one create, strategies and enable at a time'} in ${r.seconds.toFixed(1)} s`
  if (r.method !== 'import') return base
  const cpu = r.serverCpuMsPerBatch === null ? '' : `, server CPU ${r.serverCpuMsPerBatch.toFixed(0)} ms per batch`
  return `${base}: ${r.batches} batches of ${r.batchSize}, p50 ${r.batchP50Ms!.toFixed(0)} ms (${r.lastFifthP50Ms!.toFixed(0)} ms over the last fifth), max ${r.batchMaxMs!.toFixed(0)} ms${cpu}`
}
