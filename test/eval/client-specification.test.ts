import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import t from 'tap'
import { Evaluator } from '../../src/eval/evaluator.js'
import type { EvalContext, EvalFeature, EvalPayload, EvalSegment } from '../../src/eval/types.js'

interface SpecCase<R> {
  description: string
  context: EvalContext
  toggleName: string
  expectedResult: R
}

interface ExpectedVariant {
  name: string
  enabled: boolean
  payload?: EvalPayload
  feature_enabled: boolean
}

type DeltaEvent =
  | { eventId: number; type: 'hydration'; features: EvalFeature[]; segments?: EvalSegment[] }
  | { eventId: number; type: 'feature-updated'; feature: EvalFeature }
  | { eventId: number; type: 'feature-removed'; featureName: string }
  | { eventId: number; type: 'segment-updated'; segment: EvalSegment }
  | { eventId: number; type: 'segment-removed'; segmentId: number }

interface Spec {
  name: string
  state: { version?: number; features?: EvalFeature[]; segments?: EvalSegment[]; events?: DeltaEvent[] }
  tests?: SpecCase<boolean>[]
  variantTests?: SpecCase<ExpectedVariant>[]
}

const require = createRequire(import.meta.url)
const specDir = path.dirname(require.resolve('@unleash/client-specification/specifications/index.json'))
const specFiles: string[] = JSON.parse(readFileSync(path.join(specDir, 'index.json'), 'utf8'))
const loadSpec = (file: string): Spec => JSON.parse(readFileSync(path.join(specDir, file), 'utf8'))

// Delta specs (19, 20) describe the state as events; the evaluator's
// incremental API applies them one by one, as the server's listeners will.
const applyEvents = (evaluator: Evaluator, events: DeltaEvent[]): void => {
  const segments = new Map<number, EvalSegment>()
  for (const event of events) {
    switch (event.type) {
      case 'hydration':
        segments.clear()
        for (const s of event.segments ?? []) segments.set(s.id, s)
        evaluator.replaceAll(event.features, [...segments.values()])
        break
      case 'feature-updated':
        evaluator.upsertFeature(event.feature)
        break
      case 'feature-removed':
        evaluator.removeFeature(event.featureName)
        break
      case 'segment-updated':
        segments.set(event.segment.id, event.segment)
        evaluator.setSegments([...segments.values()])
        break
      case 'segment-removed':
        segments.delete(event.segmentId)
        evaluator.setSegments([...segments.values()])
        break
    }
  }
}

const evaluatorFor = (spec: Spec): Evaluator => {
  const evaluator = new Evaluator()
  if (spec.state.events) applyEvents(evaluator, spec.state.events)
  else evaluator.replaceAll(spec.state.features ?? [], spec.state.segments ?? [])
  return evaluator
}

let cases = 0

t.test('every file of @unleash/client-specification passes', async (t) => {
  t.equal(specFiles.length, 22, 'the index lists specs 01..22')
  for (const file of specFiles) {
    const spec = loadSpec(file)
    t.test(spec.name, async (t) => {
      const evaluator = evaluatorFor(spec)
      for (const c of spec.tests ?? []) {
        t.equal(evaluator.evaluate(c.toggleName, c.context).enabled, c.expectedResult, c.description)
        cases++
      }
      for (const c of spec.variantTests ?? []) {
        const { name, enabled, payload, feature_enabled, featureEnabled } = evaluator.evaluate(c.toggleName, c.context).variant
        t.same({ name, enabled, feature_enabled, ...(payload ? { payload } : {}) }, c.expectedResult, c.description)
        t.equal(featureEnabled, feature_enabled, `${c.description} (featureEnabled mirrors feature_enabled)`)
        cases++
      }
    })
  }
})

t.teardown(() => {
  console.log(`# client-specification: ${cases} cases evaluated`)
})
