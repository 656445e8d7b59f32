// Evaluation latency: our precompiled Evaluator against unleash-client's own
// in-process engine, same flags, same contexts, same (context, flag) pairs.
// Run: npx tsc -p . && node --expose-gc dist/bench/eval.js   (npm run bench runs it as its `eval` case)
// BENCH_FLAGS (1000) sets the flag count; BENCH_EVAL_JSON names a file to write the measurements to;
// BENCH_ENGINES=ours measures our evaluator alone (for a profile); BENCH_BREAKDOWN=1 then also times
// each flag alone and prints ns per evaluation by kind of flag (where the time goes).
// BENCH_BASE_EVALUATOR=<another build's dist/src/eval/evaluator.js> with BENCH_ENGINES=ours measures that
// build's Evaluator beside ours in this process, in the same interleaved rounds (before/after pairs on a busy
// machine), and checks that both give the same result objects' contents (and observe()'s random and steadyUntil)
// for every flag over 2,000 contexts.
// BENCH_PROFILE=<file.cpuprofile> with BENCH_ENGINES=ours profiles the measured rounds alone (V8's sampling
// profiler every 500 µs, through node:inspector) and prints the self time per function in ns per evaluation.
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Context } from 'unleash-client'
import { startOfflineSdk } from '../test/helpers/offline-sdk.js'
import { Evaluator } from '../src/eval/evaluator.js'
import type { EvalConstraint, EvalContext, EvalFeature, EvalSegment, EvalStrategy, EvalVariant } from '../src/eval/types.js'
import { formatSummary, summariseProfile } from './lib/profile-summary.js'
import { mulberry32 } from './lib/seeded-random.js'

const FLAGS = Number(process.env.BENCH_FLAGS || 1000)
if (!Number.isSafeInteger(FLAGS) || FLAGS < 100 || FLAGS % 100 !== 0) throw new Error('BENCH_FLAGS must be a multiple of 100')
const CONTEXTS = 10_000
const FLAGS_PER_BATCH = 100
const BATCHES = 10_000
const WARMUP_BATCHES = 2_000

const rand = mulberry32(20240601)
const int = (n: number): number => Math.floor(rand() * n)
const pick = <T>(items: readonly T[]): T => items[int(items.length)]
const chance = (p: number): boolean => rand() < p
const sample = <T>(items: readonly T[], n: number): T[] => Array.from({ length: n }, () => pick(items))

const userIds = Array.from({ length: 50_000 }, (_, i) => `user-${(i * 2654435761) % 1_000_003}`)
const tenants = Array.from({ length: 200 }, (_, i) => `tenant-${i}`)
const countries = ['no', 'se', 'dk', 'de', 'fr', 'us', 'gb', 'nl', 'es', 'it']
const plans = ['free', 'team', 'business', 'enterprise']
const appNames = ['web', 'ios', 'android', 'api', 'worker']
const environments = ['production', 'staging']
const versions = ['1.0.0', '1.4.2', '2.0.0-beta.3', '2.0.0', '2.1.7', '3.0.0-rc.1', '3.0.0']

const constraintPool = (): EvalConstraint => {
  switch (int(9)) {
    case 0:
      return { contextName: 'country', operator: 'IN', values: sample(countries, 3) }
    case 1:
      return { contextName: 'tenantId', operator: 'IN', values: sample(tenants, 20) }
    case 2:
      return { contextName: 'plan', operator: 'NOT_IN', values: ['free'] }
    case 3:
      return { contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@example.com', '@corp.example'], caseInsensitive: true }
    case 4:
      return { contextName: 'userId', operator: 'STR_STARTS_WITH', values: ['user-1', 'user-2'] }
    case 5:
      return { contextName: 'age', operator: pick(['NUM_GTE', 'NUM_LT']), value: String(18 + int(40)) }
    case 6:
      return { contextName: 'currentTime', operator: pick(['DATE_AFTER', 'DATE_BEFORE']), value: pick(['2023-01-01T00:00:00Z', '2031-06-01T00:00:00+02:00']) }
    case 7:
      return { contextName: 'appVersion', operator: pick(['SEMVER_GTE', 'SEMVER_LT']), value: pick(versions) }
    default:
      return { contextName: 'appName', operator: 'IN', values: sample(appNames, 2) }
  }
}

const segments: EvalSegment[] = Array.from({ length: 50 }, (_, i) => ({
  id: i + 1,
  name: `segment-${i + 1}`,
  constraints: Array.from({ length: 1 + int(3) }, constraintPool),
}))

const variantsFor = (count: number, withOverrides: boolean): EvalVariant[] =>
  Array.from({ length: count }, (_, i) => ({
    name: `variant-${i}`,
    weight: Math.floor(1000 / count) + (i === 0 ? 1000 % count : 0),
    weightType: 'variable',
    stickiness: 'default',
    payload: { type: 'json', value: `{"variant":${i}}` },
    ...(withOverrides && i === 0 ? { overrides: [{ contextName: 'userId', values: sample(userIds, 20) }] } : {}),
  }))

const rollout = (groupId: string, constraints: EvalConstraint[] = []): EvalStrategy => ({
  name: 'flexibleRollout',
  parameters: { rollout: String(pick([5, 10, 25, 50, 75, 100])), stickiness: pick(['default', 'default', 'userId', 'sessionId', 'tenantId']), groupId },
  constraints,
  variants: chance(0.1) ? variantsFor(2, false) : [],
})

const strategiesFor = (name: string): EvalStrategy[] => {
  const kind = rand()
  if (kind < 0.4) return [rollout(name, chance(0.5) ? [{ contextName: 'environment', operator: 'IN', values: ['production'] }] : [])]
  if (kind < 0.5) return [{ name: 'userWithId', parameters: { userIds: sample(userIds, 100).join(',') } }, rollout(name)]
  if (kind < 0.7) return [rollout(name, Array.from({ length: 3 + int(4) }, constraintPool))]
  if (kind < 0.85) return [{ ...rollout(name), segments: sample(segments, 1 + int(2)).map((s) => s.id) }]
  if (kind < 0.95) return [{ name: 'default', parameters: {} }]
  return [
    { name: 'gradualRolloutUserId', parameters: { percentage: '30', groupId: name } },
    { name: 'remoteAddress', parameters: { IPs: '10.0.0.0/8, 192.168.1.1' } },
  ]
}

const features: EvalFeature[] = Array.from({ length: FLAGS }, (_, i) => {
  const name = `bench.flag.${i}`
  return {
    name,
    project: 'default',
    enabled: chance(0.9),
    strategies: strategiesFor(name),
    variants: chance(0.3) ? variantsFor(2 + int(3), chance(0.2)) : [],
  }
})

const contexts: EvalContext[] = Array.from({ length: CONTEXTS }, () => ({
  appName: pick(appNames),
  environment: pick(environments),
  ...(chance(0.95) ? { userId: pick(userIds) } : {}),
  sessionId: `session-${int(1e9)}`,
  remoteAddress: chance(0.5) ? `10.${int(255)}.${int(255)}.${int(255)}` : `81.${int(255)}.${int(255)}.${int(255)}`,
  properties: {
    tenantId: pick(tenants),
    country: pick(countries),
    plan: pick(plans),
    email: `someone${int(1000)}@${pick(['example.com', 'EXAMPLE.com', 'gmail.com'])}`,
    age: String(13 + int(70)),
    appVersion: pick(versions),
  },
}))

const names = features.map((f) => f.name)
const heapUsed = (): number => {
  globalThis.gc?.()
  return process.memoryUsage().heapUsed
}
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const delta = (bytes: number): string => `${bytes < 0 ? '' : '+'}${mb(bytes)}`

type Engine = (name: string, ctx: EvalContext) => boolean

interface Measurement {
  label: string
  evaluationsPerSecond: number
  p50: number
  p99: number
  p999: number
  mean: number
  enabled: number
}

// Engines take turns in rounds, so that load from elsewhere on the machine
// spreads over all of them instead of landing on whichever ran last.
const ROUNDS = 10

const measureAll = async (engines: { label: string; engine: Engine }[], profile?: string): Promise<Measurement[]> => {
  const batchesPerRound = BATCHES / ROUNDS
  const run = (engine: Engine, first: number, count: number, perBatch?: Float64Array): number => {
    let enabled = 0
    for (let b = first; b < first + count; b++) {
      const ctx = contexts[b % CONTEXTS]
      const offset = (b * FLAGS_PER_BATCH) % FLAGS
      const start = process.hrtime.bigint()
      for (let f = 0; f < FLAGS_PER_BATCH; f++) if (engine(names[offset + f], ctx)) enabled++
      if (perBatch) perBatch[b] = Number(process.hrtime.bigint() - start) / FLAGS_PER_BATCH
    }
    return enabled
  }
  const state = engines.map(() => ({ perBatch: new Float64Array(BATCHES), totalNs: 0, enabled: 0 }))
  engines.forEach(({ engine }) => run(engine, 0, WARMUP_BATCHES))
  const session = profile === undefined ? undefined : new Session()
  if (session) {
    session.connect()
    await session.post('Profiler.enable')
    await session.post('Profiler.setSamplingInterval', { interval: 500 })
    await session.post('Profiler.start')
  }
  for (let round = 0; round < ROUNDS; round++) {
    engines.forEach(({ engine }, i) => {
      const started = process.hrtime.bigint()
      state[i].enabled += run(engine, round * batchesPerRound, batchesPerRound, state[i].perBatch)
      state[i].totalNs += Number(process.hrtime.bigint() - started)
    })
  }
  const evaluations = BATCHES * FLAGS_PER_BATCH
  if (session && profile !== undefined) {
    const { profile: taken } = await session.post('Profiler.stop')
    session.disconnect()
    writeFileSync(profile, JSON.stringify(taken))
    console.log(`profile of the measured rounds: ${profile}; self time, ns per evaluation:`)
    console.log(formatSummary(summariseProfile(profile), 25, (evaluations * engines.length) / 1e6, 'ns'))
  }
  return engines.map(({ label }, i) => {
    const sorted = Float64Array.from(state[i].perBatch).sort()
    return {
      label,
      evaluationsPerSecond: evaluations / (state[i].totalNs / 1e9),
      mean: state[i].totalNs / evaluations,
      p50: sorted[Math.floor(BATCHES * 0.5)],
      p99: sorted[Math.floor(BATCHES * 0.99)],
      p999: sorted[Math.floor(BATCHES * 0.999)],
      enabled: state[i].enabled,
    }
  })
}

// What a flag of the dataset is, by the strategies strategiesFor() gave it.
const kindOf = (feature: EvalFeature): string => {
  if (!feature.enabled) return 'off in the environment'
  const strategies = feature.strategies ?? []
  const first = strategies[0]
  const variants = (feature.variants?.length ?? 0) > 0 || strategies.some((s) => (s.variants?.length ?? 0) > 0) ? ', variants' : ''
  if (first.name === 'default') return `default${variants}`
  if (first.name === 'userWithId') return `userWithId (100 ids), then flexibleRollout${variants}`
  if (first.name === 'gradualRolloutUserId') return `gradualRolloutUserId, then remoteAddress${variants}`
  if ((first.segments?.length ?? 0) > 0) return `flexibleRollout, 1-2 segments${variants}`
  const constraints = first.constraints?.length ?? 0
  if (constraints === 0) return `flexibleRollout${variants}`
  if (constraints === 1 && first.constraints![0].contextName === 'environment') return `flexibleRollout, environment IN${variants}`
  return `flexibleRollout, 3-6 constraints${variants}`
}

// Each flag alone, over the same 2,000 contexts, best of 3: ns per evaluation by kind, and the share of
// all evaluations each kind takes.
const breakdown = (evaluator: Evaluator): void => {
  const sample = contexts.slice(0, 2000)
  const perKind = new Map<string, number[]>()
  for (const feature of features) {
    let best = Number.POSITIVE_INFINITY
    for (let r = 0; r < 3; r++) {
      const started = process.hrtime.bigint()
      for (const ctx of sample) evaluator.evaluate(feature.name, ctx)
      best = Math.min(best, Number(process.hrtime.bigint() - started) / sample.length)
    }
    const kind = kindOf(feature)
    perKind.set(kind, [...(perKind.get(kind) ?? []), best])
  }
  const total = [...perKind.values()].reduce((sum, list) => sum + list.reduce((a, b) => a + b, 0), 0)
  const rows = [...perKind].sort((a, b) => b[1].length - a[1].length)
  console.log('\nkind of flag                                         flags   median ns   mean ns   share of time')
  for (const [kind, list] of rows) {
    const sorted = [...list].sort((a, b) => a - b)
    const sum = list.reduce((a, b) => a + b, 0)
    console.log(`${kind.padEnd(50)} ${String(list.length).padStart(7)} ${sorted[Math.floor(sorted.length / 2)].toFixed(0).padStart(11)} ${(sum / list.length).toFixed(0).padStart(9)} ${`${((sum / total) * 100).toFixed(0)}%`.padStart(15)}`)
  }
  const all = [...perKind.values()].flat().sort((a, b) => a - b)
  console.log(`every flag: median ${all[Math.floor(all.length / 2)].toFixed(0)} ns, mean ${(total / all.length).toFixed(0)} ns per evaluation`)
}

const main = async (): Promise<void> => {
  console.log(`node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown cpu'} x${os.cpus().length}`)
  console.log(`${FLAGS} flags, ${segments.length} segments, ${CONTEXTS} contexts; ${BATCHES} batches of ${FLAGS_PER_BATCH} evaluations per engine`)
  if (!globalThis.gc) console.log('(run with --expose-gc for steadier heap figures)')
  const generated = heapUsed()
  console.log(`heapUsed with flags and contexts generated: ${mb(generated)}`)

  const compileStarted = process.hrtime.bigint()
  const evaluator = new Evaluator()
  evaluator.replaceAll(features, segments)
  const compileMs = Number(process.hrtime.bigint() - compileStarted) / 1e6
  const compiled = heapUsed()
  console.log(`compiled ${FLAGS} flags in ${compileMs.toFixed(1)} ms; heapUsed: ${mb(compiled)} (evaluator: ${delta(compiled - generated)})`)

  const ours = { label: 'ours  evaluate()  ', engine: (name: string, ctx: EvalContext) => evaluator.evaluate(name, ctx).enabled }
  if (process.env.BENCH_ENGINES === 'ours') {
    const basePath = process.env.BENCH_BASE_EVALUATOR
    const engines = [ours]
    if (basePath) {
      const { Evaluator: BaseEvaluator } = (await import(pathToFileURL(path.resolve(basePath)).href)) as { Evaluator: typeof Evaluator }
      const base = new BaseEvaluator({ random: () => 0.5 })
      base.replaceAll(features, segments)
      const same = new Evaluator({ random: () => 0.5 })
      same.replaceAll(features, segments)
      let differences = 0
      for (const ctx of contexts.slice(0, 2000)) {
        for (const name of names) {
          // The result, and whether it drew a random number and until when its clock readings hold.
          const before = JSON.stringify(base.observe(() => base.evaluate(name, ctx)))
          if (before !== JSON.stringify(same.observe(() => same.evaluate(name, ctx)))) differences++
        }
      }
      console.log(`base and ours over 2,000 contexts x ${FLAGS} flags: ${differences} different results`)
      engines.unshift({ label: 'base  evaluate()  ', engine: (name: string, ctx: EvalContext) => base.evaluate(name, ctx).enabled })
    }
    for (const only of await measureAll(engines, process.env.BENCH_PROFILE)) {
      console.log(`${only.label.trim().split(' ')[0]}: ${only.mean.toFixed(0)} ns mean, ${only.p50.toFixed(0)} ns p50, ${only.p99.toFixed(0)} ns p99 (batch), ${only.enabled} enabled`)
    }
    if (process.env.BENCH_BREAKDOWN) breakdown(evaluator)
    return
  }
  const sdk = await startOfflineSdk('bench', features, segments)
  // The SDK keeps the very feature objects it was given, so it adds little here.
  console.log(`unleash-client bootstrapped; heapUsed: ${mb(heapUsed())} (sdk: ${delta(heapUsed() - compiled)})`)

  const results = await measureAll([
    ours,
    { label: 'sdk   isEnabled() ', engine: (name, ctx) => sdk.isEnabled(name, ctx as Context) },
    { label: 'sdk   getVariant()', engine: (name, ctx) => sdk.getVariant(name, ctx as Context).feature_enabled === true },
  ])
  sdk.destroy()

  console.log('\nengine               evals/s      ns/eval mean   p50 (batch)   p99 (batch)   enabled')
  for (const r of results) {
    console.log(
      `${r.label}   ${Math.round(r.evaluationsPerSecond).toLocaleString('en').padStart(11)}   ${r.mean.toFixed(0).padStart(12)}   ${r.p50.toFixed(0).padStart(11)}   ${r.p99.toFixed(0).padStart(11)}   ${r.enabled}`,
    )
  }
  const [oursResult, isEnabled, getVariant] = results
  const ratio = (sdk: Measurement) =>
    `${(sdk.mean / oursResult.mean).toFixed(1)}x (mean), ${(sdk.p50 / oursResult.p50).toFixed(1)}x (p50), ${(sdk.p99 / oursResult.p99).toFixed(1)}x (p99)`
  console.log(`\nsdk isEnabled() / ours:  ${ratio(isEnabled)}`)
  console.log(`sdk getVariant() / ours: ${ratio(getVariant)}`)
  if (oursResult.enabled !== isEnabled.enabled || oursResult.enabled !== getVariant.enabled) {
    console.log('WARNING: the engines disagree on the number of enabled evaluations')
  }
  console.log(`heapUsed at the end: ${mb(heapUsed())}`)
  if (process.env.BENCH_EVAL_JSON) {
    const engines = results.map((r) => ({ ...r, label: r.label.trim().replace(/\s+/g, ' ') }))
    writeFileSync(process.env.BENCH_EVAL_JSON, JSON.stringify({ flags: FLAGS, segments: segments.length, contexts: CONTEXTS, evaluationsPerEngine: BATCHES * FLAGS_PER_BATCH, engines }))
  }
}

await main()
