import * as v from 'valibot'
import { boundedString, closedObject, createFeatureStrategySchema, nullableText, urlFriendlyName } from './shared.js'

export const projectModes = ['open', 'protected', 'private'] as const

export const featureNamingSchema = v.object({
  pattern: v.nullish(boundedString('featureNaming.pattern', 500)),
  example: v.nullish(boundedString('featureNaming.example', 500)),
  description: v.nullish(boundedString('featureNaming.description', 1000)),
})
export type FeatureNaming = v.InferOutput<typeof featureNamingSchema>

const featureLimit = v.nullish(
  v.pipe(v.number('"featureLimit" must be a number'), v.safeInteger('"featureLimit" must be an integer'), v.minValue(0, '"featureLimit" must not be negative')),
)

const projectSettings = {
  name: v.pipe(boundedString('name', 100), v.trim(), v.minLength(1, '"name" is not allowed to be empty')),
  description: nullableText('description', 1000),
  mode: v.optional(v.picklist(projectModes, '"mode" must be one of open, protected, private')),
  defaultStickiness: v.optional(v.pipe(boundedString('defaultStickiness', 100), v.minLength(1, '"defaultStickiness" is not allowed to be empty'))),
  featureLimit,
  featureNaming: v.optional(featureNamingSchema),
}

export const createProjectSchema = v.object({
  id: v.optional(urlFriendlyName('id')),
  ...projectSettings,
  environments: v.optional(v.pipe(v.array(urlFriendlyName('environments[]')), v.maxLength(100))),
  changeRequestEnvironments: v.optional(v.array(v.object({ name: urlFriendlyName('changeRequestEnvironments[].name'), requiredApprovals: v.optional(v.number()) }))),
})
export type CreateProject = v.InferOutput<typeof createProjectSchema>

export const updateProjectSchema = v.object({
  id: v.optional(urlFriendlyName('id')),
  ...projectSettings,
})
export type UpdateProject = v.InferOutput<typeof updateProjectSchema>

export const projectEnvironmentSchema = closedObject({
  environment: urlFriendlyName('environment'),
  changeRequestsEnabled: v.optional(v.boolean('"changeRequestsEnabled" must be a boolean')),
  defaultStrategy: v.optional(createFeatureStrategySchema),
})
export type ProjectEnvironmentInput = v.InferOutput<typeof projectEnvironmentSchema>
