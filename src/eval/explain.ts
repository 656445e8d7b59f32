import type { Utf8Builder } from './utf8-builder.js'
import { firstStrategyOf, type CompiledFeature, type CompiledStrategy } from './compile.js'
import type { ContextTest } from './operators.js'
import type { EvalConstraint, EvalContext, EvalResult, EvalVariantResult } from './types.js'

// The playground's explanation (types.ts PlaygroundFeature), written as JSON from each flag's definition
// while it is evaluated. Nothing of it is kept with the compiled flag (issue 26: the constant parts kept
// per constraint and strategy were most of the evaluator's 9 KB a flag), nor after the answer.

// Unleash's playground evaluator knows these; any other strategy is "unknown" there (SEMANTICS 1.4), even
// where an SDK has a rule (applicationHostname, userWithId).
const playgroundStrategies = new Set(['default', 'gradualRolloutRandom', 'gradualRolloutUserId', 'gradualRolloutSessionId', 'remoteAddress', 'flexibleRollout'])

// From the end of a strategy's segments to its edit link.
const resultTail = (result: string) => `],"result":${result},"links":{"edit":"`
const unevaluated = resultTail('{"evaluationStatus":"unevaluated","enabled":"unknown"}')
const incompleteUnknown = resultTail('{"evaluationStatus":"incomplete","enabled":"unknown"}')
const incompleteFalse = resultTail('{"evaluationStatus":"incomplete","enabled":false}')
const completeTrue = resultTail('{"evaluationStatus":"complete","enabled":true}')
const completeFalse = resultTail('{"evaluationStatus":"complete","enabled":false}')

// `{...value,"result":result}` as JSON; without a copy of the object where it has fields and no result.
const withResult = (value: object, result: boolean): string => {
  const json = JSON.stringify(value)
  if (json.length <= 2 || Object.hasOwn(value, 'result')) return JSON.stringify({ ...value, result })
  return `${json.slice(0, -1)},"result":${result}}`
}

// The shown constraints (null entries are not shown) with their results, and whether all are true.
// Unleash: the playground evaluates every constraint, with no short-circuit, so that each can be shown.
let allTrue = true
const constraintsJson = (constraints: readonly EvalConstraint[], tests: readonly ContextTest[], ctx: EvalContext): string => {
  let json = ''
  let all = true
  for (let i = 0; i < constraints.length; i++) {
    const constraint = constraints[i]
    if (!constraint) continue
    const result = tests[i](ctx)
    all &&= result
    json += `${json === '' ? '' : ','}${withResult(constraint, result)}`
  }
  allTrue = all
  return json
}

// `{"name":..,"id":..,["title":..,]"disabled":..,"parameters":{..},"constraints":[`
const strategyHead = (strategy: CompiledStrategy): string => {
  const { source } = strategy
  const title = typeof source.title === 'string' ? `"title":${JSON.stringify(source.title)},` : ''
  return (
    `{"name":${JSON.stringify(source.name)},"id":${JSON.stringify(source.id ?? '')},${title}` +
    `"disabled":${strategy.isDisabled},"parameters":${JSON.stringify(strategy.parameters)},"constraints":[`
  )
}

// Unleash 8.2 writes the variant a strategy selects with feature_enabled alone, and so the disabled variant
// of a flag that is off; the flag's own variants (and the disabled one of a flag that is on) also have
// featureEnabled.
const variantJson = (variant: EvalVariantResult, withFeatureEnabled: boolean): string => {
  if (withFeatureEnabled) return JSON.stringify(variant)
  const { featureEnabled: _featureEnabled, ...shown } = variant
  return JSON.stringify(shown)
}

// A strategy that selects its i-th variant shows it (whatever the strategy's result) and all its variants.
const variantTail = (strategy: CompiledStrategy, i: number, enabled: boolean): string => {
  const definitions = strategy.source.variants ?? []
  const d = definitions[i]
  const variant = d.payload === undefined ? { name: d.name, enabled: true } : { name: d.name, enabled: true, payload: d.payload }
  return resultTail(
    `{"evaluationStatus":"complete","enabled":${enabled},"variant":${JSON.stringify(variant)},"variants":${JSON.stringify(definitions)}}`,
  )
}

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
  let anyCompleteTrue = false
  let anyUnknown = false
  // The result evaluate() takes from the first strategy that is on, and that strategy when it selected one
  // of its variants.
  let winningResult: EvalResult | undefined
  let winningVariants: CompiledStrategy | undefined
  let data = ''
  const { sources, others, firstIndex } = feature
  for (let s = 0; s < sources.length; s++) {
    const strategy = s === firstIndex ? firstStrategyOf(feature) : others[s < firstIndex || firstIndex < 0 ? s : s - 1]
    const { source } = strategy
    const constraints = constraintsJson(source.constraints ?? [], strategy.constraintTests, ctx)
    let conditionsPass = allTrue
    let segments = ''
    for (let i = 0; i < strategy.segments.length; i++) {
      const { id, segment } = strategy.segments[i]
      if (i > 0) segments += ','
      // A segment id missing from the segment list fails the strategy, as in SDKs.
      if (segment === undefined) {
        segments += `{"id":${id},"name":"","result":false,"constraints":[]}`
        conditionsPass = false
        continue
      }
      const json = constraintsJson(segment.constraints, segment.tests, ctx)
      conditionsPass = allTrue && conditionsPass
      segments += `${JSON.stringify({ id, name: segment.name }).slice(0, -1)},"result":${allTrue},"constraints":[${json}]}`
    }
    let tail: string
    if (strategy.isDisabled) {
      tail = unevaluated
      anyUnknown = true
    } else if (strategy.rule === undefined || !playgroundStrategies.has(source.name)) {
      tail = conditionsPass ? incompleteUnknown : incompleteFalse
      if (conditionsPass) anyUnknown = true
    } else {
      const isOn = conditionsPass && strategy.rule(ctx)
      // Unleash selects the strategy's variant whatever the strategy's result, and shows it.
      const i = strategy.variants === undefined ? -1 : strategy.variants.select(ctx)
      tail = i >= 0 ? variantTail(strategy, i, isOn) : isOn ? completeTrue : completeFalse
      if (isOn) {
        anyCompleteTrue = true
        if (winningResult === undefined) {
          winningResult = i >= 0 ? strategy.variantResults[i] : feature.onWithoutVariant
          winningVariants = i >= 0 ? strategy : undefined
        }
      }
    }
    const link = editLinkPrefix === undefined ? '' : `${editLinkPrefix}${encodeURIComponent(source.id ?? '')}`
    data += `${s === 0 ? '' : ','}${strategyHead(strategy)}${constraints}],"segments":[${segments}${tail}${link}"}}`
  }

  let strategiesResult: boolean | 'unknown'
  if (!feature.hasStrategyList) strategiesResult = false
  else if (feature.strategyCount === 0) strategiesResult = feature.isEnabledInEnvironment
  else if (anyCompleteTrue) strategiesResult = true
  else if (anyUnknown) strategiesResult = 'unknown'
  else strategiesResult = false
  const isEnabled = strategiesResult === true && feature.isEnabledInEnvironment && !hasUnsatisfiedDependency
  // The flag's own variant is chosen only when the winning strategy gave none.
  let outcome = isEnabled ? (winningResult ?? feature.onWithoutVariant) : feature.off
  if (outcome === feature.onWithoutVariant && feature.variants !== undefined) {
    const i = feature.variants.select(ctx)
    if (i >= 0) outcome = feature.variantResults[i]
  }
  const variants = winningVariants === undefined ? feature.variants?.definitions : winningVariants.source.variants
  out.write(
    `{"name":${JSON.stringify(feature.name)},"projectId":${JSON.stringify(feature.projectId)},` +
      `"strategies":{"result":${strategiesResult === 'unknown' ? '"unknown"' : strategiesResult},"data":[${data}]},` +
      `"hasUnsatisfiedDependency":${hasUnsatisfiedDependency},"isEnabledInCurrentEnvironment":${feature.isEnabledInEnvironment},` +
      `"isEnabled":${isEnabled},"variant":${variantJson(outcome.variant, isEnabled && winningVariants === undefined)},` +
      `"variants":${JSON.stringify(Array.isArray(variants) ? variants : [])}}`,
  )
}
