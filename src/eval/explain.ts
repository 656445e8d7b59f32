import type { Utf8Builder } from './utf8-builder.js'
import type { CompiledConstraint, CompiledFeature, CompiledStrategy } from './compile.js'
import type { EvalContext, EvalResult } from './types.js'

// The playground's explanation (types.ts PlaygroundFeature), written as JSON straight from the constant
// parts compiled with each flag (compile.ts explainHead, explained, ...): evaluation only adds the results.
//
// It is made in two steps. Evaluating a flag notes every outcome its JSON shows (each constraint's
// result, each strategy's, the flag's own) as numbers; the JSON is then written from those numbers.
// A flag keeps the JSON it wrote for the last outcomes it saw: the same outcomes give the same JSON,
// so a context that repeats (or one that differs only where no constraint looks) costs the evaluation
// and a copy. Without this, most of a large answer's time went into building its text.

// How a strategy's result reads: one of these, or the variant it selects (Tail.Variant + 2 × the
// variant's index + 1 when the strategy is on).
const enum Tail {
  Unevaluated,
  IncompleteUnknown,
  IncompleteFalse,
  CompleteTrue,
  CompleteFalse,
  Variant,
}

// From the end of a strategy's segments to its edit link, by Tail.
const resultTail = (result: string) => `],"result":${result},"links":{"edit":"`
const fixedTails = [
  resultTail('{"evaluationStatus":"unevaluated","enabled":"unknown"}'),
  resultTail('{"evaluationStatus":"incomplete","enabled":"unknown"}'),
  resultTail('{"evaluationStatus":"incomplete","enabled":false}'),
  resultTail('{"evaluationStatus":"complete","enabled":true}'),
  resultTail('{"evaluationStatus":"complete","enabled":false}'),
]

// The flag's own outcomes, noted after its strategies'.
const enum StrategiesResult {
  False,
  True,
  Unknown,
}
// The flag's variant: the index of one of its own variants, or one of these.
const fromWinner = -1
const notEnabled = -2

// What evaluating a flag's strategies found, for the flag's own fields.
interface StrategiesOutcome {
  anyCompleteTrue: boolean
  anyUnknown: boolean
  // The result evaluate() takes from the first strategy that is on, and that strategy's variants when
  // it selected one of them.
  winningResult: EvalResult | undefined
  winningVariantsJson: string | undefined
}

// The flag's own fields, beside its strategies.
interface FlagFields {
  strategiesResult: boolean | 'unknown'
  hasUnsatisfiedDependency: boolean
  isEnabled: boolean
  outcome: EvalResult
  variantsJson: string
}

// Appends each shown constraint's result (null entries are not shown); true when all of them are true.
const noteConstraints = (constraints: CompiledConstraint[], ctx: EvalContext, outcomes: number[]): boolean => {
  let all = true
  for (let i = 0; i < constraints.length; i++) {
    const c = constraints[i]
    if (!c.source) continue
    const result = c.test(ctx)
    all &&= result
    outcomes.push(+result)
  }
  return all
}

// Unleash: the playground evaluates every strategy and every constraint, with
// no short-circuit, so that each one can be shown with its own result.
const noteStrategy = (strategy: CompiledStrategy, ctx: EvalContext, onWithoutVariant: EvalResult, found: StrategiesOutcome, outcomes: number[]): void => {
  let conditionsPass = noteConstraints(strategy.constraints, ctx, outcomes)
  for (const { segment } of strategy.segments) {
    // A segment id missing from the segment list fails the strategy, as in SDKs.
    conditionsPass = (segment !== undefined && noteConstraints(segment.constraints, ctx, outcomes)) && conditionsPass
  }
  let tail: number
  if (strategy.isDisabled) {
    tail = Tail.Unevaluated
    found.anyUnknown = true
  } else if (strategy.playgroundRule === undefined) {
    tail = conditionsPass ? Tail.IncompleteUnknown : Tail.IncompleteFalse
    if (conditionsPass) found.anyUnknown = true
  } else {
    const isOn = conditionsPass && strategy.playgroundRule(ctx)
    tail = isOn ? Tail.CompleteTrue : Tail.CompleteFalse
    // Unleash selects the strategy's variant whatever the strategy's result, and shows it.
    const i = strategy.variants === undefined ? -1 : strategy.variants.select(ctx)
    if (i >= 0) tail = Tail.Variant + 2 * i + +isOn
    if (isOn) {
      found.anyCompleteTrue = true
      if (found.winningResult === undefined) {
        found.winningResult = i >= 0 ? strategy.variantResults[i] : onWithoutVariant
        found.winningVariantsJson = i >= 0 ? strategy.variantsJson : undefined
      }
    }
  }
  outcomes.push(tail)
}

// Writes the constraints whose results come next in `outcomes` from `at.next`; true when all are true.
const writeConstraints = (constraints: CompiledConstraint[], outcomes: readonly number[], at: { next: number }): [string, boolean] => {
  let json = ''
  let all = true
  for (let i = 0; i < constraints.length; i++) {
    const c = constraints[i]
    if (!c.source) continue
    const result = outcomes[at.next++]
    all &&= result === 1
    json += json === '' ? c.explained[result] : `,${c.explained[result]}`
  }
  return [json, all]
}

// The flag's JSON: its strategies' from the outcomes noted for them, then its own fields.
const writeFeature = (feature: CompiledFeature, outcomes: readonly number[], editLinkPrefix: string | undefined, own: FlagFields): string => {
  const at = { next: 0 }
  let data = ''
  for (let s = 0; s < feature.strategies.length; s++) {
    const strategy = feature.strategies[s]
    const [constraints] = writeConstraints(strategy.constraints, outcomes, at)
    data += `${s === 0 ? '' : ','}${strategy.explainHead}${constraints}],"segments":[`
    for (let i = 0; i < strategy.segments.length; i++) {
      const { id, segment } = strategy.segments[i]
      if (i > 0) data += ','
      if (segment === undefined) {
        data += `{"id":${id},"name":"","result":false,"constraints":[]}`
        continue
      }
      const [segmentConstraints, result] = writeConstraints(segment.constraints, outcomes, at)
      data += `${segment.explainHeads[+result]}${segmentConstraints}]}`
    }
    const tail = outcomes[at.next++]
    const variant = tail - Tail.Variant
    data += variant >= 0 ? strategy.explainVariantTails[variant % 2][variant >> 1] : fixedTails[tail]
    data += editLinkPrefix === undefined ? '"}}' : `${editLinkPrefix}${strategy.linkId}"}}`
  }
  return (
    `${feature.explainHead}${own.strategiesResult === 'unknown' ? '"unknown"' : own.strategiesResult},"data":[${data}]},` +
    `"hasUnsatisfiedDependency":${own.hasUnsatisfiedDependency},"isEnabledInCurrentEnvironment":${feature.isEnabledInEnvironment},` +
    `"isEnabled":${own.isEnabled},"variant":${feature.variantJson.get(own.outcome)!},"variants":${own.variantsJson}}`
  )
}

interface Written {
  outcomes: number[]
  editLinkPrefix: string | undefined
  // Written once to an answer, which leaves it one flat string: later answers copy it as it is.
  json: string
}

// Per compiled flag (a changed flag is compiled anew, so nothing here outlives what it describes).
const lastWritten = new WeakMap<CompiledFeature, Written>()

const sameOutcomes = (a: readonly number[], b: readonly number[]): boolean => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

// Reused by every explanation: explaining is synchronous.
const scratchOutcomes: number[] = []

// isEnabled and variant follow evaluate(): disabled strategies are invisible
// to SDKs, unknown ones are false, and the first true strategy picks the
// variant. Each strategy's links.edit is `editLinkPrefix` + its URL-encoded id ('' without a prefix):
// the HTTP layer knows the project, the flag and the environment, and encodes them.
export const explainFeature = (
  feature: CompiledFeature,
  ctx: EvalContext,
  hasUnsatisfiedDependency: boolean,
  editLinkPrefix: string | undefined,
  out: Utf8Builder,
): void => {
  const outcomes = scratchOutcomes
  outcomes.length = 0
  const found: StrategiesOutcome = { anyCompleteTrue: false, anyUnknown: false, winningResult: undefined, winningVariantsJson: undefined }
  for (const strategy of feature.strategies) noteStrategy(strategy, ctx, feature.onWithoutVariant, found, outcomes)

  let strategiesResult: boolean | 'unknown'
  if (!feature.hasStrategyList) strategiesResult = false
  else if (feature.activeStrategies.length === 0) strategiesResult = feature.isEnabledInEnvironment
  else if (found.anyCompleteTrue) strategiesResult = true
  else if (found.anyUnknown) strategiesResult = 'unknown'
  else strategiesResult = false
  const isEnabled = strategiesResult === true && feature.isEnabledInEnvironment && !hasUnsatisfiedDependency
  // The flag's own variant is chosen only when the winning strategy gave none.
  let outcome = isEnabled ? (found.winningResult ?? feature.onWithoutVariant) : feature.off
  let flagVariant = isEnabled ? fromWinner : notEnabled
  if (outcome === feature.onWithoutVariant && feature.variants !== undefined) {
    const i = feature.variants.select(ctx)
    if (i >= 0) {
      flagVariant = i
      outcome = feature.variantResults[i]
    }
  }
  // The flag's own outcomes, after its strategies': with them, the noted numbers say all the JSON shows.
  outcomes.push(
    strategiesResult === 'unknown' ? StrategiesResult.Unknown : strategiesResult ? StrategiesResult.True : StrategiesResult.False,
    +hasUnsatisfiedDependency,
    flagVariant,
  )

  const last = lastWritten.get(feature)
  if (last !== undefined && last.editLinkPrefix === editLinkPrefix && sameOutcomes(last.outcomes, outcomes)) {
    out.write(last.json)
    return
  }
  const json = writeFeature(feature, outcomes, editLinkPrefix, {
    strategiesResult,
    hasUnsatisfiedDependency,
    isEnabled,
    outcome,
    variantsJson: found.winningVariantsJson ?? feature.variantsJson,
  })
  lastWritten.set(feature, { outcomes: outcomes.slice(), editLinkPrefix, json })
  out.write(json)
}
