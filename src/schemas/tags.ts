import * as v from 'valibot'
import { closedObject, isUrlFriendly, nullableText, tagSchema } from './shared.js'


// Unleash: a tag type name is URL friendly, 2 to 50 characters.
const tagTypeName = (what: string) =>
  v.pipe(
    v.string(`"${what}" must be a string`),
    v.trim(),
    v.minLength(2, `"${what}" must be 2 to 50 characters`),
    v.maxLength(50, `"${what}" must be 2 to 50 characters`),
    v.check(isUrlFriendly, `"${what}" must be URL friendly`),
  )

export const featureTagSchema = closedObject({
  value: tagSchema.entries.value,
  type: v.optional(tagTypeName('type'), 'simple'),
})
export type FeatureTag = v.InferOutput<typeof featureTagSchema>

const tagList = v.pipe(v.array(featureTagSchema, 'tags must be an array of {type, value}'), v.maxLength(1000, 'at most 1000 tags at once'))

// PUT /api/admin/features/:featureName/tags: Unleash's {addedTags, removedTags}, or the whole new set as an array.
export const updateFeatureTagsSchema = v.union(
  [tagList, closedObject({ addedTags: v.optional(tagList, []), removedTags: v.optional(tagList, []) })],
  'The body must be an array of tags or {addedTags, removedTags}',
)
export type UpdateFeatureTags = v.InferOutput<typeof updateFeatureTagsSchema>

// PUT /api/admin/projects/:projectId/tags.
export const bulkTagsSchema = closedObject({
  features: v.pipe(v.array(v.string('"features" must be an array of names')), v.minLength(1, '"features" must hold at least one name'), v.maxLength(1000)),
  tags: closedObject({ addedTags: v.optional(tagList, []), removedTags: v.optional(tagList, []) }),
})

export const tagTypeSchema = closedObject({
  name: tagTypeName('name'),
  description: nullableText('description', 1000),
  icon: nullableText('icon', 1000),
  color: nullableText('color', 100),
})
export type TagTypeInput = v.InferOutput<typeof tagTypeSchema>

export const updateTagTypeSchema = v.object({
  description: nullableText('description', 1000),
  icon: nullableText('icon', 1000),
})
export type UpdateTagTypeInput = v.InferOutput<typeof updateTagTypeSchema>
