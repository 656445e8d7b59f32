import { activeFeatureCount } from './flag-facts.js'
import { namingPatternTest } from './naming-pattern.js'
import type { UpsertContextField } from '../schemas/context-fields.js'
import type { ExportData, ImportInput } from '../schemas/export-import.js'
import type { CreateFeature, UpdateFeature } from '../schemas/features.js'
import type { CreateFeatureStrategy, FeatureVariant, Tag } from '../schemas/shared.js'
import { decideAddDependency } from './dependencies.js'
import { DomainError, badData, ok, type Result } from './errors.js'
import { draft, type EventDraft } from './events.js'
import { decideSetEnvironmentVariants } from './feature-variants.js'
import { tagSetEvents, type TagWorld } from './feature-tags.js'
import { decideCreateFeature, decideUpdateFeature } from './features.js'
import type { ContextField, Environment, Segment, StrategyType } from './instance-state.js'
import type { Feature, ProjectState } from './project-state.js'
import { decideAddStrategy, decideToggleEnvironment } from './strategies.js'
import type { TagType } from './built-in-types.js'
import type { ProjectWorld, WithMeta } from './world.js'

// Import of Unleash's export format into one project and one environment (Unleash's
// export-import-service): flags are created or updated, their tags replaced, their strategies in the
// environment replaced, their on/off set, dependencies added. Everything for the project is decided
// in one command, so it commits atomically; tag types and context fields it needs are created on
// the instance just before.

export interface ImportFacts {
  project: ProjectState | undefined
  featureLocation: (name: string) => { project: string; archived: boolean } | undefined
  strategyTypes: ReadonlyMap<string, StrategyType>
  contextFields: ReadonlyMap<string, ContextField>
  segments: readonly Segment[]
  environments: ReadonlyMap<string, Environment>
}

export interface ImportMessage {
  message: string
  affectedItems: string[]
}

export interface ImportValidation {
  errors: ImportMessage[]
  warnings: ImportMessage[]
  permissions: ImportMessage[]
}

export interface ImportPlan {
  environment: string
  features: ImportedFeature[]
  strategies: (CreateFeatureStrategy & { featureName: string })[]
  featureEnvironments: { featureName: string; enabled: boolean; variants?: FeatureVariant[] }[]
  tags: { featureName: string; tag: Tag }[]
  dependencies: { child: string; parent: string; enabled: boolean; variants: string[] }[]
}

export interface ImportedFeature {
  name: string
  type: CreateFeature['type']
  description: string | null
  impressionData: boolean
  stale: boolean
}

// Each name given more than once, once, in the order of their second appearance (indexOf per name was
// O(n²) in the batch).
const duplicatesOf = (names: string[]) => {
  const seen = new Set<string>()
  const twice = new Set<string>()
  for (const name of names) {
    if (seen.has(name)) twice.add(name)
    else seen.add(name)
  }
  return [...twice]
}

const archivedIn = (input: ImportInput, facts: ImportFacts) =>
  input.data.features.map((f) => f.name).filter((name) => facts.featureLocation(name)?.archived === true)

const segmentFor = (facts: ImportFacts, name: string, project: string) => {
  for (const segment of facts.segments) if (segment.name === name && (!segment.project || segment.project === project)) return segment
  return undefined
}

// A context field is importable when it is new, or when the existing one has every imported legal value.
const contextFieldFits = (field: ExportData['contextFields'][number], facts: ImportFacts) => {
  const existing = facts.contextFields.get(field.name)
  if (!existing) return true
  return (field.legalValues ?? []).every((v) => existing.legalValues.some((e) => e.value === v.value))
}

const namingCheck = (project: ProjectState | undefined, names: string[]): ImportMessage | undefined => {
  const naming = project?.settings.featureNaming
  if (!naming?.pattern) return undefined
  const test = namingPatternTest(naming.pattern)
  if (!test) return undefined
  const invalid = names.filter((n) => !test(n))
  if (invalid.length === 0) return undefined
  const example = naming.example ? ` For example: "${naming.example}".` : ''
  const description = naming.description ? ` The pattern is described as follows: "${naming.description}"` : ''
  return {
    message: `Features imported into this project must match the project's feature naming pattern: "${naming.pattern}".${example}${description} The following features do not match the pattern:`,
    affectedItems: [...new Set(invalid)].sort(),
  }
}

// Unleash's messages and order (import-validation-messages.ts); permissions are not checked here
// (the route requires the caller's permissions up front).
export const validateImport = (input: ImportInput, facts: ImportFacts): ImportValidation => {
  const { project, environment, data } = input
  const errors: ImportMessage[] = []
  const warnings: ImportMessage[] = []
  const push = (list: ImportMessage[], message: string, affectedItems: string[]) => {
    if (affectedItems.length > 0) list.push({ message, affectedItems })
  }
  const state = facts.project
  if (state && !state.environments.has(environment)) {
    errors.push({ message: `The environment ${environment} is not enabled for project ${project}:`, affectedItems: [environment] })
  }
  const unknownStrategies = [...new Set(data.featureStrategies.map((s) => s.name).filter((n) => !facts.strategyTypes.has(n)))]
  push(errors, 'We detected the following custom strategy that needs to be created first:', unknownStrategies)
  push(errors, 'We detected the following context fields that do not have matching legal values with the imported ones:', data.contextFields.filter((f) => !contextFieldFits(f, facts)).map((f) => f.name))
  const elsewhere = data.features
    .map((f) => ({ name: f.name, location: facts.featureLocation(f.name) }))
    .filter((f) => f.location && f.location.project !== project)
    .map((f) => `${f.name} (in project ${f.location!.project})`)
  push(errors, `You cannot import a features that already exist in other projects. You already have the following features defined outside of project ${project}:`, elsewhere)
  push(errors, 'We detected the following features are duplicate in your import data:', duplicatesOf(data.features.map((f) => f.name)))
  const naming = namingCheck(state, data.features.map((f) => f.name))
  if (naming) errors.push(naming)
  const limit = state?.settings.featureLimit ?? null
  if (state && limit !== null) {
    const current = activeFeatureCount(state.features)
    const fresh = new Set(data.features.map((f) => f.name).filter((n) => !facts.featureLocation(n))).size
    if (current + fresh > limit) {
      errors.push({
        message: `We detected you want to create ${fresh} new features to a project that already has ${current} existing features, exceeding the maximum limit of ${limit}.`,
        affectedItems: [],
      })
    }
  }
  push(errors, 'We detected the following segments that need to be created first:', data.segments.filter((s) => !segmentFor(facts, s.name, project)).map((s) => s.name))
  const imported = new Set(data.features.map((f) => f.name))
  const parents = [...new Set(data.dependencies.flatMap((d) => d.dependencies.map((p) => p.feature)))]
  push(errors, 'We detected the following dependencies that need to be created first:', parents.filter((p) => !imported.has(p) && !facts.featureLocation(p)))
  const custom = [...new Set(data.featureStrategies.map((s) => s.name))].filter((n) => facts.strategyTypes.get(n)?.editable === true)
  push(warnings, 'The following strategy types will be used in import. Please make sure the strategy type parameters are configured as in source environment:', custom)
  push(warnings, 'The following features will not be imported as they are currently archived. To import them, please unarchive them first:', archivedIn(input, facts))
  const existing = data.features.map((f) => f.name).filter((n) => state?.features.get(n)?.archived === false)
  push(warnings, 'The following features already exist in this project and will be overwritten:', existing)
  return { errors, warnings, permissions: [] }
}

export const importRefusal = (errors: ImportMessage[]): DomainError => {
  const details = errors.map((e) => ({ message: `${e.message}${e.affectedItems.length > 0 ? ` ${e.affectedItems.join(', ')}` : ''}` }))
  return badData(details.length === 1 ? details[0].message : 'The import data is not valid. Refer to the `details` list for more information.', details)
}

export interface PreparedImport {
  plan: ImportPlan
  tagTypes: TagType[]
  contextFields: UpsertContextField[]
}

// Unleash's cleanData: archived flags are left out, segments are matched by name.
export const prepareImport = (input: ImportInput, facts: ImportFacts): PreparedImport => {
  const { data, project } = input
  const archived = new Set(archivedIn(input, facts))
  const kept = (name: string | undefined) => name !== undefined && !archived.has(name)
  const segmentIds = new Map(data.segments.map((s) => [s.id, segmentFor(facts, s.name, project)?.id]))
  const features = data.features.filter((f) => kept(f.name))
  const tags = data.featureTags.filter((t) => kept(t.featureName)).map((t) => ({ featureName: t.featureName, tag: { type: t.tagType, value: t.tagValue } }))
  const usedTagTypes = new Set(tags.map((t) => t.tag.type))
  return {
    plan: {
      environment: input.environment,
      features: features.map((f) => ({
        name: f.name,
        type: f.type,
        description: f.description ?? null,
        impressionData: f.impressionData ?? false,
        stale: f.stale ?? false,
      })),
      strategies: data.featureStrategies
        .filter((s) => kept(s.featureName))
        .map(({ id: _id, ...s }) => ({ ...s, segments: (s.segments ?? []).map((id) => segmentIds.get(id)).filter((id): id is number => id !== undefined) })),
      featureEnvironments: data.featureEnvironments
        .map((e) => ({ featureName: e.featureName ?? e.name ?? '', enabled: e.enabled, variants: e.variants }))
        .filter((e) => kept(e.featureName)),
      tags,
      dependencies: data.dependencies
        .filter((d) => kept(d.feature))
        .flatMap((d) => d.dependencies.map((p) => ({ child: d.feature, parent: p.feature, enabled: p.enabled, variants: p.variants }))),
    },
    tagTypes: data.tagTypes.filter((t) => usedTagTypes.has(t.name)).map((t) => ({ name: t.name, description: t.description ?? '', icon: t.icon ?? null })),
    contextFields: data.contextFields.map((f) => ({
      name: f.name,
      description: f.description ?? null,
      stickiness: f.stickiness ?? false,
      legalValues: f.legalValues ?? [],
    })),
  }
}

// Ids for the strategies an import may create: one per imported strategy, one per default strategy.
export const importIdsNeeded = (plan: ImportPlan) => plan.strategies.length + plan.featureEnvironments.length

// The flags of an import, with ids for the strategies it may create (importIdsNeeded).
export type ImportCommand = { type: 'features.import'; plan: ImportPlan; ids: string[]; tags: TagWorld }

type Evolve = (state: ProjectState | undefined, event: EventDraft) => ProjectState | undefined

// The events and the state they lead to (the import evolves it as it decides).
export const decideImport = (state: ProjectState, command: WithMeta<ImportCommand>, evolve: Evolve): Result<{ events: EventDraft[]; state: ProjectState | undefined }> => {
  const { plan, ids, world, meta } = command
  const project = state.settings.id
  const environment = plan.environment
  if (!state.environments.has(environment)) return { ok: false, error: badData(`The environment ${environment} is not enabled for project ${project}`) }
  let current = state
  let nextId = 0
  const events: EventDraft[] = []
  // The world as the import has changed it so far (it reads `current` when asked).
  const worldSoFar: ProjectWorld = {
    ...world,
    activeFeaturesAtLeast: (n) => world.activeFeaturesAtLeast(n - (current.features.size - state.features.size)),
    featureLocation: (name) => {
      const feature = current.features.get(name)
      return feature ? { project, archived: feature.archived } : world.featureLocation(name)
    },
  }
  const worldNow = () => worldSoFar
  const apply = (result: Result<EventDraft[]>): DomainError | undefined => {
    if (!result.ok) return result.error
    events.push(...result.value)
    current = result.value.reduce<ProjectState | undefined>(evolve, current) as ProjectState
    return undefined
  }
  const feature = (name: string): Feature => current.features.get(name)!
  const keys = (featureName: string) => ({ project, environment, featureName })

  for (const f of plan.features) {
    const existing = current.features.get(f.name)
    const fields = { type: f.type, description: f.description, impressionData: f.impressionData }
    const update = (input: UpdateFeature) => apply(decideUpdateFeature(current, { type: 'feature.update', name: f.name, input, world: worldNow(), meta }))
    const error = existing
      ? update({ ...fields, stale: f.stale })
      : apply(decideCreateFeature(current, { name: f.name, ...fields }, worldNow(), meta)) ?? (f.stale ? update({ stale: true }) : undefined)
    if (error) return { ok: false, error }
  }
  for (const e of plan.featureEnvironments) {
    if (!e.variants) continue
    const error = apply(decideSetEnvironmentVariants(current, { type: 'variants.set', feature: e.featureName, environments: [environment], variants: e.variants, world: worldNow(), meta }))
    if (error) return { ok: false, error }
  }
  const tagsOf = new Map<string, ImportPlan['tags'][number]['tag'][]>()
  for (const { featureName, tag } of plan.tags) {
    const tags = tagsOf.get(featureName)
    if (tags) tags.push(tag)
    else tagsOf.set(featureName, [tag])
  }
  for (const f of plan.features) {
    const wanted = tagsOf.get(f.name) ?? []
    const error = apply(tagSetEvents(current, feature(f.name), wanted, command))
    if (error) return { ok: false, error }
  }
  // Unleash deletes the flags' strategies in the environment outright, then adds the imported ones.
  for (const f of plan.features) {
    const removals = (feature(f.name).environments.get(environment)?.strategies ?? []).map((s) =>
      draft(meta, 'feature-strategy-remove', { ...keys(f.name), preData: { ...s } }),
    )
    apply(ok(removals))
  }
  for (const { featureName, ...input } of plan.strategies) {
    const id = ids[nextId++] ?? `${meta.now}-${nextId}`
    const error = apply(decideAddStrategy(current, { type: 'strategy.add', feature: featureName, environment, input, id, world: worldNow(), meta }))
    if (error) return { ok: false, error }
  }
  for (const e of plan.featureEnvironments) {
    const newStrategyId = ids[nextId++] ?? `${meta.now}-${nextId}`
    const toggle = { feature: e.featureName, environment, enabled: e.enabled, activateDisabledStrategies: false, newStrategyId }
    const error = apply(decideToggleEnvironment(current, { type: 'featureEnvironment.toggle', ...toggle, world: worldNow(), meta }))
    if (error) return { ok: false, error }
  }
  // An environment left on without an active strategy would serve the flag to everyone: switch it off.
  for (const f of plan.features) {
    const env = feature(f.name).environments.get(environment)
    if (env?.enabled && !env.strategies.some((s) => !s.disabled)) apply(ok([draft(meta, 'feature-environment-disabled', keys(f.name))]))
  }
  for (const d of plan.dependencies) {
    const dependency = { feature: d.parent, enabled: d.enabled, variants: d.variants }
    const error = apply(decideAddDependency(current, { type: 'dependency.add', feature: d.child, dependency, world: worldNow(), meta }))
    if (error) return { ok: false, error }
  }
  apply(ok([draft(meta, 'features-imported', { project, environment, data: { features: plan.features.map((f) => f.name) } })]))
  return ok({ events, state: current })
}
