import { always, compileConstraint, never, type ContextTest } from './operators.js'
import { compileStrategyRule, stringParameters, type StrategyEnvironment } from './strategies.js'
import type { EvalConstraint, EvalDependency, EvalFeature, EvalResult, EvalSegment, EvalStrategy } from './types.js'
import { compileVariants, disabledVariant, enabledVariant, type CompiledVariants } from './variants.js'

export interface CompiledConstraint {
  source: EvalConstraint
  test: ContextTest
  // The playground's explanation of it (explain.ts), by its result: [false, true].
  explained: readonly [string, string]
}

export interface CompiledSegment {
  id: number
  name: string
  // Compared on setSegments so that only features using a changed segment recompile.
  fingerprint: string
  constraints: CompiledConstraint[]
  // `{"id":..,"name":..,"result":<result>,"constraints":[` (explain.ts), by its result: [false, true].
  explainHeads: readonly [string, string]
}

export interface CompiledStrategy {
  source: EvalStrategy
  parameters: Record<string, string>
  isDisabled: boolean
  constraints: CompiledConstraint[]
  // segment undefined: the id is not in the segment list, which makes the strategy false (SDK, spec 15).
  segments: { id: number; segment: CompiledSegment | undefined }[]
  // undefined: unknown strategy name.
  rule: ContextTest | undefined
  // The playground's rule: undefined for the strategies Unleash's server cannot evaluate (SEMANTICS 1.4),
  // which it shows as "unknown" even where an SDK has a rule (applicationHostname, userWithId).
  playgroundRule: ContextTest | undefined
  variants: CompiledVariants | undefined
  // Indexed like variants.definitions.
  variantResults: EvalResult[]
  // Constraints AND segments AND rule, short-circuiting, in the SDK's order.
  test: ContextTest
  // The playground's constant parts (explain.ts): name to parameters, then `,"constraints":[`.
  explainHead: string
  // From the end of the segments to the edit link when variants.definitions[i] is selected, by the
  // strategy's result ([false, true]): `],"result":{...},"links":{"edit":"`. Unleash shows the variant a
  // strategy would select even when it evaluates false.
  explainVariantTails: readonly [string[], string[]]
  variantsJson: string
  // The strategy id as it goes into the edit link.
  linkId: string
}

export interface CompiledFeature {
  // What an evaluation reads, first (the object's first cache line or two): in the frontend API and the
  // playground every flag is evaluated in turn, and most of an evaluation's time is cache misses.
  // How to evaluate it: off (not on in the environment, or no strategy list), one pass over its
  // strategies (no dependencies, at least one active strategy), or the general way.
  mode: EvaluationMode
  // The first active strategy's test, variants and their results.
  firstTest: ContextTest
  firstVariants: CompiledVariants | undefined
  onWithoutVariant: EvalResult
  off: EvalResult
  strategyCount: number
  firstVariantResults: EvalResult[]
  variants: CompiledVariants | undefined
  variantResults: EvalResult[]
  live: boolean
  hasDependencies: boolean
  source: EvalFeature
  name: string
  projectId: string
  isEnabledInEnvironment: boolean
  hasStrategyList: boolean
  // Every strategy, disabled ones included, for explain().
  strategies: CompiledStrategy[]
  // What an SDK sees: disabled strategies are never sent to it.
  activeStrategies: CompiledStrategy[]
  dependencies: EvalDependency[]
  // For the playground's edit links.
  encodedName: string
  encodedProjectId: string
  segmentIds: number[]
  // Each result with enabled: true this flag can give, as the frontend API's toggle JSON, serialised here once.
  toggleJson: ReadonlyMap<EvalResult, string>
  // The playground's constant parts (explain.ts): `{"name":..,"projectId":..,"strategies":{"result":`, the
  // JSON of each result's variant, and of the flag's own variants.
  explainHead: string
  variantJson: ReadonlyMap<EvalResult, string>
  variantsJson: string
}

export const enum EvaluationMode {
  Off = 0,
  Strategies = 1,
  General = 2,
}

const frozenResult = (enabled: boolean, variant: EvalResult['variant'], impressionData: boolean): EvalResult =>
  Object.freeze({ enabled, variant, impressionData })

// The results without a variant are the same for every flag (by impressionData): shared, so that an
// evaluation that ends on one reads an object every other evaluation keeps in cache. Results are
// frozen, and what is kept per flag and result (toggleJson, variantJson) is kept per flag.
const on = frozenResult(true, disabledVariant(true), false)
const onWithImpressions = frozenResult(true, disabledVariant(true), true)
const offPlain = frozenResult(false, disabledVariant(false), false)
const offWithImpressions = frozenResult(false, disabledVariant(false), true)

// `{...value,"result":` for a JSON object value: the result follows.
const withResultKey = (value: object): string => {
  const json = JSON.stringify({ ...value, result: null })
  return json.slice(0, -'null}'.length)
}

const byResult = (head: string, tail: string): readonly [string, string] => [`${head}false${tail}`, `${head}true${tail}`]

// A null entry in a constraint list fails its strategy (SDK checkConstraints).
const compileConstraintEntry = (source: EvalConstraint): CompiledConstraint => ({
  source,
  test: source ? compileConstraint(source) : never,
  explained: source ? byResult(withResultKey(source), '}') : ['', ''],
})

export const compileSegment = (segment: EvalSegment): CompiledSegment => {
  const constraints = segment.constraints ?? []
  return {
    id: segment.id,
    name: segment.name ?? '',
    fingerprint: JSON.stringify([segment.name ?? '', constraints]),
    constraints: constraints.map(compileConstraintEntry),
    explainHeads: byResult(withResultKey({ id: segment.id, name: segment.name ?? '' }), ',"constraints":['),
  }
}

// Unleash's playground evaluator knows these; any other strategy is "unknown" there (SEMANTICS 1.4).
const playgroundStrategies = new Set(['default', 'gradualRolloutRandom', 'gradualRolloutUserId', 'gradualRolloutSessionId', 'remoteAddress', 'flexibleRollout'])

const allOf = (tests: ContextTest[]): ContextTest => {
  if (tests.includes(never)) return never
  const live = tests.filter((t) => t !== always)
  if (live.length === 0) return always
  if (live.length === 1) return live[0]
  if (live.length === 2) {
    const [a, b] = live
    return (ctx) => a(ctx) && b(ctx)
  }
  if (live.length === 3) {
    const [a, b, c] = live
    return (ctx) => a(ctx) && b(ctx) && c(ctx)
  }
  return (ctx) => {
    for (let i = 0; i < live.length; i++) if (!live[i](ctx)) return false
    return true
  }
}

const compileStrategy = (
  source: EvalStrategy,
  segmentsById: ReadonlyMap<number, CompiledSegment>,
  env: StrategyEnvironment,
  impressionData: boolean,
): CompiledStrategy => {
  const parameters = stringParameters(source.parameters)
  const constraints = (source.constraints ?? []).map(compileConstraintEntry)
  const segments = (source.segments ?? []).map((id) => ({ id, segment: segmentsById.get(id) }))
  const rule = compileStrategyRule(source.name, parameters, env)
  const definitions = source.variants ?? []
  // Unleash: SDK strategy.ts getResult: groupId is used raw ("undefined" when absent).
  const variants =
    definitions.length > 0
      ? compileVariants(definitions, `${parameters.groupId}`, definitions[0].stickiness || parameters.stickiness, env.random)
      : undefined
  const tests: ContextTest[] = constraints.map((c) => c.test)
  for (const { segment } of segments) {
    if (segment === undefined) tests.push(never)
    else for (const c of segment.constraints) tests.push(c.test)
  }
  tests.push(rule ?? never)
  const constant = {
    name: source.name,
    id: source.id ?? '',
    ...(typeof source.title === 'string' ? { title: source.title } : {}),
    disabled: source.disabled === true,
    parameters,
  }
  const variantsJson = JSON.stringify(definitions)
  const variantTails = (enabled: boolean) =>
    definitions.map((d) => {
      const variant = d.payload === undefined ? { name: d.name, enabled: true } : { name: d.name, enabled: true, payload: d.payload }
      return `],"result":{"evaluationStatus":"complete","enabled":${enabled},"variant":${JSON.stringify(variant)},"variants":${variantsJson}},"links":{"edit":"`
    })
  return {
    explainHead: `${JSON.stringify(constant).slice(0, -1)},"constraints":[`,
    explainVariantTails: [variantTails(false), variantTails(true)],
    variantsJson,
    linkId: encodeURIComponent(source.id ?? ''),
    source,
    parameters,
    isDisabled: source.disabled === true,
    constraints,
    segments,
    rule,
    playgroundRule: playgroundStrategies.has(source.name) ? rule : undefined,
    variants,
    variantResults: definitions.map((d) => frozenResult(true, enabledVariant(d), impressionData)),
    test: allOf(tests),
  }
}

export const compileFeature = (
  source: EvalFeature,
  segmentsById: ReadonlyMap<number, CompiledSegment>,
  env: StrategyEnvironment,
): CompiledFeature => {
  const impressionData = source.impressionData === true
  const strategies = (Array.isArray(source.strategies) ? source.strategies : []).map((s) =>
    compileStrategy(s, segmentsById, env, impressionData),
  )
  const definitions = Array.isArray(source.variants) ? source.variants : []
  const variants =
    definitions.length > 0 ? compileVariants(definitions, source.name, definitions[0].stickiness ?? undefined, env.random) : undefined
  const onWithoutVariant = impressionData ? onWithImpressions : on
  const variantResults = definitions.map((d) => frozenResult(true, enabledVariant(d), impressionData))
  const off = impressionData ? offWithImpressions : offPlain
  const toggleJson = new Map<EvalResult, string>()
  // The playground's variant as Unleash 8.2 writes it (side by side): featureEnabled only on the variants
  // of the flag itself (and the disabled one of a flag that is on); a strategy's variant and the
  // disabled variant of a flag that is off have feature_enabled alone.
  const { featureEnabled: _offFeatureEnabled, ...offVariant } = off.variant
  const variantJson = new Map<EvalResult, string>([[off, JSON.stringify(offVariant)]])
  for (const result of [onWithoutVariant, ...variantResults]) {
    toggleJson.set(result, JSON.stringify({ name: source.name, enabled: true, variant: result.variant, impressionData }))
    variantJson.set(result, JSON.stringify(result.variant))
  }
  for (const result of strategies.flatMap((s) => s.variantResults)) {
    toggleJson.set(result, JSON.stringify({ name: source.name, enabled: true, variant: result.variant, impressionData }))
    const { featureEnabled: _featureEnabled, ...variant } = result.variant
    variantJson.set(result, JSON.stringify(variant))
  }
  const projectId = source.project ?? 'default'
  const activeStrategies = strategies.filter((s) => !s.isDisabled)
  const dependencies = source.dependencies ?? []
  const first = activeStrategies[0]
  const live = !!source.enabled && Array.isArray(source.strategies)
  return {
    mode: !live ? EvaluationMode.Off : dependencies.length === 0 && first !== undefined ? EvaluationMode.Strategies : EvaluationMode.General,
    firstTest: first?.test ?? never,
    firstVariants: first?.variants,
    onWithoutVariant,
    off,
    strategyCount: activeStrategies.length,
    firstVariantResults: first?.variantResults ?? [],
    variants,
    variantResults,
    live,
    hasDependencies: dependencies.length > 0,
    source,
    name: source.name,
    projectId,
    isEnabledInEnvironment: !!source.enabled,
    hasStrategyList: Array.isArray(source.strategies),
    strategies,
    activeStrategies,
    dependencies,
    encodedName: encodeURIComponent(source.name),
    encodedProjectId: encodeURIComponent(projectId),
    segmentIds: [...new Set(strategies.flatMap((s) => s.segments.map((ref) => ref.id)))],
    toggleJson,
    explainHead: `{"name":${JSON.stringify(source.name)},"projectId":${JSON.stringify(projectId)},"strategies":{"result":`,
    variantJson,
    variantsJson: JSON.stringify(definitions),
  }
}
