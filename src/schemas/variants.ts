import * as v from 'valibot'
import { featureVariantSchema, urlFriendlyName } from './shared.js'

export const featureVariantsSchema = v.pipe(
  v.array(featureVariantSchema, 'The body must be an array of variants'),
  v.maxLength(100, 'A flag may have at most 100 variants'),
)

export const variantsBatchSchema = v.object({
  variants: featureVariantsSchema,
  environments: v.pipe(v.array(urlFriendlyName('environments[]'), '"environments" must be an array of names'), v.maxLength(100)),
})

export const addDependencySchema = v.object({
  feature: urlFriendlyName('feature'),
  enabled: v.optional(v.boolean('"enabled" must be a boolean'), true),
  variants: v.optional(v.pipe(v.array(urlFriendlyName('variants[]')), v.maxLength(100)), []),
})
