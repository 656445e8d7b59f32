import { bucketOf, hashPrefix, VARIANT_SEED } from './hash.js'
import { contextLookup, type ContextLookup } from './operators.js'
import type { EvalContext, EvalVariant, EvalVariantResult } from './types.js'

export interface CompiledVariants {
  readonly definitions: EvalVariant[]
  // Index into definitions, or -1 when nothing is selected (total weight <= 0).
  select(ctx: EvalContext): number
}

const disabledOff: EvalVariantResult = Object.freeze({ name: 'disabled', enabled: false, feature_enabled: false, featureEnabled: false })
const disabledOn: EvalVariantResult = Object.freeze({ name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true })

export const disabledVariant = (isFeatureEnabled: boolean): EvalVariantResult => (isFeatureEnabled ? disabledOn : disabledOff)

export const enabledVariant = (definition: EvalVariant): EvalVariantResult =>
  Object.freeze(
    definition.payload === undefined
      ? { name: definition.name, enabled: true, feature_enabled: true, featureEnabled: true }
      : {
          name: definition.name,
          enabled: true,
          // Written out, not spread: a spread copy of a payload got a hidden class of its own once frozen
          // (issue 26: 21,724 classes, 3 MiB at 50,000 flags).
          payload: Object.freeze({ type: definition.payload.type, value: definition.payload.value }),
          feature_enabled: true,
          featureEnabled: true,
        },
  )

const randomSeed = (random: () => number): string => String(Math.round(random() * 100000))

// Unleash: SDK variant.ts getSeed, for a stickiness other than the default; an empty
// string is a (missing) field name and so falls to a random seed.
const seedOf = (stickiness: string, random: () => number): ((ctx: EvalContext) => string) => {
  const lookup = contextLookup(stickiness)
  return (ctx) => lookup(ctx) || randomSeed(random)
}

const defaultSeed = (ctx: EvalContext, random: () => number): string => {
  const { userId, sessionId, remoteAddress } = ctx
  if (typeof userId === 'string' && userId !== '') return userId
  if (typeof sessionId === 'string' && sessionId !== '') return sessionId
  if (typeof remoteAddress === 'string' && remoteAddress !== '') return remoteAddress
  return randomSeed(random)
}

interface Override {
  index: number
  lookup: ContextLookup
  values: Set<unknown>
}

const overridesOf = (variants: EvalVariant[]): Override[] =>
  variants.flatMap((variant, index) =>
    (variant.overrides ?? []).map((o) => ({ index, lookup: contextLookup(o.contextName), values: new Set<unknown>(o.values ?? []) })),
  )

const noOverrides: Override[] = []

// Unleash: SDK variant.ts selectVariantDefinition. Overrides come first,
// then `norm(seed, groupId, total)` against cumulative weights in list order.
// The numbers in the object's own fields, select() on its class: an evaluation reaches this object and its
// thresholds, not a closure, its context and then them (issue 26: most of an evaluation is cache misses).
class Variants implements CompiledVariants {
  constructor(
    readonly definitions: EvalVariant[],
    // Nothing is selected (a total weight <= 0; a NaN total selects the first variant, as in the SDK).
    private readonly isEmpty: boolean,
    private readonly total: number,
    // Each variant with a weight: its cumulative weight and its index, in list order.
    private readonly thresholds: number[],
    private readonly state: number,
    private readonly before: number,
    private readonly head: number,
    private readonly headLength: number,
    private readonly overrides: Override[],
    // undefined: the default stickiness.
    private readonly seed: ((ctx: EvalContext) => string) | undefined,
    private readonly random: () => number,
  ) {}

  select(ctx: EvalContext): number {
    if (this.isEmpty) return -1
    const overrides = this.overrides
    for (let i = 0; i < overrides.length; i++) {
      const o = overrides[i]
      const c = o.lookup(ctx)
      if (c !== undefined && o.values.has(c)) return o.index
    }
    const seed = this.seed === undefined ? defaultSeed(ctx, this.random) : this.seed(ctx)
    const target = bucketOf(this.state, this.before, this.head, this.headLength, seed, this.total)
    const thresholds = this.thresholds
    for (let i = 0; i < thresholds.length; i += 2) if (!(thresholds[i] < target)) return thresholds[i + 1]
    return -1
  }
}

export const compileVariants = (
  variants: EvalVariant[],
  groupId: string,
  stickiness: string | undefined,
  random: () => number,
): CompiledVariants => {
  // Summed exactly as the SDK does, NaN included: a NaN total selects the first variant.
  const total = variants.reduce((acc, v) => acc + v.weight, 0)
  // A zero weight is never chosen.
  const cumulative: number[] = []
  let counter = 0
  variants.forEach((v, i) => {
    if (v.weight === 0) return
    counter += v.weight
    cumulative.push(counter, i)
  })
  // Copied to its length: a list grown by push keeps room for 17 numbers (issue 26: 190 bytes where 64 do).
  const thresholds = cumulative.slice()
  const { state, before, head, headLength } = hashPrefix(`${groupId}:`, VARIANT_SEED)
  const overrides = overridesOf(variants)
  const seed = stickiness === undefined || stickiness === 'default' ? undefined : seedOf(stickiness, random)
  // The list as given (a flag's state is never changed in place), not a copy of it.
  return new Variants(
    variants,
    total <= 0,
    total,
    thresholds,
    state,
    before,
    head,
    headLength,
    overrides.length === 0 ? noOverrides : overrides,
    seed,
    random,
  )
}
