import { activeFeatureCount } from './flag-facts.js'
import { childrenOf } from './flag-facts.js'
import { limits } from './limits.js'
import { namingPatternTest } from './naming-pattern.js'
import type { CreateFeature, JsonPatch, ReplaceFeature, UpdateFeature } from '../schemas/features.js'
import { DomainError, badData, fail, invalidOperation, nameExists, notFound, ok, type Result } from './errors.js'
import type { FeatureData } from './event-data.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import { PatchError, applyJsonPatch } from './json-patch.js'
import { builtInFeatureTypes } from './built-in-types.js'
import type { Feature, ProjectState } from './project-state.js'
import type { ProjectWorld, WithMeta } from './world.js'

type UpdateFeatureCommand = { type: 'feature.update'; name: string; input: UpdateFeature }
type ReplaceFeatureCommand = { type: 'feature.replace'; name: string; input: ReplaceFeature }
type PatchFeatureCommand = { type: 'feature.patch'; name: string; patch: JsonPatch }

// A flag created, its metadata changed (by an update, a PUT or a PATCH), archived, revived or deleted.
export type FeatureCommand =
  | { type: 'feature.create'; input: CreateFeature }
  | UpdateFeatureCommand
  | ReplaceFeatureCommand
  | PatchFeatureCommand
  | { type: 'feature.archive'; names: string[] }
  | { type: 'feature.revive'; names: string[] }
  | { type: 'feature.delete'; names: string[] }


export const featureNotInProject = (name: string, project: string, world: Pick<ProjectWorld, 'featureLocation'>): DomainError => {
  const elsewhere = world.featureLocation(name)
  const suffix = elsewhere && elsewhere.project !== project ? `, but there's a feature with that name in project "${elsewhere.project}"` : ''
  return notFound(`There's no feature named "${name}" in project "${project}"${suffix}`)
}

export const archivedFeature = () => new DomainError('ArchivedFeatureError', 'Cannot perform this operation on archived features')

export const findFeature = (state: ProjectState, name: string, world: Pick<ProjectWorld, 'featureLocation'>): Result<Feature> => {
  const feature = state.features.get(name)
  return feature ? ok(feature) : fail(featureNotInProject(name, state.settings.id, world))
}

export const findActiveFeature = (state: ProjectState, name: string, world: Pick<ProjectWorld, 'featureLocation'>): Result<Feature> => {
  const found = findFeature(state, name, world)
  if (found.ok && found.value.archived) return fail(archivedFeature())
  return found
}

export const checkNamingPattern = (state: ProjectState, name: string): DomainError | undefined => {
  const { pattern, example, description } = state.settings.featureNaming
  if (!pattern) return undefined
  const test = namingPatternTest(pattern)
  if (!test || test(name)) return undefined
  let message = `The feature flag name "${name}" does not match the project's naming pattern: "${pattern}".`
  if (example) message += ` Here's an example of a name that does match the pattern: "${example}"."`
  if (description) message += ` The pattern's description is: "${description}"`
  return new DomainError('PatternError', message, [{ message: 'The flag name does not match the pattern.' }])
}

export const checkNewFeatureName = (name: string, world: Pick<ProjectWorld, 'featureLocation'>): DomainError | undefined => {
  const existing = world.featureLocation(name)
  if (!existing) return undefined
  return nameExists(existing.archived ? 'An archived flag with that name already exists' : 'A flag with that name already exists')
}

export const featureData = (feature: Feature): FeatureData => ({
  name: feature.name,
  description: feature.description,
  type: feature.type,
  project: feature.project,
  stale: feature.stale,
  createdAt: feature.createdAt,
  impressionData: feature.impressionData,
  archived: feature.archived,
})

export const decideCreateFeature = (state: ProjectState, input: CreateFeature, world: ProjectWorld, meta: CommandMeta): Result<EventDraft[]> => {
  const nameError = checkNewFeatureName(input.name, world) ?? checkNamingPattern(state, input.name)
  if (nameError) return fail(nameError)
  const limit = state.settings.featureLimit
  if (limit !== null && activeFeatureCount(state.features) >= limit) {
    return fail(invalidOperation('You have reached the maximum number of feature flags for this project.'))
  }
  if (world.activeFeaturesAtLeast(limits.featureFlags)) {
    return fail(new DomainError('ExceedsLimitError', `Failed to create feature flag. You can't create more than the established limit of ${limits.featureFlags}.`))
  }
  const data = {
    name: input.name,
    description: input.description ?? null,
    type: input.type,
    project: state.settings.id,
    stale: false,
    createdAt: meta.now,
    impressionData: input.impressionData,
    archived: false,
  }
  return ok([draft(meta, 'feature-created', { project: state.settings.id, featureName: input.name, data, tags: input.tags ?? [] })])
}

// How a metadata change is recorded (Unleash 8.2, side by side):
// - 'update' (imports, reverts): feature-metadata-updated without the stale change, then the stale event;
// - 'patch' (PATCH, Unleash's patchFeature): feature-metadata-updated with the whole patched flag, stale
//   included, then feature-stale-on/off when stale changed;
// - 'replace' (PUT, Unleash's updateFeatureToggle): feature-metadata-updated alone, stale included.
export type MetadataChange = 'update' | 'patch' | 'replace'

const metadataEvents = (state: ProjectState, feature: Feature, { input, meta }: { input: UpdateFeature; meta: CommandMeta }, how: MetadataChange): EventDraft[] => {
  const keys = { project: state.settings.id, featureName: feature.name }
  const isStaleChange = input.stale !== undefined && input.stale !== feature.stale
  const next = {
    ...feature,
    description: input.description === undefined ? feature.description : input.description,
    type: input.type ?? feature.type,
    impressionData: input.impressionData ?? feature.impressionData,
    stale: how !== 'update' && isStaleChange ? Boolean(input.stale) : feature.stale,
  }
  const staleEvents = isStaleChange && how !== 'replace' ? [draft(meta, input.stale ? 'feature-stale-on' : 'feature-stale-off', keys)] : []
  const isChanged = next.description !== feature.description || next.type !== feature.type || next.impressionData !== feature.impressionData || next.stale !== feature.stale
  const metadata = isChanged ? [draft(meta, 'feature-metadata-updated', { ...keys, data: featureData(next), preData: featureData(feature) })] : []
  return [...metadata, ...staleEvents]
}

export const decideUpdateFeature = (state: ProjectState, command: WithMeta<UpdateFeatureCommand>, how: MetadataChange = 'update'): Result<EventDraft[]> => {
  const { name, input, world } = command
  const found = findActiveFeature(state, name, world)
  if (!found.ok) return found
  if (input.name !== undefined && input.name !== name) return fail(badData('You can not change the name of a feature flag.'))
  if (input.project !== undefined && input.project !== state.settings.id) {
    return fail(badData('You can not change the project of a feature flag through this operation.'))
  }
  return ok(metadataEvents(state, found.value, command, how))
}

// PUT replaces the flag's metadata: what the body leaves out goes back to its default (replaceFeatureSchema);
// Unleash stores an empty or missing description as none.
export const decideReplaceFeature = (state: ProjectState, { name, input, world, meta }: WithMeta<ReplaceFeatureCommand>): Result<EventDraft[]> =>
  decideUpdateFeature(state, { type: 'feature.update', name, input: { ...input, description: input.description || null }, world, meta }, 'replace')

export const decidePatchFeature = (state: ProjectState, { name, patch, world, meta }: WithMeta<PatchFeatureCommand>): Result<EventDraft[]> => {
  const found = findActiveFeature(state, name, world)
  if (!found.ok) return found
  if (patch.some((op) => op.path.startsWith('/variants'))) {
    return fail(new DomainError('OperationDeniedError', 'Changing variants is done via PATCH operation to /api/admin/projects/:project/features/:feature/environments/:env/variants'))
  }
  let patched: unknown
  try {
    patched = applyJsonPatch(featureData(found.value), patch)
  } catch (error) {
    if (error instanceof PatchError) return fail(badData(`Could not apply provided patch: ${error.message}`))
    throw error
  }
  const metadata = patchedMetadata(patched)
  if (!metadata.ok) return metadata
  return decideUpdateFeature(state, { type: 'feature.update', name, input: metadata.value, world, meta }, 'patch')
}

// The patched flag must still be a flag: the fields a patch may touch keep their types.
const patchedMetadata = (patched: unknown): Result<UpdateFeature> => {
  const problem = (message: string) => fail<UpdateFeature>(badData(`Could not apply provided patch: ${message}`))
  if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) return problem('the result is not a feature flag')
  const { name, project, type, description, impressionData, stale, archived } = patched as Record<string, unknown>
  if (typeof name !== 'string' || typeof project !== 'string') return problem('"name" and "project" must stay strings')
  if (typeof type !== 'string' || !builtInFeatureTypes.some((t) => t.id === type)) return problem(`"type" must be one of ${builtInFeatureTypes.map((t) => t.id).join(', ')}`)
  if (description !== null && description !== undefined && (typeof description !== 'string' || description.length > 10_000)) {
    return problem('"description" must be a string of at most 10000 characters')
  }
  if (typeof impressionData !== 'boolean' || typeof stale !== 'boolean') return problem('"impressionData" and "stale" must be booleans')
  if (archived !== undefined && typeof archived !== 'boolean') return problem('"archived" must be a boolean')
  return ok({ name, project, type: type as UpdateFeature['type'], description: description as string | null | undefined, impressionData, stale })
}

export const decideArchiveFeatures = (state: ProjectState, names: string[], world: ProjectWorld, meta: CommandMeta): Result<EventDraft[]> => {
  const events: EventDraft[] = []
  for (const name of names) {
    const found = findFeature(state, name, world)
    if (!found.ok) return found
    if (found.value.archived) continue
    const children = childrenOf(state.features, name).filter((child) => !names.includes(child))
    if (children.length > 0) return fail(invalidOperation('You can not archive/delete this feature since other features depend on it.'))
    const keys = { project: state.settings.id, featureName: name }
    if (found.value.dependencies.length > 0) events.push(draft(meta, 'feature-dependencies-removed', keys))
    events.push(draft(meta, 'feature-archived', keys))
  }
  return ok(events)
}

export const decideReviveFeatures = (state: ProjectState, names: string[], world: ProjectWorld, meta: CommandMeta): Result<EventDraft[]> => {
  const events: EventDraft[] = []
  for (const name of names) {
    const found = findFeature(state, name, world)
    if (!found.ok) return found
    if (!found.value.archived) continue
    events.push(draft(meta, 'feature-revived', { project: state.settings.id, featureName: name }))
  }
  return ok(events)
}

export const decideDeleteFeatures = (state: ProjectState, names: string[], world: ProjectWorld, meta: CommandMeta): Result<EventDraft[]> => {
  const events: EventDraft[] = []
  for (const name of names) {
    const feature = state.features.get(name)
    // Unleash: deleting a flag that is not archived is silently skipped.
    if (!feature || !feature.archived) continue
    events.push(draft(meta, 'feature-deleted', { project: state.settings.id, featureName: name, preData: featureData(feature), tags: feature.tags }))
  }
  if (events.length === 0 && names.length === 1 && !state.features.has(names[0])) return fail(featureNotInProject(names[0], state.settings.id, world))
  return ok(events)
}
