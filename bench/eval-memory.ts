// The compiled evaluator's heap per flag (issue 26), in process: the bench harness's realistic flags (as the
// server hands them to the evaluator: ids, sort order, empty segment and variant lists), compiled by one
// Evaluator; heap used after two full collections, before and after, over the flag count. Then the same
// after one playground answer (explainAll) for every flag, which may keep what it builds.
// Array buffers: the bytes of typed arrays outside the heap, after compiling.
// Run: node --expose-gc dist/bench/eval-memory.js [flags, 10000 by default]
import { Evaluator } from '../src/eval/evaluator.js'
import type { EvalFeature } from '../src/eval/types.js'
import { Utf8Builder } from '../src/eval/utf8-builder.js'
import { realisticFeatures } from './lib/realistic-features.js'

const FLAGS = Number(process.argv[2] ?? 10_000)
const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with node --expose-gc')

const heapUsed = (): number => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}
// Typed arrays past 64 bytes keep their bytes outside the V8 heap (userWithId's id tables).
const arrayBuffers = (): number => process.memoryUsage().arrayBuffers

const hex = (n: number): string => n.toString(16).padStart(8, '0')
const features: EvalFeature[] = realisticFeatures(FLAGS).map((f, i) => ({
  name: f.name,
  project: 'default',
  enabled: true,
  strategies: f.strategies.map((s, j) => ({
    id: `${hex(i)}-0000-4000-8000-${hex(j)}0000`,
    name: s.name,
    title: null,
    disabled: false,
    parameters: s.parameters,
    constraints: s.constraints,
    segments: [],
    variants: s.variants ?? [],
    sortOrder: j,
  })),
  variants: [],
  dependencies: [],
  impressionData: f.impressionData,
}))

const before = heapUsed()
const buffersBefore = arrayBuffers()
const started = process.hrtime.bigint()
const evaluator = new Evaluator()
evaluator.replaceAll(features, [])
const compileMs = Number(process.hrtime.bigint() - started) / 1e6
const compiled = heapUsed()
const buffersCompiled = arrayBuffers()
const context = { userId: 'user-123456', sessionId: 's-1', properties: { tenantId: 'tenant-7', country: 'no' } }
const linkMaker = (project: string, name: string) => `/projects/${project}/features/${name}/strategies/edit?environmentId=development&strategyId=`
const out = new Utf8Builder()
evaluator.explainAll(context, () => true, linkMaker, out, new Utf8Builder())
const answerBytes = out.byteLength
const explained = heapUsed()
const perFlag = (bytes: number): string => `${Math.round(bytes / FLAGS).toLocaleString('en')} B/flag`
console.log(
  `${FLAGS} flags: compiled in ${compileMs.toFixed(0)} ms, heap ${perFlag(compiled - before)} (${((compiled - before) / 2 ** 20).toFixed(1)} MiB); ` +
    `after one playground answer (${(answerBytes / 2 ** 20).toFixed(1)} MB) ${perFlag(explained - before)}; ` +
    `array buffers ${perFlag(buffersCompiled - buffersBefore)}`,
)

// The playground's answer in process, the same context again and again (as the bench harness's `playground`
// case asks), into buffers lent to each answer in turn (as playground.routes.ts does): ms of CPU per
// answer, after the first.
const ROUNDS = Number(process.env.BENCH_ROUNDS || 20)
const storage = Buffer.allocUnsafe(answerBytes * 2)
const scratch = Buffer.allocUnsafe(answerBytes * 2)
const cpuStarted = process.cpuUsage()
for (let r = 0; r < ROUNDS; r++) evaluator.explainAll(context, () => true, linkMaker, new Utf8Builder(storage), new Utf8Builder(scratch))
const cpu = process.cpuUsage(cpuStarted)
const cpuMs = (cpu.user + cpu.system) / 1000 / ROUNDS
console.log(`playground answer in process: ${cpuMs.toFixed(2)} ms of CPU each, ${((cpuMs * 1000) / FLAGS).toFixed(2)} µs a flag (${ROUNDS} answers)`)
