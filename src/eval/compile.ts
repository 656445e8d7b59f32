import { always, compileConstraint, constraintCost, never, valueOf, type ContextTest } from './operators.js'
import { bucketOf } from './hash.js'
import { compileStrategyRule, plainRollout, stringParameters, type StrategyEnvironment } from './strategies.js'
import type { EvalConstraint, EvalContext, EvalDependency, EvalFeature, EvalResult, EvalSegment, EvalStrategy } from './types.js'
import { compileVariants, disabledVariant, enabledVariant, type CompiledVariants } from './variants.js'
import { flat } from './flat-string.js'

export interface CompiledSegment {
  id: number
  name: string
  // Compared on setSegments so that only features using a changed segment recompile.
  fingerprint: string
  constraints: EvalConstraint[]
  // Each constraint's test, by index (a null entry's: never).
  tests: ContextTest[]
}

export interface SegmentReference {
  id: number
  // undefined: the id is not in the segment list, which makes the strategy false (SDK, spec 15).
  segment: CompiledSegment | undefined
}

// What evaluating a flag needs, and no more: the playground's explanation is written from `source` when it
// is asked for (explain.ts), not kept here (issue 26: its text was most of 9 KB a flag).
export interface CompiledStrategy {
  source: EvalStrategy
  parameters: Record<string, string>
  isDisabled: boolean
  // Each entry of source.constraints' test, by index (a null entry's: never).
  constraintTests: ContextTest[]
  segments: readonly SegmentReference[]
  // undefined: unknown strategy name.
  rule: ContextTest | undefined
  variants: CompiledVariants | undefined
  // Indexed like the strategy's variants.
  variantResults: EvalResult[]
  // Constraints AND segments AND rule, short-circuiting, in the SDK's order. Only where evaluate() reads it:
  // an active strategy after the first (the flag's own fields hold the first one's test).
  test: ContextTest | undefined
}

export interface CompiledFeature {
  // What an evaluation reads, first (the object's first cache line or two): in the frontend API and the
  // playground every flag is evaluated in turn, and most of an evaluation's time is cache misses.
  // How to evaluate it: off (not on in the environment, or no strategy list), one pass over its
  // strategies (no dependencies, at least one active strategy), or the general way.
  mode: EvaluationMode
  // The first active strategy's test, in the flag's object: its constraints and segments (`firstGuard` the
  // first of their tests in guardTests' order, `firstGuardRest` the others: no conjunction's closure to reach
  // first), then its rule: when a plain flexibleRollout (PlainRollout), the bucket of its numbers here
  // (firstRollout 0 when not such a strategy), else `firstRule` (isFirstRuleOn). Then its variants and their
  // results.
  firstGuard: ContextTest
  firstGuardRest: ContextTest
  firstRollout: number
  firstStickiness: string
  firstHashState: number
  firstHashBefore: number
  firstHashHead: number
  firstHashHeadLength: number
  // The rule as compiled; `inlinedRollout` for a plain flexibleRollout by a context field, which the fields
  // above decide alone (its closure was 144 bytes a flag, issue 26).
  firstRule: ContextTest
  firstVariants: CompiledVariants | undefined
  onWithoutVariant: EvalResult
  off: EvalResult
  strategyCount: number
  firstVariantResults: EvalResult[]
  variants: CompiledVariants | undefined
  variantResults: EvalResult[]
  // The frontend API's toggle JSON up to the variant: `{"name":..,"enabled":true`; toggleTail() the rest.
  toggleHead: string
  name: string
  projectId: string
  isEnabledInEnvironment: boolean
  hasStrategyList: boolean
  // The strategies as given (disabled ones included, for explain()); the first active one is compiled into
  // the fields above and the three below, and not again as a CompiledStrategy (issue 26: most flags have one
  // strategy, and its object and the list of one were 7 MiB at 50,000 flags).
  sources: readonly EvalStrategy[]
  // Its place among the sources (-1: none is active), its constraints' tests by index (explain() reads them:
  // looking them up again from the constraints cost the playground about 1 µs a flag) and its segments.
  firstIndex: number
  firstConstraintTests: ContextTest[]
  firstSegments: readonly SegmentReference[]
  // The active strategies after the first (disabled ones are never sent to SDKs), which evaluate() runs in turn.
  restActive: CompiledStrategy[]
  // Every strategy but the first active one, in order, for explain() (restActive itself when none is disabled).
  others: CompiledStrategy[]
  dependencies: EvalDependency[]
  // What the caller compiled it from (upsertFeature), for telling whether that changed since.
  origin: object | undefined
}

export const enum EvaluationMode {
  Off = 0,
  Strategies = 1,
  General = 2,
}

// The end of the frontend API's toggle JSON for each result with enabled: true, after the flag's toggleHead:
// `,"variant":..,"impressionData":..}`. By result object, so that flags share the ones without a variant.
const toggleTails = new WeakMap<EvalResult, string>()

export const toggleTail = (result: EvalResult): string => toggleTails.get(result)!

const frozenResult = (enabled: boolean, variant: EvalResult['variant'], impressionData: boolean): EvalResult => {
  const result = Object.freeze({ enabled, variant, impressionData })
  if (enabled) toggleTails.set(result, flat(`,"variant":${JSON.stringify(variant)},"impressionData":${impressionData}}`))
  return result
}

// Shared by every flag and strategy that has none (most of them).
const noTests: ContextTest[] = []
const noSegments: readonly SegmentReference[] = []
const noStrategies: CompiledStrategy[] = []
const noSources: readonly EvalStrategy[] = []
const noResults: EvalResult[] = []
const noDependencies: EvalDependency[] = []
const noIds: number[] = []

// The results without a variant are the same for every flag (by impressionData): shared, so that an
// evaluation that ends on one reads an object every other evaluation keeps in cache. Results are frozen.
const on = frozenResult(true, disabledVariant(true), false)
const onWithImpressions = frozenResult(true, disabledVariant(true), true)
const offPlain = frozenResult(false, disabledVariant(false), false)
const offWithImpressions = frozenResult(false, disabledVariant(false), true)

const testsOf = (constraints: EvalConstraint[]): ContextTest[] =>
  // A null entry in a constraint list fails its strategy (SDK checkConstraints).
  constraints.length === 0 ? noTests : constraints.map((c) => (c ? compileConstraint(c) : never))

export const compileSegment = (segment: EvalSegment): CompiledSegment => {
  const constraints = segment.constraints ?? []
  return {
    id: segment.id,
    name: segment.name ?? '',
    fingerprint: JSON.stringify([segment.name ?? '', constraints]),
    constraints,
    tests: testsOf(constraints),
  }
}

// Each shape of conjunction in a function of its own: a closure keeps its creator's whole context, and one
// context for them all would keep the list alive beside the two or three tests it holds.
const both = (a: ContextTest, b: ContextTest): ContextTest => (ctx) => a(ctx) && b(ctx)
const all3 = (a: ContextTest, b: ContextTest, c: ContextTest): ContextTest => (ctx) => a(ctx) && b(ctx) && c(ctx)
const every = (tests: ContextTest[]): ContextTest => (ctx) => {
  for (let i = 0; i < tests.length; i++) if (!tests[i](ctx)) return false
  return true
}

// The tests a conjunction has to run: undefined when one is never (so is the conjunction), else those not always true.
const liveTests = (tests: ContextTest[]): ContextTest[] | undefined => (tests.includes(never) ? undefined : tests.filter((t) => t !== always))

// allOf(tests) as its first test and the conjunction of the others.
const headAndRest = (tests: ContextTest[]): [ContextTest, ContextTest] => {
  const live = liveTests(tests)
  if (live === undefined) return [never, always]
  const [head = always, ...rest] = live
  return [head, allOf(rest)]
}

const allOf = (tests: ContextTest[]): ContextTest => {
  const live = liveTests(tests)
  if (live === undefined) return never
  if (live.length === 0) return always
  if (live.length === 1) return live[0]
  if (live.length === 2) return both(live[0], live[1])
  if (live.length === 3) return all3(live[0], live[1], live[2])
  return every(live)
}

// The tests of a strategy's constraints and then of its segments' constraints (a missing segment's: never), the
// cheap ones first (constraintCost).
const guardTests = (constraints: EvalConstraint[], constraintTests: ContextTest[], segments: readonly SegmentReference[]): ContextTest[] => {
  const tests: { test: ContextTest; cost: number | undefined }[] = constraintTests.map((test, i) => ({ test, cost: constraintCost(constraints[i]) }))
  for (const { segment } of segments) {
    if (segment === undefined) tests.push({ test: never, cost: 0 })
    else segment.tests.forEach((test, i) => tests.push({ test, cost: constraintCost(segment.constraints[i]) }))
  }
  // The cheap tests first within each run between DATE_* tests (a stable sort: equal costs keep their order).
  const ordered: ContextTest[] = []
  let run: { test: ContextTest; cost: number }[] = []
  const endRun = (): void => {
    run.sort((a, b) => a.cost - b.cost)
    for (const { test } of run) ordered.push(test)
    run = []
  }
  for (const { test, cost } of tests) {
    if (cost !== undefined) run.push({ test, cost })
    else {
      endRun()
      ordered.push(test)
    }
  }
  endRun()
  return ordered
}

const segmentReferences = (source: EvalStrategy, segmentsById: ReadonlyMap<number, CompiledSegment>): readonly SegmentReference[] => {
  const segmentIds = source.segments ?? []
  return segmentIds.length === 0 ? noSegments : segmentIds.map((id) => ({ id, segment: segmentsById.get(id) }))
}

// `withTest`: the strategy is active (not the flag's first active one, whose test the flag holds itself).
const compileStrategy = (
  source: EvalStrategy,
  segmentsById: ReadonlyMap<number, CompiledSegment>,
  env: StrategyEnvironment,
  impressionData: boolean,
  withTest: boolean,
): CompiledStrategy => {
  const parameters = stringParameters(source.parameters)
  const constraintTests = testsOf(source.constraints ?? [])
  const segments = segmentReferences(source, segmentsById)
  const rule = compileStrategyRule(source.name, parameters, env)
  const definitions = source.variants ?? []
  // Unleash: SDK strategy.ts getResult: groupId is used raw ("undefined" when absent).
  const variants =
    definitions.length > 0
      ? compileVariants(definitions, `${parameters.groupId}`, definitions[0].stickiness || parameters.stickiness, env.random)
      : undefined
  return {
    source,
    parameters,
    isDisabled: source.disabled === true,
    constraintTests,
    segments,
    rule,
    variants,
    variantResults: definitions.length === 0 ? noResults : definitions.map((d) => frozenResult(true, enabledVariant(d), impressionData)),
    test: withTest ? allOf([...guardTests(source.constraints ?? [], constraintTests, segments), rule ?? never]) : undefined,
  }
}

// The first strategy's rule of a plain flexibleRollout by a context field: never called, as isFirstRuleOn reads
// the flag's numbers instead.
const inlinedRollout: ContextTest = () => {
  throw new Error('a plain flexibleRollout is evaluated from its flag\'s fields')
}

// The first active strategy's rule: a plain flexibleRollout's bucket from the flag's own fields (its rule only
// when the default stickiness finds neither userId nor sessionId and draws a random id), else its rule.
export const isFirstRuleOn = (feature: CompiledFeature, ctx: EvalContext): boolean => {
  const rollout = feature.firstRollout
  if (rollout === 0) return feature.firstRule(ctx)
  const stickiness = feature.firstStickiness
  let id: unknown
  if (stickiness === '') {
    id = ctx.userId || ctx.sessionId
    if (!id) return feature.firstRule(ctx)
  } else {
    id = valueOf(ctx, stickiness)
    if (!id) return false
  }
  if (rollout === 100) return true
  const key = typeof id === 'string' ? id : `${id}`
  return bucketOf(feature.firstHashState, feature.firstHashBefore, feature.firstHashHead, feature.firstHashHeadLength, key, 100) <= rollout
}

// The segments the flag's strategies use, each once (for the index of flags by segment).
export const segmentIdsOf = (feature: CompiledFeature): readonly number[] =>
  feature.sources.some((s) => (s.segments ?? noIds).length > 0) ? [...new Set(feature.sources.flatMap((s) => s.segments ?? noIds))] : noIds

// The flag's first active strategy as a CompiledStrategy, made for explain() from the flag's own fields.
export const firstStrategyOf = (feature: CompiledFeature): CompiledStrategy => {
  const source = feature.sources[feature.firstIndex]
  return {
    source,
    parameters: stringParameters(source.parameters),
    isDisabled: false,
    constraintTests: feature.firstConstraintTests,
    segments: feature.firstSegments,
    // An unknown strategy's rule is never here, not undefined: explain() tells it by its name.
    rule: feature.firstRule === inlinedRollout ? (ctx) => isFirstRuleOn(feature, ctx) : feature.firstRule,
    variants: feature.firstVariants,
    variantResults: feature.firstVariantResults,
    test: undefined,
  }
}

// What a flag was compiled from, given back from its compiled form (which keeps the lists it was given): for
// compiling it again when a segment changes. The object it came from is not kept with it (issue 26: 3.8 MiB
// at 50,000 flags).
export const sourceOf = (feature: CompiledFeature): EvalFeature => ({
  name: feature.name,
  project: feature.projectId,
  enabled: feature.isEnabledInEnvironment,
  strategies: feature.hasStrategyList ? (feature.sources as EvalStrategy[]) : undefined,
  variants: feature.variants?.definitions ?? [],
  dependencies: feature.dependencies,
  impressionData: feature.off.impressionData,
})

export const compileFeature = (
  source: EvalFeature,
  segmentsById: ReadonlyMap<number, CompiledSegment>,
  env: StrategyEnvironment,
  origin?: object,
): CompiledFeature => {
  const impressionData = source.impressionData === true
  const sources = Array.isArray(source.strategies) ? source.strategies : noSources
  const firstIndex = sources.findIndex((s) => s.disabled !== true)
  const firstSource = firstIndex < 0 ? undefined : sources[firstIndex]
  const others =
    sources.length === (firstIndex < 0 ? 0 : 1)
      ? noStrategies
      : sources.filter((_, i) => i !== firstIndex).map((s) => compileStrategy(s, segmentsById, env, impressionData, s.disabled !== true))
  const restActive = others.some((s) => s.isDisabled) ? others.filter((s) => !s.isDisabled) : others
  const definitions = Array.isArray(source.variants) ? source.variants : []
  const variants =
    definitions.length > 0 ? compileVariants(definitions, source.name, definitions[0].stickiness ?? undefined, env.random) : undefined
  const projectId = source.project ?? 'default'
  const dependencies = source.dependencies !== undefined && source.dependencies.length > 0 ? source.dependencies : noDependencies
  const first = firstSource === undefined ? undefined : compileStrategy(firstSource, segmentsById, env, impressionData, false)
  const rollout = first === undefined ? undefined : plainRollout(first.source.name, first.parameters)
  // A rule that is never true runs no constraint either, as a conjunction with `never` in it (allOf): a DATE_*
  // constraint tells the clock watch what it read (observe()).
  const [guard, guardRest] =
    first === undefined || (first.rule ?? never) === never ? [never, always] : headAndRest(guardTests(first.source.constraints ?? [], first.constraintTests, first.segments))
  const live = !!source.enabled && Array.isArray(source.strategies)
  return {
    mode: !live ? EvaluationMode.Off : dependencies.length === 0 && first !== undefined ? EvaluationMode.Strategies : EvaluationMode.General,
    firstGuard: guard,
    firstGuardRest: guardRest,
    firstRollout: rollout?.rollout ?? 0,
    firstStickiness: rollout?.stickiness ?? '',
    firstHashState: rollout?.state ?? 0,
    firstHashBefore: rollout?.before ?? 0,
    firstHashHead: rollout?.head ?? 0,
    firstHashHeadLength: rollout?.headLength ?? 0,
    firstRule: rollout !== undefined && rollout.stickiness !== '' ? inlinedRollout : (first?.rule ?? never),
    firstVariants: first?.variants,
    onWithoutVariant: impressionData ? onWithImpressions : on,
    off: impressionData ? offWithImpressions : offPlain,
    strategyCount: first === undefined ? 0 : 1 + restActive.length,
    firstVariantResults: first?.variantResults ?? noResults,
    variants,
    variantResults: definitions.length === 0 ? noResults : definitions.map((d) => frozenResult(true, enabledVariant(d), impressionData)),
    toggleHead: flat(`{"name":${JSON.stringify(source.name)},"enabled":true`),
    name: source.name,
    projectId,
    isEnabledInEnvironment: !!source.enabled,
    hasStrategyList: Array.isArray(source.strategies),
    sources,
    firstIndex,
    firstConstraintTests: first?.constraintTests ?? noTests,
    firstSegments: first?.segments ?? noSegments,
    restActive,
    others,
    dependencies,
    origin,
  }
}
