import * as v from 'valibot'
import { boundedString, urlFriendlyName } from './shared.js'

export const createEnvironmentSchema = v.object({
  name: urlFriendlyName('name'),
  type: v.pipe(boundedString('type', 100), v.minLength(1, '"type" is not allowed to be empty')),
  enabled: v.optional(v.boolean('"enabled" must be a boolean'), true),
  sortOrder: v.optional(v.pipe(v.number('"sortOrder" must be a number'), v.safeInteger('"sortOrder" must be an integer'))),
})
export type CreateEnvironment = v.InferOutput<typeof createEnvironmentSchema>

export const updateEnvironmentSchema = v.object({
  type: v.optional(v.pipe(boundedString('type', 100), v.minLength(1))),
  sortOrder: v.optional(v.pipe(v.number('"sortOrder" must be a number'), v.safeInteger('"sortOrder" must be an integer'))),
})
export type UpdateEnvironment = v.InferOutput<typeof updateEnvironmentSchema>
