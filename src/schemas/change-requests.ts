import * as v from 'valibot'
import { strategySortOrderSchema, updateFeatureStrategySchema } from './features.js'
import { featureVariantResponse, segmentResponse, strategyResponse } from './responses.js'
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

// ---- What the change-request routes answer (for the OpenAPI description and the UI's types) ----

const text = v.string()
const personResponse = v.object({ id: v.nullable(v.number()), username: v.nullable(text), imageUrl: v.null() })
const stampResponse = v.object({ createdBy: personResponse, createdAt: text })

// What applying a change replaced (the domain's `Replaced`): the strategy or segment it updated or
// deleted, the environment's variants, whether the environment was on, the strategies' order, or the
// dependencies it replaced or removed.
const replacedResponse = v.union([
  v.omit(strategyResponse, ['featureName']),
  v.omit(segmentResponse, ['usedInProjects', 'usedInFeatures']),
  v.array(featureVariantResponse),
  v.object({ enabled: v.boolean() }),
  v.array(v.object({ id: text, sortOrder: v.number() })),
  v.array(v.object({ feature: text, enabled: v.boolean(), variants: v.array(text) })),
])

const changeResponse = v.object({
  id: v.number(),
  action: v.picklist(changeRequestActions),
  // The change's payload. Once applied, where Unleash keeps what the change replaced (updateStrategy,
  // deleteStrategy, patchVariant, updateSegment, deleteSegment), it is here as `snapshot`, as Unleash has it.
  payload: v.unknown(),
  createdAt: text,
  createdBy: personResponse,
  conflict: v.optional(text),
  // Ours, additive: what applying the change replaced, for every action that replaced something (Unleash
  // keeps no snapshot of an environment's enabled state, the strategies' order or a dependency).
  replaced: v.optional(replacedResponse),
})

export const changeRequestResponse = v.object({
  id: v.number(),
  title: text,
  environment: text,
  minApprovals: v.number(),
  project: text,
  state: v.picklist(changeRequestStates),
  createdAt: text,
  createdBy: personResponse,
  features: v.array(
    v.object({ name: text, conflict: v.optional(text), changes: v.array(changeResponse), defaultChange: v.optional(v.object({ action: text, payload: v.unknown() })) }),
  ),
  // One entry per segment change: the change, with the segment's id and name and the change's id.
  segments: v.array(v.object({ ...changeResponse.entries, name: text, changeId: v.number() })),
  approvals: v.array(stampResponse),
  rejections: v.array(stampResponse),
  comments: v.array(v.object({ id: v.number(), text, createdAt: text, createdBy: v.object({ username: text, imageUrl: v.null() }) })),
  schedule: v.optional(v.object({ scheduledAt: text, status: v.picklist(['pending', 'failed', 'suspended']), failureReason: v.optional(text), reason: v.optional(text) })),
  stateTimestamps: v.record(v.picklist(changeRequestStates), text),
})

export const changeRequestsResponse = v.array(changeRequestResponse)
