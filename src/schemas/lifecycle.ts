import * as v from 'valibot'
import { boundedString, closedObject, urlFriendlyName } from './shared.js'

export const completeFeatureSchema = closedObject({
  status: v.picklist(['kept', 'discarded'], '"status" must be one of kept, discarded'),
  statusValue: v.optional(boundedString('statusValue', 200)),
})
export type CompleteFeature = v.InferOutput<typeof completeFeatureSchema>

export const staleFeaturesSchema = v.object({
  features: v.pipe(v.array(urlFriendlyName('features[]'), '"features" must be an array of names'), v.maxLength(1000)),
  stale: v.boolean('"stale" must be a boolean'),
})
