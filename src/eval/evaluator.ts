import os from 'node:os'
import { compileFeature, compileSegment, EvaluationMode, isFirstRuleOn, segmentIdsOf, sourceOf, toggleTail, type CompiledFeature, type CompiledSegment } from './compile.js'
import { Utf8Builder } from './utf8-builder.js'
import { explainFeature } from './explain.js'
import { always, clockWatch } from './operators.js'
import type { StrategyEnvironment } from './strategies.js'
import type { EvalContext, EvalDependency, EvalFeature, EvalResult, EvalSegment, PlaygroundFeature } from './types.js'
import { disabledVariant } from './variants.js'

// The compiled flags by name: a dictionary (an object without a prototype).
type FeatureMap = Readonly<Record<string, CompiledFeature | undefined>>

interface ExplainOrder {
  version: number
  compiled: CompiledFeature[]
  byName: Int32Array
  starts: Int32Array
  ends: Int32Array
}

const absent: EvalResult = Object.freeze({ enabled: false, variant: disabledVariant(false), impressionData: false })

const flagVariant = (feature: CompiledFeature, ctx: EvalContext): EvalResult => {
  const { variants } = feature
  if (variants === undefined) return feature.onWithoutVariant
  const i = variants.select(ctx)
  return i < 0 ? feature.onWithoutVariant : feature.variantResults[i]
}

// The first strategy's test from the flag's own fields: its guard, then its rule (isFirstRuleOn).
const isFirstOn = (feature: CompiledFeature, ctx: EvalContext): boolean => {
  const guard = feature.firstGuard
  if (guard !== always) {
    if (!guard(ctx)) return false
    const rest = feature.firstGuardRest
    if (rest !== always && !rest(ctx)) return false
  }
  return isFirstRuleOn(feature, ctx)
}

// Unleash: SDK client.ts isFeatureEnabled + resolveVariant in one pass.
// The first true strategy wins; its variants, if it selects one, beat the flag's.
// The first strategy is read from the feature itself (CompiledFeature's hot fields), the rest from the list.
const evaluateFeature = (feature: CompiledFeature, ctx: EvalContext, features: FeatureMap): EvalResult => {
  const mode = feature.mode
  if (mode === EvaluationMode.Off) return feature.off
  if (mode === EvaluationMode.General) {
    if (feature.dependencies.length > 0 && !areDependenciesSatisfied(feature, ctx, features)) return feature.off
    if (feature.strategyCount === 0) return flagVariant(feature, ctx)
  }
  const count = feature.strategyCount
  if (isFirstOn(feature, ctx)) {
    const variants = feature.firstVariants
    if (variants !== undefined) {
      const i = variants.select(ctx)
      if (i >= 0) return feature.firstVariantResults[i]
    }
    return flagVariant(feature, ctx)
  }
  const strategies = feature.restActive
  for (let s = 0; s < count - 1; s++) {
    const strategy = strategies[s]
    if (!strategy.test!(ctx)) continue
    if (strategy.variants !== undefined) {
      const i = strategy.variants.select(ctx)
      if (i >= 0) return strategy.variantResults[i]
    }
    return flagVariant(feature, ctx)
  }
  return feature.off
}

// Unleash: SDK client.ts isParentDependencySatisfied. A parent with parents
// of its own never satisfies, which also stops cycles.
const isDependencySatisfied = (dependency: EvalDependency, ctx: EvalContext, features: FeatureMap): boolean => {
  const parent = features[dependency.feature]
  if (parent === undefined || parent.dependencies.length > 0) return false
  const parentResult = evaluateFeature(parent, ctx, features)
  if (dependency.enabled === false) return !parentResult.enabled
  if (dependency.variants && dependency.variants.length > 0) {
    return parentResult.variant.feature_enabled && dependency.variants.includes(parentResult.variant.name)
  }
  return parentResult.enabled
}

const areDependenciesSatisfied = (feature: CompiledFeature, ctx: EvalContext, features: FeatureMap): boolean => {
  for (const dependency of feature.dependencies) if (!isDependencySatisfied(dependency, ctx, features)) return false
  return true
}

// One instance per environment. Writers compile and then replace a map entry
// or the whole map; evaluate() only reads.
export class Evaluator {
  // By name in a dictionary: a lookup takes about 11 ns in the bench's batches where a Map's takes 16 (issue
  // 26), and a Map beside it for the order took 1.8 MiB at 50,000 flags. Its order (insertion, with names
  // that are array indexes first) only decides which flags explainAll visits one after another.
  #byName: Record<string, CompiledFeature | undefined> = Object.create(null) as Record<string, CompiledFeature | undefined>
  #segments: Map<number, CompiledSegment> = new Map()
  #featuresBySegment: Map<number, Set<string>> = new Map()
  // The compiled flags by name (code-unit order): sorted on first use, then kept in order as flags come and go
  // (issue 26: sorting 50,000 names again after each write cost the first frontend answer after it about 40 ms).
  // #sortedVersion moves with every change to it, for what is derived from the order (#order).
  #sorted: CompiledFeature[] | undefined
  #sortedVersion = 0
  #order: ExplainOrder | undefined
  #randomReads = 0
  #size = 0
  readonly #env: StrategyEnvironment

  constructor(options: { hostname?: string; random?: () => number } = {}) {
    const hostname = options.hostname ?? (process.env.HOSTNAME || os.hostname() || 'undefined')
    const random = options.random ?? Math.random
    this.#env = {
      hostname: hostname.toLowerCase(),
      random: () => {
        this.#randomReads++
        return random()
      },
    }
  }

  // Runs `evaluate` (calls of this evaluator) and tells whether it drew a random number, and until when the
  // clock readings it made (DATE_* constraints without currentTime) give the same results (Infinity: for
  // good). An answer that drew nothing depends, until then, on its context and the flags alone.
  observe<T>(evaluate: () => T): { value: T; random: boolean; steadyUntil: number } {
    const randomBefore = this.#randomReads
    const outer = clockWatch.steadyUntil()
    clockWatch.restart()
    let steadyUntil = Number.POSITIVE_INFINITY
    try {
      const value = evaluate()
      steadyUntil = clockWatch.steadyUntil()
      return { value, random: this.#randomReads !== randomBefore, steadyUntil }
    } finally {
      clockWatch.restart(Math.min(outer, steadyUntil))
    }
  }

  // The frontend API's `toggles` array (SEMANTICS 5.8): each enabled flag of a project in scope, by name,
  // joined from the JSON compiled with the flag: evaluation only picks the fragments.
  enabledTogglesJson(context: EvalContext, inScope: (project: string) => boolean): string {
    const sorted = this.#sortedFeatures()
    let json = '['
    for (let i = 0; i < sorted.length; i++) {
      const feature = sorted[i]
      if (!inScope(feature.projectId)) continue
      const result = evaluateFeature(feature, context, this.#byName)
      if (!result.enabled) continue
      if (json.length > 1) json += ','
      json += feature.toggleHead + toggleTail(result)
    }
    return json + ']'
  }

  replaceAll(features: EvalFeature[], segments: EvalSegment[]): void {
    const segmentsById = new Map(segments.map((s) => [s.id, compileSegment(s)]))
    const byName = Object.create(null) as Record<string, CompiledFeature | undefined>
    const featuresBySegment = new Map<number, Set<string>>()
    for (const feature of features) {
      const previous = byName[feature.name]
      if (previous !== undefined) unindex(featuresBySegment, previous)
      const next = compileFeature(feature, segmentsById, this.#env)
      byName[feature.name] = next
      index(featuresBySegment, next)
    }
    this.#segments = segmentsById
    this.#byName = byName
    this.#featuresBySegment = featuresBySegment
    this.#size = Object.keys(byName).length
    this.#sorted = undefined
    this.#sortedVersion++
  }

  // `origin`: what the caller compiled it from, which originOf() gives back (compared there, so that the
  // caller keeps no map of its own beside this one: 1.8 MiB at 50,000 flags).
  upsertFeature(feature: EvalFeature, origin?: object): void {
    const previous = this.#byName[feature.name]
    if (previous !== undefined) unindex(this.#featuresBySegment, previous)
    else this.#size++
    const next = compileFeature(feature, this.#segments, this.#env, origin)
    this.#byName[next.name] = next
    index(this.#featuresBySegment, next)
    this.#placeSorted(next, previous !== undefined)
  }

  originOf(name: string): object | undefined {
    return this.#byName[name]?.origin
  }

  // How many flags are compiled.
  get size(): number {
    return this.#size
  }

  removeFeature(name: string): void {
    const previous = this.#byName[name]
    if (previous === undefined) return
    unindex(this.#featuresBySegment, previous)
    delete this.#byName[name]
    this.#size--
    this.#dropSorted(name)
  }

  setSegments(segments: EvalSegment[]): void {
    const next = new Map<number, CompiledSegment>()
    const changed = new Set<number>()
    for (const segment of segments) {
      const candidate = compileSegment(segment)
      const previous = this.#segments.get(segment.id)
      if (previous !== undefined && previous.fingerprint === candidate.fingerprint) next.set(segment.id, previous)
      else {
        next.set(segment.id, candidate)
        changed.add(segment.id)
      }
    }
    for (const id of this.#segments.keys()) if (!next.has(id)) changed.add(id)
    this.#segments = next
    const stale = new Set<string>()
    for (const id of changed) for (const name of this.#featuresBySegment.get(id) ?? []) stale.add(name)
    for (const name of stale) {
      const feature = this.#byName[name]
      if (feature === undefined) continue
      const recompiled = compileFeature(sourceOf(feature), next, this.#env, feature.origin)
      this.#byName[name] = recompiled
      this.#placeSorted(recompiled, true)
    }
  }

  has(name: string): boolean {
    return this.#byName[name] !== undefined
  }

  // By name, in code-unit order.
  featureNames(): string[] {
    return this.#sortedFeatures().map((feature) => feature.name)
  }

  evaluate(name: string, context: EvalContext): EvalResult {
    const feature = this.#byName[name]
    return feature === undefined ? absent : evaluateFeature(feature, context, this.#byName)
  }

  // The playground's explanation of one flag, as an object (links.edit left '').
  explain(name: string, context: EvalContext): PlaygroundFeature | undefined {
    const json = this.explainJson(name, context, undefined)
    return json === undefined ? undefined : (JSON.parse(json) as PlaygroundFeature)
  }

  // The same as JSON text; each strategy's links.edit is `editLinkPrefix` + its URL-encoded id.
  explainJson(name: string, context: EvalContext, editLinkPrefix: string | undefined): string | undefined {
    const feature = this.#byName[name]
    if (feature === undefined) return undefined
    const out = new Utf8Builder()
    this.#explain(feature, context, editLinkPrefix, out)
    return out.bytes().toString()
  }

  // The playground's `features` array: every flag of a project in scope, by name, written to `out`.
  // The edit links' prefix is made from the project and the flag name, both URL-encoded.
  // Each flag is explained into `scratch` (a builder of its own) in the order the flags were compiled, and
  // the explanations are then copied into `out` by name: a flag's objects lie in the heap near those of the
  // flags made and compiled beside it, and by name they are scattered over it. Once they no longer fit in
  // the caches, walking them by name cost 15-25 % more a flag (issue 26: 10,000 flags against 1,000); the
  // copy costs about 5 %.
  explainAll(
    context: EvalContext,
    inScope: (project: string) => boolean,
    editLinkPrefix: (encodedProject: string, encodedName: string) => string,
    out: Utf8Builder,
    scratch: Utf8Builder,
  ): void {
    const { compiled, byName, starts, ends } = this.#explainOrder()
    for (let i = 0; i < compiled.length; i++) {
      const feature = compiled[i]
      if (!inScope(feature.projectId)) {
        starts[i] = -1
        continue
      }
      starts[i] = scratch.byteLength
      scratch.write(',')
      const prefix = editLinkPrefix(encodeURIComponent(feature.projectId), encodeURIComponent(feature.name))
      this.#explain(feature, context, prefix, scratch)
      ends[i] = scratch.byteLength
    }
    const written = scratch.bytes()
    out.write('[')
    let comma = 1
    for (let n = 0; n < byName.length; n++) {
      const i = byName[n]
      if (starts[i] < 0) continue
      out.append(written, starts[i] + comma, ends[i])
      comma = 0
    }
    out.write(']')
  }

  #explain(feature: CompiledFeature, context: EvalContext, editLinkPrefix: string | undefined, out: Utf8Builder): void {
    const hasUnsatisfiedDependency =
      feature.dependencies.length > 0 && !areDependenciesSatisfied(feature, context, this.#byName)
    explainFeature(feature, context, hasUnsatisfiedDependency, editLinkPrefix, out)
  }

  // The flags in the order they were compiled, with the position of each in that order by name, and room for
  // where explainAll wrote each (made again when #sortedVersion moves).
  #explainOrder(): ExplainOrder {
    const sorted = this.#sortedFeatures()
    if (this.#order?.version === this.#sortedVersion) return this.#order
    const compiled = this.#compiled()
    const position = new Map(compiled.map((feature, i) => [feature, i]))
    const byName = Int32Array.from(sorted, (feature) => position.get(feature)!)
    return (this.#order = { version: this.#sortedVersion, compiled, byName, starts: new Int32Array(compiled.length), ends: new Int32Array(compiled.length) })
  }

  #sortedFeatures(): CompiledFeature[] {
    return (this.#sorted ??= this.#compiled().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)))
  }

  #compiled(): CompiledFeature[] {
    return Object.values(this.#byName) as CompiledFeature[]
  }

  // A flag compiled again (`replaces`: one of its name was there) or new, put at its place by name.
  #placeSorted(feature: CompiledFeature, replaces: boolean): void {
    this.#sortedVersion++
    const sorted = this.#sorted
    if (sorted === undefined) return
    const at = sortedIndex(sorted, feature.name)
    if (replaces) sorted[at] = feature
    else sorted.splice(at, 0, feature)
  }

  #dropSorted(name: string): void {
    this.#sortedVersion++
    this.#sorted?.splice(sortedIndex(this.#sorted, name), 1)
  }
}

// Where a flag named `name` is in a list by name, or where it would go (code-unit order).
const sortedIndex = (sorted: readonly CompiledFeature[], name: string): number => {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (sorted[middle].name < name) low = middle + 1
    else high = middle
  }
  return low
}

const index = (featuresBySegment: Map<number, Set<string>>, feature: CompiledFeature): void => {
  for (const id of segmentIdsOf(feature)) {
    let names = featuresBySegment.get(id)
    if (names === undefined) featuresBySegment.set(id, (names = new Set()))
    names.add(feature.name)
  }
}

const unindex = (featuresBySegment: Map<number, Set<string>>, feature: CompiledFeature): void => {
  for (const id of segmentIdsOf(feature)) featuresBySegment.get(id)?.delete(feature.name)
}
