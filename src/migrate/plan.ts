// What an Unleash holds, as the commands our admin routes would send to re-create it: pure, so the
// whole mapping is tested without a source or a data directory. Inputs go through the routes' own
// schemas; what they refuse is reported as not copied, with the reason, and the rest goes on.
import type * as v from 'valibot'
import { parse } from '../api/parse.js'
import { DomainError } from '../domain/errors.js'
import type { ProjectCommandInput } from '../actors/dispatch.js'
import type { InstanceCommand } from '../domain/instance.js'
import type { CommandMeta } from '../domain/events.js'
import { createApiTokenSchema } from '../schemas/api-tokens.js'
import { upsertContextFieldSchema } from '../schemas/context-fields.js'
import { createEnvironmentSchema } from '../schemas/environments.js'
import { createFeatureSchema } from '../schemas/features.js'
import { createUserSchema, type CreateUser } from '../schemas/people.js'
import { createProjectSchema } from '../schemas/projects.js'
import { upsertSegmentSchema } from '../schemas/segments.js'
import { createFeatureStrategySchema, tagSchema } from '../schemas/shared.js'
import { upsertStrategyTypeSchema } from '../schemas/strategy-types.js'
import { tagTypeSchema } from '../schemas/tags.js'
import { addDependencySchema, featureVariantsSchema } from '../schemas/variants.js'
import type { SourceData, SourceFlag, SourceStrategy } from './unleash-source.js'

// The kinds a migration counts, in the order it copies them.
export const kinds = [
  'environments',
  'feature type lifetimes',
  'strategy types',
  'context fields',
  'tag types',
  'tags',
  'segments',
  'projects',
  'flags',
  'strategies',
  'flag variants',
  'enabled environments',
  'dependencies',
  'stale flags',
  'archived flags',
  'API tokens',
  'users',
] as const
export type Kind = (typeof kinds)[number]

export type Step =
  | { kind: Kind; label: string; to: 'instance'; command: InstanceCommand }
  | { kind: Kind; label: string; to: 'project'; project: string; command: ProjectCommandInput }

export interface NotCopied {
  kind: Kind | string
  label: string
  why: string
}

// What the target holds before the first command: the built-in types every instance starts with.
export interface TargetStart {
  strategyTypes: ReadonlySet<string>
  contextFields: ReadonlySet<string>
  tagTypes: ReadonlySet<string>
  featureTypeLifetimes: ReadonlyMap<string, number | null>
}

export interface Plan {
  // Instance-wide things, then projects, one after another.
  setup: Step[]
  // Per flag, its steps in order; flags are independent of each other.
  flags: Step[][]
  // What needs every flag in place: dependencies, then archiving.
  after: Step[]
  // Tokens and users last: a token's projects and environment exist by then.
  access: Step[]
  // Users get a new password when written: Unleash does not show theirs.
  users: { label: string; input: CreateUser }[]
  notCopied: NotCopied[]
}

export interface PlanOptions {
  meta: CommandMeta
  start: TargetStart
  // A random part for each token command (unused: migrated tokens keep their secrets).
  random: () => string
  // A new strategy id for a toggle that would add a default strategy (none does: strategies come first).
  newId: () => string
}

const built = <S extends v.GenericSchema>(schema: S, input: unknown, notCopied: NotCopied[], where: { kind: Kind; label: string }): v.InferOutput<S> | undefined => {
  try {
    return parse(schema, input)
  } catch (error) {
    notCopied.push({ ...where, why: reasonOf(error) })
    return undefined
  }
}

// A refusal's own words: the details name the field, where there are any.
export const reasonOf = (error: unknown): string => {
  if (error instanceof DomainError && error.details && error.details.length > 0) return error.details.map((d) => d.message).join('; ')
  return error instanceof Error ? error.message : String(error)
}

const strategyInput = (s: SourceStrategy) => ({
  name: s.name,
  title: s.title ?? null,
  disabled: s.disabled ?? false,
  sortOrder: s.sortOrder,
  constraints: s.constraints ?? [],
  variants: s.variants ?? [],
  parameters: s.parameters ?? {},
  segments: s.segments ?? [],
})

const flagSteps = (flag: SourceFlag, options: PlanOptions, notCopied: NotCopied[]): Step[] => {
  const { meta } = options
  const project = flag.project
  const at = (kind: Kind, label: string, command: ProjectCommandInput): Step => ({ kind, label, to: 'project', project, command })
  const input = built(createFeatureSchema, { name: flag.name, type: flag.type, description: flag.description ?? null, impressionData: flag.impressionData ?? false, tags: flag.tags.map(({ type, value }) => ({ type, value })) }, notCopied, { kind: 'flags', label: flag.name })
  if (!input) return []
  const steps: Step[] = [at('flags', flag.name, { type: 'feature.create', input, meta })]
  for (const env of flag.environments) {
    const strategies = [...env.strategies].sort((a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0))
    let allStrategies = true
    for (const strategy of strategies) {
      const label = `${flag.name} ${env.name} ${strategy.id}`
      const parsed = built(createFeatureStrategySchema, strategyInput(strategy), notCopied, { kind: 'strategies', label })
      if (parsed) steps.push(at('strategies', label, { type: 'strategy.add', feature: flag.name, environment: env.name, input: parsed, id: strategy.id, meta }))
      allStrategies &&= parsed !== undefined
    }
    if ((env.variants ?? []).length > 0) {
      const label = `${flag.name} ${env.name}`
      const variants = built(featureVariantsSchema, env.variants, notCopied, { kind: 'flag variants', label })
      if (variants) steps.push(at('flag variants', label, { type: 'variants.set', feature: flag.name, environments: [env.name], variants, meta }))
    }
    // Switched on without one of its strategies, a flag would be on for more than it was (or for
    // everyone, with the default strategy an empty environment gets).
    if (env.enabled && !allStrategies) notCopied.push({ kind: 'enabled environments', label: `${flag.name} ${env.name}`, why: 'left off: a strategy of it was not copied' })
    else if (env.enabled) {
      steps.push(
        at('enabled environments', `${flag.name} ${env.name}`, {
          type: 'featureEnvironment.toggle',
          feature: flag.name,
          environment: env.name,
          enabled: true,
          activateDisabledStrategies: false,
          newStrategyId: options.newId(),
          meta,
        }),
      )
    }
  }
  if (flag.stale) steps.push(at('stale flags', flag.name, { type: 'feature.update', name: flag.name, input: { stale: true }, meta }))
  return steps
}

export const planMigration = (source: SourceData, options: PlanOptions): Plan => {
  const { meta, start } = options
  const notCopied: NotCopied[] = source.unread.map(({ what, why }) => ({ kind: what, label: what, why }))
  const setup: Step[] = []
  const instance = (kind: Kind, label: string, command: InstanceCommand) => setup.push({ kind, label, to: 'instance', command })

  for (const env of [...source.environments].sort((a, b) => a.sortOrder - b.sortOrder)) {
    const input = built(createEnvironmentSchema, { name: env.name, type: env.type, enabled: env.enabled, sortOrder: env.sortOrder }, notCopied, { kind: 'environments', label: env.name })
    if (input) instance('environments', env.name, { type: 'environment.create', input, meta })
  }
  // Only the lifetimes the source changed from the defaults both start with.
  for (const type of source.featureTypes) {
    if (!start.featureTypeLifetimes.has(type.id)) {
      notCopied.push({ kind: 'feature type lifetimes', label: type.id, why: `no flag type ${type.id} here: its lifetime is not copied, and a flag of that type would not be` })
      continue
    }
    if (start.featureTypeLifetimes.get(type.id) === type.lifetimeDays) continue
    instance('feature type lifetimes', type.id, { type: 'featureType.setLifetime', id: type.id, lifetimeDays: type.lifetimeDays, meta })
  }
  for (const type of source.strategyTypes) {
    if (start.strategyTypes.has(type.name)) continue
    const input = built(upsertStrategyTypeSchema, { name: type.name, title: type.title ?? null, description: type.description ?? null, parameters: type.parameters ?? [] }, notCopied, { kind: 'strategy types', label: type.name })
    if (!input) continue
    instance('strategy types', type.name, { type: 'strategyType.create', input, meta })
    if (type.deprecated) instance('strategy types', `${type.name} deprecated`, { type: 'strategyType.deprecate', name: type.name, deprecated: true, meta })
  }
  for (const field of source.contextFields) {
    const name = String(field.name)
    const input = built(
      upsertContextFieldSchema,
      { name, description: field.description ?? null, stickiness: field.stickiness ?? false, sortOrder: field.sortOrder, legalValues: ((field.legalValues ?? []) as { value: string; description?: string }[]).map((l) => ({ value: l.value, ...(l.description ? { description: l.description } : {}) })) },
      notCopied,
      { kind: 'context fields', label: name },
    )
    if (!input) continue
    instance('context fields', name, start.contextFields.has(name) ? { type: 'contextField.update', name, input, meta } : { type: 'contextField.create', input, meta })
  }
  for (const tagType of source.tagTypes) {
    const input = built(tagTypeSchema, { name: tagType.name, description: tagType.description ?? null, icon: tagType.icon ?? null, color: tagType.color ?? null }, notCopied, { kind: 'tag types', label: tagType.name })
    if (!input) continue
    const { name, ...rest } = input
    instance('tag types', name, start.tagTypes.has(name) ? { type: 'tagType.update', name, input: rest, meta } : { type: 'tagType.create', input, meta })
  }
  for (const tag of source.tags) {
    const parsed = built(tagSchema, tag, notCopied, { kind: 'tags', label: `${tag.type}:${tag.value}` })
    if (parsed) instance('tags', `${parsed.type}:${parsed.value}`, { type: 'tag.create', tag: parsed, carried: false, meta })
  }
  // Segments keep their ids: strategies and SDKs name them by id.
  for (const segment of [...source.segments].sort((a, b) => a.id - b.id)) {
    const constraints = segment.constraints.map((c) => ({ ...(c as object) }))
    const input = built(upsertSegmentSchema, { name: segment.name, description: segment.description ?? null, project: segment.project ?? null, constraints }, notCopied, { kind: 'segments', label: segment.name })
    if (input) instance('segments', segment.name, { type: 'segment.create', input, id: segment.id, meta })
  }
  for (const project of source.projects) {
    const input = built(
      createProjectSchema,
      {
        id: project.id,
        name: project.name,
        description: project.description ?? null,
        mode: project.mode,
        defaultStickiness: project.defaultStickiness,
        featureLimit: project.featureLimit ?? null,
        ...(project.featureNaming && { featureNaming: project.featureNaming }),
        environments: project.environments,
      },
      notCopied,
      { kind: 'projects', label: project.id },
    )
    if (input) setup.push({ kind: 'projects', label: project.id, to: 'project', project: project.id, command: { type: 'project.create', id: project.id, input, meta } })
  }

  const flags = source.flags.map((flag) => flagSteps(flag, options, notCopied))
  const after: Step[] = []
  for (const flag of source.flags) {
    for (const dependency of flag.dependencies ?? []) {
      const label = `${flag.name} on ${dependency.feature}`
      const parsed = built(addDependencySchema, dependency, notCopied, { kind: 'dependencies', label })
      if (parsed) after.push({ kind: 'dependencies', label, to: 'project', project: flag.project, command: { type: 'dependency.add', feature: flag.name, dependency: parsed, meta } })
    }
  }
  // Archived last: an archived flag takes no strategies or dependencies.
  const archivedByProject = new Map<string, string[]>()
  for (const flag of source.flags) if (flag.archived) archivedByProject.set(flag.project, [...(archivedByProject.get(flag.project) ?? []), flag.name])
  for (const [project, names] of archivedByProject) {
    after.push({ kind: 'archived flags', label: `${names.length} in ${project}`, to: 'project', project, command: { type: 'feature.archive', names, meta } })
  }

  const access: Step[] = []
  for (const token of source.apiTokens) {
    const label = `${token.tokenName} (${token.type})`
    const input = built(
      createApiTokenSchema,
      { tokenName: token.tokenName, type: token.type, environment: token.type === 'admin' ? undefined : token.environment, projects: token.projects, expiresAt: token.expiresAt ?? null, secret: token.secret },
      notCopied,
      { kind: 'API tokens', label },
    )
    if (input) access.push({ kind: 'API tokens', label, to: 'instance', command: { type: 'apiToken.create', input, random: options.random(), meta } })
  }
  const users: Plan['users'] = []
  for (const user of source.users) {
    const label = user.username ?? user.email ?? `user ${user.id}`
    const input = built(createUserSchema, { ...(user.username && { username: user.username }), ...(user.email && { email: user.email }), name: user.name ?? null, rootRole: user.rootRole }, notCopied, { kind: 'users', label })
    if (input) users.push({ label, input })
  }
  return { setup, flags, after, access, users, notCopied }
}

// A flag step's count: a plan's archive step counts every flag it names.
export const countOf = (step: Step): number => (step.to === 'project' && step.command.type === 'feature.archive' ? step.command.names.length : 1)
