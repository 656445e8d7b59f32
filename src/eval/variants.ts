import { bucketOf, hashPrefix, VARIANT_SEED } from './hash.js'
import { contextLookup, type ContextLookup } from './operators.js'
import type { EvalContext, EvalVariant, EvalVariantResult } from './types.js'

export interface CompiledVariants {
  definitions: EvalVariant[]
  // Index into definitions, or -1 when nothing is selected (total weight <= 0).
  select: (ctx: EvalContext) => number
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
          payload: Object.freeze({ ...definition.payload }),
          feature_enabled: true,
          featureEnabled: true,
        },
  )

const randomSeed = (random: () => number): string => String(Math.round(random() * 100000))

// Unleash: SDK variant.ts getSeed. `undefined` means 'default'; an empty
// string is a (missing) field name and so falls to a random seed.
const seedOf = (stickiness: string | undefined, random: () => number): ((ctx: EvalContext) => string) => {
  if (stickiness === undefined || stickiness === 'default') return (ctx) => defaultSeed(ctx, random)
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

const none = (): number => -1

// Unleash: SDK variant.ts selectVariantDefinition. Overrides come first,
// then `norm(seed, groupId, total)` against cumulative weights in list order.
// The usual shape (default stickiness, no overrides) in one closure that holds the prefix's hash state and the
// thresholds: an evaluation reaches one function, its context and one array (issue 26: cache misses).
export const compileVariants = (
  variants: EvalVariant[],
  groupId: string,
  stickiness: string | undefined,
  random: () => number,
): CompiledVariants => {
  const definitions = variants.slice()
  // Summed exactly as the SDK does, NaN included: a NaN total selects the first variant.
  const total = definitions.reduce((acc, v) => acc + v.weight, 0)
  if (total <= 0) return { definitions, select: none }
  // Each variant with a weight: its cumulative weight and its index, in list order (a zero weight is never chosen).
  const thresholds: number[] = []
  let counter = 0
  definitions.forEach((v, i) => {
    if (v.weight === 0) return
    counter += v.weight
    thresholds.push(counter, i)
  })
  const { state, before, head, headLength } = hashPrefix(`${groupId}:`, VARIANT_SEED)
  const overrides = overridesOf(definitions)
  if (overrides.length === 0 && (stickiness === undefined || stickiness === 'default')) {
    return {
      definitions,
      select: (ctx) => {
        const target = bucketOf(state, before, head, headLength, defaultSeed(ctx, random), total)
        for (let i = 0; i < thresholds.length; i += 2) if (!(thresholds[i] < target)) return thresholds[i + 1]
        return -1
      },
    }
  }
  const seed = seedOf(stickiness, random)
  return {
    definitions,
    select: (ctx) => {
      for (let i = 0; i < overrides.length; i++) {
        const o = overrides[i]
        const c = o.lookup(ctx)
        if (c !== undefined && o.values.has(c)) return o.index
      }
      const target = bucketOf(state, before, head, headLength, seed(ctx), total)
      for (let i = 0; i < thresholds.length; i += 2) if (!(thresholds[i] < target)) return thresholds[i + 1]
      return -1
    },
  }
}
