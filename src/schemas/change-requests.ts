import * as v from 'valibot'
import { strategySortOrderSchema, updateFeatureStrategySchema } from './features.js'
import { upsertSegmentSchema } from './segments.js'
import { boundedString, createFeatureStrategySchema, dateTimeString, urlFriendlyName } from './shared.js'
import { addDependencySchema, featureVariantsSchema } from './variants.js'

export const changeRequestActions = [
  'updateEnabled', 'addStrategy', 'updateStrategy', 'deleteStrategy', 'reorderStrategy', 'patchVariant',
  'addDependency', 'deleteDependency', 'archiveFeature', 'updateSegment', 'deleteSegment',
] as const
export type ChangeAction = (typeof changeRequestActions)[number]

const strategyId = boundedString('payload.id', 100)
const segmentId = v.pipe(v.number('"payload.id" must be a segment id'), v.safeInteger(), v.minValue(1))

// Each action's payload is checked with the schema of the direct endpoint it stands for.
export const payloadSchemas = {
  updateEnabled: v.object({ enabled: v.boolean('"payload.enabled" must be a boolean'), shouldActivateDisabledStrategies: v.optional(v.boolean()) }),
  addStrategy: createFeatureStrategySchema,
  updateStrategy: v.object({ ...updateFeatureStrategySchema.entries, id: strategyId }),
  deleteStrategy: v.object({ id: strategyId }),
  reorderStrategy: strategySortOrderSchema,
  patchVariant: v.object({ variants: featureVariantsSchema }),
  addDependency: addDependencySchema,
  deleteDependency: v.optional(v.object({ feature: v.optional(urlFriendlyName('payload.feature')) }), {}),
  archiveFeature: v.optional(v.object({}), {}),
  updateSegment: v.object({ ...upsertSegmentSchema.entries, id: segmentId }),
  deleteSegment: v.object({ id: segmentId }),
} satisfies Record<ChangeAction, v.GenericSchema>
export type ChangePayloads = { [A in ChangeAction]: v.InferOutput<(typeof payloadSchemas)[A]> }

export const changeInputSchema = v.object({
  feature: v.nullish(urlFriendlyName('feature')),
  action: v.picklist(changeRequestActions, `"action" must be one of ${changeRequestActions.join(', ')}`),
  payload: v.optional(v.unknown()),
})
export type ChangeInput = v.InferOutput<typeof changeInputSchema>

export const changeInputsSchema = v.union(
  [changeInputSchema, v.pipe(v.array(changeInputSchema), v.minLength(1, 'Give at least one change'), v.maxLength(100, 'At most 100 changes at once'))],
  'The body must be a change {feature, action, payload} or an array of them',
)

export const changeRequestStates = ['Draft', 'In review', 'Approved', 'Applied', 'Cancelled', 'Rejected', 'Scheduled'] as const
export type ChangeRequestStateName = (typeof changeRequestStates)[number]

export const stateChangeSchema = v.object({
  state: v.picklist(changeRequestStates, `"state" must be one of ${changeRequestStates.join(', ')}`),
  comment: v.optional(boundedString('comment', 10_000)),
  scheduledAt: v.optional(dateTimeString('scheduledAt')),
})

export const commentSchema = v.object({ text: v.pipe(boundedString('text', 10_000), v.trim(), v.minLength(1, '"text" is not allowed to be empty')) })
export const titleSchema = v.object({ title: v.pipe(boundedString('title', 255), v.trim(), v.minLength(1, '"title" is not allowed to be empty')) })
export const editChangeSchema = v.object({ action: v.optional(v.picklist(changeRequestActions)), payload: v.optional(v.unknown()) })

export const changeRequestConfigSchema = v.object({
  changeRequestsEnabled: v.boolean('"changeRequestsEnabled" must be a boolean'),
  requiredApprovals: v.optional(v.pipe(v.number('"requiredApprovals" must be a number'), v.safeInteger(), v.minValue(1, '"requiredApprovals" must be 1 to 10'), v.maxValue(10, '"requiredApprovals" must be 1 to 10')), 1),
})

