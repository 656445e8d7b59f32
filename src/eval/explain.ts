import type { CompiledFeature, CompiledSegment, CompiledStrategy } from './compile.js'
import type {
  EvalContext,
  EvalResult,
  EvalVariantResult,
  PlaygroundConstraint,
  PlaygroundFeature,
  PlaygroundSegment,
  PlaygroundStrategy,
  PlaygroundStrategyResult,
} from './types.js'

interface StrategyExplanation {
  data: PlaygroundStrategy
  // The result evaluate() would take from this strategy when it wins.
  winningResult: EvalResult | undefined
}

const explainConstraints = (constraints: CompiledSegment['constraints'], ctx: EvalContext): PlaygroundConstraint[] =>
  constraints.filter((c) => c.source).map((c) => ({ ...c.source, result: c.test(ctx) }))

const explainSegment = (id: number, segment: CompiledSegment | undefined, ctx: EvalContext): PlaygroundSegment => {
  // A segment id missing from the segment list fails the strategy, as in SDKs.
  if (segment === undefined) return { id, name: '', result: false, constraints: [] }
  const constraints = explainConstraints(segment.constraints, ctx)
  return { id, name: segment.name, result: constraints.every((c) => c.result), constraints }
}

const copyVariant = (variant: EvalVariantResult): EvalVariantResult =>
  variant.payload === undefined
    ? { name: variant.name, enabled: variant.enabled, feature_enabled: variant.feature_enabled, featureEnabled: variant.featureEnabled }
    : { ...variant, payload: { ...variant.payload } }

// Unleash: the playground evaluates every strategy and every constraint, with
// no short-circuit, so that each one can be shown with its own result.
const explainStrategy = (strategy: CompiledStrategy, ctx: EvalContext, onWithoutVariant: EvalResult): StrategyExplanation => {
  const constraints = explainConstraints(strategy.constraints, ctx)
  const segments = strategy.segments.map((ref) => explainSegment(ref.id, ref.segment, ctx))
  const conditionsPass = constraints.every((c) => c.result) && segments.every((s) => s.result)
  let result: PlaygroundStrategyResult
  let winningResult: EvalResult | undefined
  if (strategy.isDisabled) {
    result = { evaluationStatus: 'unevaluated', enabled: 'unknown' }
  } else if (strategy.rule === undefined) {
    result = { evaluationStatus: 'incomplete', enabled: conditionsPass ? 'unknown' : false }
  } else {
    const enabled = conditionsPass && strategy.rule(ctx)
    result = { evaluationStatus: 'complete', enabled }
    if (enabled) {
      winningResult = onWithoutVariant
      const i = strategy.variants === undefined ? -1 : strategy.variants.select(ctx)
      if (i >= 0) {
        winningResult = strategy.variantResults[i]
        const { name, payload } = winningResult.variant
        result.variant = payload === undefined ? { name, enabled: true } : { name, enabled: true, payload: { ...payload } }
        result.variants = strategy.source.variants ?? []
      }
    }
  }
  const { source } = strategy
  const data: PlaygroundStrategy = {
    name: source.name,
    id: source.id ?? '',
    ...(typeof source.title === 'string' ? { title: source.title } : {}),
    disabled: strategy.isDisabled,
    parameters: { ...strategy.parameters },
    constraints,
    segments,
    result,
    links: { edit: '' },
  }
  return { data, winningResult }
}

// isEnabled and variant follow evaluate(): disabled strategies are invisible
// to SDKs, unknown ones are false, and the first true strategy picks the
// variant. links.edit is left to the HTTP layer, which knows project and env.
export const explainFeature = (feature: CompiledFeature, ctx: EvalContext, hasUnsatisfiedDependency: boolean): PlaygroundFeature => {
  const explanations = feature.strategies.map((s) => explainStrategy(s, ctx, feature.onWithoutVariant))
  const data = explanations.map((e) => e.data)
  const isEnabledInCurrentEnvironment = feature.isEnabledInEnvironment
  let strategiesResult: boolean | 'unknown'
  if (!feature.hasStrategyList) strategiesResult = false
  else if (feature.activeStrategies.length === 0) strategiesResult = isEnabledInCurrentEnvironment
  else if (data.some((d) => d.result.evaluationStatus === 'complete' && d.result.enabled === true)) strategiesResult = true
  else if (data.some((d) => d.result.enabled === 'unknown')) strategiesResult = 'unknown'
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
  const strategyVariants = winner?.data.result.evaluationStatus === 'complete' ? winner.data.result.variants : undefined
  return {
    name: feature.name,
    projectId: feature.projectId,
    strategies: { result: strategiesResult, data },
    hasUnsatisfiedDependency,
    isEnabledInCurrentEnvironment,
    isEnabled,
    variant: copyVariant(outcome.variant),
    variants: strategyVariants ?? (Array.isArray(feature.source.variants) ? feature.source.variants : []),
  }
}
