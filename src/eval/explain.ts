import type { CompiledConstraint, CompiledFeature, CompiledSegment, CompiledStrategy } from './compile.js'
import type { EvalContext, EvalResult } from './types.js'

// The playground's explanation (types.ts PlaygroundFeature), written as JSON straight from the constant
// parts compiled with each flag (compile.ts explainHead, ...): evaluation only adds the results.

interface StrategyExplanation {
  json: string
  complete: boolean
  enabled: boolean | 'unknown'
  // The result evaluate() would take from this strategy when it wins.
  winningResult: EvalResult | undefined
  // The strategy's variants, when it selected one of them.
  variantsJson: string | undefined
}

const unevaluated = '{"evaluationStatus":"unevaluated","enabled":"unknown"}'
const incompleteUnknown = '{"evaluationStatus":"incomplete","enabled":"unknown"}'
const incompleteFalse = '{"evaluationStatus":"incomplete","enabled":false}'
const completeTrue = '{"evaluationStatus":"complete","enabled":true}'
const completeFalse = '{"evaluationStatus":"complete","enabled":false}'

// Appends each constraint with its result (null entries are not shown); false when any is false.
const explainConstraints = (constraints: CompiledConstraint[], ctx: EvalContext, out: { json: string }): boolean => {
  let all = true
  let first = true
  for (const c of constraints) {
    if (!c.source) continue
    const result = c.test(ctx)
    all &&= result
    out.json += `${first ? '' : ','}${c.explainHead}${result}}`
    first = false
  }
  return all
}

const explainSegment = (id: number, segment: CompiledSegment | undefined, ctx: EvalContext, out: { json: string }): boolean => {
  // A segment id missing from the segment list fails the strategy, as in SDKs.
  if (segment === undefined) {
    out.json += `{"id":${id},"name":"","result":false,"constraints":[]}`
    return false
  }
  const constraints = { json: '' }
  const result = explainConstraints(segment.constraints, ctx, constraints)
  out.json += `${segment.explainHead}${result},"constraints":[${constraints.json}]}`
  return result
}

// Unleash: the playground evaluates every strategy and every constraint, with
// no short-circuit, so that each one can be shown with its own result.
const explainStrategy = (strategy: CompiledStrategy, ctx: EvalContext, onWithoutVariant: EvalResult, editLinkPrefix: string | undefined): StrategyExplanation => {
  const out = { json: strategy.explainHead }
  let conditionsPass = explainConstraints(strategy.constraints, ctx, out)
  out.json += '],"segments":['
  for (let i = 0; i < strategy.segments.length; i++) {
    if (i > 0) out.json += ','
    const ref = strategy.segments[i]
    conditionsPass = explainSegment(ref.id, ref.segment, ctx, out) && conditionsPass
  }
  let result: string
  let complete = false
  let enabled: boolean | 'unknown' = false
  let winningResult: EvalResult | undefined
  let variantsJson: string | undefined
  if (strategy.isDisabled) {
    result = unevaluated
    enabled = 'unknown'
  } else if (strategy.rule === undefined) {
    enabled = conditionsPass ? 'unknown' : false
    result = conditionsPass ? incompleteUnknown : incompleteFalse
  } else {
    complete = true
    enabled = conditionsPass && strategy.rule(ctx)
    result = enabled ? completeTrue : completeFalse
    if (enabled) {
      winningResult = onWithoutVariant
      const i = strategy.variants === undefined ? -1 : strategy.variants.select(ctx)
      if (i >= 0) {
        winningResult = strategy.variantResults[i]
        result = strategy.explainVariantResults[i]
        variantsJson = strategy.variantsJson
      }
    }
  }
  const edit = editLinkPrefix === undefined ? '' : editLinkPrefix + strategy.linkId
  out.json += `],"result":${result},"links":{"edit":"${edit}"}}`
  return { json: out.json, complete, enabled, winningResult, variantsJson }
}

// isEnabled and variant follow evaluate(): disabled strategies are invisible
// to SDKs, unknown ones are false, and the first true strategy picks the
// variant. Each strategy's links.edit is `editLinkPrefix` + its URL-encoded id ('' without a prefix):
// the HTTP layer knows the project, the flag and the environment, and encodes them.
export const explainFeatureJson = (
  feature: CompiledFeature,
  ctx: EvalContext,
  hasUnsatisfiedDependency: boolean,
  editLinkPrefix: string | undefined,
): string => {
  const explanations = feature.strategies.map((s) => explainStrategy(s, ctx, feature.onWithoutVariant, editLinkPrefix))
  const isEnabledInCurrentEnvironment = feature.isEnabledInEnvironment
  let strategiesResult: boolean | 'unknown'
  if (!feature.hasStrategyList) strategiesResult = false
  else if (feature.activeStrategies.length === 0) strategiesResult = isEnabledInCurrentEnvironment
  else if (explanations.some((e) => e.complete && e.enabled === true)) strategiesResult = true
  else if (explanations.some((e) => e.enabled === 'unknown')) strategiesResult = 'unknown'
  else strategiesResult = false
  const isEnabled = strategiesResult === true && isEnabledInCurrentEnvironment && !hasUnsatisfiedDependency

  const winner = explanations.find((e) => e.winningResult !== undefined)
  let outcome: EvalResult = feature.off
  if (isEnabled) {
    outcome = winner?.winningResult ?? feature.onWithoutVariant
    if (outcome === feature.onWithoutVariant && feature.variants !== undefined) {
      const i = feature.variants.select(ctx)
      if (i >= 0) outcome = feature.variantResults[i]
    }
  }
  const data = explanations.map((e) => e.json).join(',')
  return (
    `${feature.explainHead}${typeof strategiesResult === 'string' ? '"unknown"' : strategiesResult},"data":[${data}]},` +
    `"hasUnsatisfiedDependency":${hasUnsatisfiedDependency},"isEnabledInCurrentEnvironment":${isEnabledInCurrentEnvironment},` +
    `"isEnabled":${isEnabled},"variant":${feature.variantJson.get(outcome)!},"variants":${winner?.variantsJson ?? feature.variantsJson}}`
  )
}
