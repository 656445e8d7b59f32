import type { Feature } from '../domain/project-state.js'
import type { EvalResult } from '../eval/types.js'
import type { OfrepEvaluation, OfrepFailure } from '../schemas/ofrep.js'

// The OpenFeature Remote Evaluation Protocol's answers (open-feature/protocol, service/openapi.yaml) from
// an Unleash evaluation. OFREP requests name no type: the flag's definition decides the value's type.
// - A flag without variants is a boolean: whether it is enabled for the context.
// - A flag with variants (of the environment, or of a strategy) yields the selected variant's payload,
//   typed by its payload type (`number` a number, `json` the parsed value, `string` and `csv` a string),
//   or the variant's name when it has no payload; `variant` is the variant's name.
// - When such a flag selects no variant (it is off, or no strategy matched) there is no value: the
//   provider falls back to the default in the application's code, whatever type it asked for.
// Reasons: DISABLED (off in the environment), DEFAULT (on, but no strategy matched or a dependency is not
// satisfied), SPLIT (a variant picked among several by weight), TARGETING_MATCH (on for this context).

type OfrepValue = OfrepEvaluation['value']

// What an answer needs of a flag beyond its evaluation: from the committed flag, per environment.
export interface OfrepFlagFacts {
  project: string
  enabledInEnvironment: boolean
  variantCount: number
  impressionData: boolean
}

export const ofrepFactsOf = (feature: Feature, environment: string): OfrepFlagFacts => {
  const env = feature.environments.get(environment)
  let variantCount = env?.variants.length ?? 0
  for (const strategy of env?.strategies ?? []) if (!strategy.disabled) variantCount = Math.max(variantCount, strategy.variants?.length ?? 0)
  return { project: feature.project, enabledInEnvironment: env?.enabled ?? false, variantCount, impressionData: feature.impressionData }
}

const payloadValue = (type: string, value: string): OfrepValue => {
  if (type === 'number') {
    const n = Number(value)
    return value.trim() !== '' && Number.isFinite(n) ? n : value
  }
  if (type === 'json') {
    try {
      return JSON.parse(value) as OfrepValue
    } catch {
      return value
    }
  }
  return value
}

export const ofrepEvaluation = (key: string, result: EvalResult, facts: OfrepFlagFacts): OfrepEvaluation => {
  const metadata: OfrepEvaluation['metadata'] = facts.impressionData ? { project: facts.project, impressionData: true } : { project: facts.project }
  const reason: OfrepEvaluation['reason'] = !facts.enabledInEnvironment ? 'DISABLED' : !result.enabled ? 'DEFAULT' : 'TARGETING_MATCH'
  if (facts.variantCount === 0) return { key, value: result.enabled, reason, metadata }
  const variant = result.variant
  if (!result.enabled || !variant.enabled) return { key, reason: result.enabled ? 'DEFAULT' : reason, metadata }
  const value = variant.payload === undefined ? variant.name : payloadValue(variant.payload.type, variant.payload.value)
  return { key, value, variant: variant.name, reason: facts.variantCount > 1 ? 'SPLIT' : 'TARGETING_MATCH', metadata }
}

export const flagNotFound = (key: string): OfrepFailure & { key: string } => ({ key, errorCode: 'FLAG_NOT_FOUND', errorDetails: `Flag '${key}' was not found` })

// An OFREP context as the frontend API's context fields: `targetingKey` is the userId unless the context
// gives one; every other scalar keeps its name (the frontend API moves unknown names into properties);
// nested objects other than `properties` and arrays are no Unleash context value and are left out.
export const ofrepContextFields = (context: Record<string, unknown>): Record<string, unknown> => {
  const fields: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(context)) {
    if (name === 'targetingKey') continue
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') fields[name] = value
    else if (name === 'properties' && value !== null && typeof value === 'object' && !Array.isArray(value)) fields[name] = value
  }
  const targetingKey = context.targetingKey
  if (fields.userId === undefined && (typeof targetingKey === 'string' || typeof targetingKey === 'number')) fields.userId = String(targetingKey)
  return fields
}
