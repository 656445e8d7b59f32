import type { FeatureVariant, StrategyVariant } from '../schemas/shared.js'
import { badData, fail, ok, type Result } from './errors.js'

const totalWeight = 1000

const requestValidation = (message: string) =>
  badData(`Request validation failed: your request body or params contain invalid data: ${message}`, [{ message }])

// Unleash: fix weights are kept, the rest of 1000 is shared by the variable ones,
// the remainder going one by one to the first variable variants in input order; stored sorted by name.
export const normaliseVariants = <V extends FeatureVariant | StrategyVariant>(variants: V[]): Result<V[]> => {
  if (variants.length === 0) return ok([])
  const names = new Set<string>()
  for (const variant of variants) {
    if (names.has(variant.name)) return fail(requestValidation(`Variant names must be unique: "${variant.name}" appears twice`))
    names.add(variant.name)
    if (variant.payload?.type === 'json') {
      try {
        JSON.parse(variant.payload.value)
      } catch {
        return fail(requestValidation(`'value' must be a valid json string when 'type' is json`))
      }
    }
  }
  const variable = variants.filter((v) => v.weightType !== 'fix')
  const fixed = variants.filter((v) => v.weightType === 'fix')
  if (variable.length === 0) return fail(requestValidation('There must be at least one "variable" variant'))
  const fixedSum = fixed.reduce((sum, v) => sum + v.weight, 0)
  if (fixedSum >= totalWeight) return fail(requestValidation('The traffic distribution total must equal 100%'))
  const share = Math.floor((totalWeight - fixedSum) / variable.length)
  let remainder = (totalWeight - fixedSum) % variable.length
  const distributed = variable.map((v) => ({ ...v, weightType: 'variable' as const, weight: share + (remainder-- > 0 ? 1 : 0) }))
  return ok([...distributed, ...fixed].sort((a, b) => a.name.localeCompare(b.name)))
}
