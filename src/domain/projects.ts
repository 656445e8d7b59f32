import { limits } from './limits.js'
import { namingPatternTest } from './naming-pattern.js'
import type { CreateProject, FeatureNaming, ProjectEnvironmentInput, UpdateProject } from '../schemas/projects.js'
import type { CreateFeatureStrategy } from '../schemas/shared.js'
import { DomainError, badData, fail, invalidOperation, nameExists, notFound, ok, type Result } from './errors.js'
import type { ProjectData } from './event-data.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import type { Environment } from './instance-state.js'
import type { ProjectSettings, ProjectState } from './project-state.js'


export interface ProjectWorldView {
  environments: ReadonlyMap<string, Environment>
  projectCount: number
}

export const slugify = (name: string): string =>
  name
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-')
    .replace(/-+/g, '-')
    .slice(0, 90) || 'project'

const hasForbiddenPatternPart = (pattern: string) => /\s|\\[tsnrfv]/.test(pattern)

export const validateFeatureNaming = (naming: FeatureNaming | undefined): DomainError | undefined => {
  if (!naming) return undefined
  const { pattern, example, description } = naming
  const problems: string[] = []
  if (!pattern) {
    if (example) problems.push('You must specify a pattern when you specify an example.')
    if (description) problems.push('You must specify a pattern when you specify a description.')
  } else {
    if (hasForbiddenPatternPart(pattern)) problems.push('Feature flag naming pattern cannot contain whitespace characters.')
    const test = namingPatternTest(pattern)
    if (!test) problems.push(`"${pattern}" is not a valid regular expression (RE2 syntax: no lookaround or backreferences).`)
    if (test && example && !test(example)) problems.push(`You've provided a feature flag naming example ("${example}") that doesn't match your feature flag naming pattern ("${pattern}").`)
  }
  if (problems.length === 0) return undefined
  return new DomainError(
    'BadDataError',
    problems.length === 1
      ? `Request validation failed: your request body or params contain invalid data: ${problems[0]}`
      : 'Request validation failed: your request body or params contain invalid data. Refer to the `details` list for more information.',
    problems.map((message) => ({ message })),
  )
}

const normalisedNaming = (naming: FeatureNaming | undefined): FeatureNaming => ({
  pattern: naming?.pattern || null,
  example: naming?.pattern ? naming.example || null : null,
  description: naming?.pattern ? naming.description || null : null,
})

export const projectData = (state: ProjectState): ProjectData => ({
  ...state.settings,
  environments: [...state.environments.keys()],
})

// A project's decisions that need only part of the world: the environments and how many projects there are.
type WithView<C> = C & { meta: CommandMeta; world: ProjectWorldView }

type CreateProjectCommand = { type: 'project.create'; id: string; input: CreateProject }
type AddProjectEnvironment = { type: 'projectEnvironment.add'; input: ProjectEnvironmentInput; defaultStrategy: CreateFeatureStrategy | null }

// A project's own settings and environments.
export type ProjectSetupCommand =
  | CreateProjectCommand
  | { type: 'project.update'; input: UpdateProject }
  | { type: 'project.delete' }
  | AddProjectEnvironment
  | { type: 'projectEnvironment.remove'; environment: string }
  | { type: 'projectEnvironment.dropDeleted'; environment: string }
  | { type: 'defaultStrategy.set'; environment: string; strategy: CreateFeatureStrategy }

export const decideCreateProject = (state: ProjectState | undefined, { id, input, world, meta }: WithView<CreateProjectCommand>): Result<EventDraft[]> => {
  if (state) return fail(nameExists('A project with this id already exists.'))
  if (world.projectCount >= limits.projects) {
    return fail(new DomainError('ExceedsLimitError', `Failed to create project. You can't create more than the established limit of ${limits.projects}.`))
  }
  const namingError = validateFeatureNaming(input.featureNaming)
  if (namingError) return fail(namingError)
  let environments: string[]
  if (input.environments) {
    const unknown = input.environments.filter((e) => !world.environments.has(e))
    if (unknown.length > 0) return fail(badData(`These environments do not exist: ${unknown.map((e) => `'${e}'`).join(', ')}.`))
    environments = [...new Set(input.environments)]
  } else {
    environments = [...world.environments.values()].filter((e) => e.enabled).map((e) => e.name)
  }
  const settings: ProjectSettings = {
    id,
    name: input.name,
    description: input.description ?? null,
    mode: input.mode ?? 'open',
    defaultStickiness: input.defaultStickiness ?? 'default',
    featureLimit: input.featureLimit ?? null,
    featureNaming: normalisedNaming(input.featureNaming),
    createdAt: meta.now,
    updatedAt: meta.now,
  }
  // Unleash makes the creating user the project's Owner.
  const owner = meta.actor.userId !== null && meta.actor.userId > 0 ? meta.actor.userId : null
  return ok([draft(meta, 'project-created', { project: id, data: { ...settings, environments, owner } })])
}

export const decideUpdateProject = (state: ProjectState, input: UpdateProject, meta: CommandMeta): Result<EventDraft[]> => {
  if (input.id !== undefined && input.id !== state.settings.id) return fail(badData('The project id in the body does not match the path'))
  const namingError = validateFeatureNaming(input.featureNaming)
  if (namingError) return fail(namingError)
  const current = state.settings
  const next: ProjectSettings = {
    ...current,
    name: input.name,
    description: input.description === undefined ? current.description : input.description,
    mode: input.mode ?? current.mode,
    defaultStickiness: input.defaultStickiness ?? current.defaultStickiness,
    featureLimit: input.featureLimit === undefined ? current.featureLimit : input.featureLimit,
    featureNaming: input.featureNaming ? normalisedNaming(input.featureNaming) : current.featureNaming,
    updatedAt: meta.now,
  }
  const unchanged = JSON.stringify({ ...next, updatedAt: null }) === JSON.stringify({ ...current, updatedAt: null })
  if (unchanged) return ok([])
  return ok([draft(meta, 'project-updated', { project: current.id, data: next, preData: current })])
}

export const decideDeleteProject = (state: ProjectState, meta: CommandMeta): Result<EventDraft[]> => {
  if (state.settings.id === 'default') return fail(invalidOperation('You can not delete the default project!'))
  const active = [...state.features.values()].some((f) => !f.archived)
  if (active) return fail(invalidOperation('You can not delete a project with active feature flags'))
  return ok([draft(meta, 'project-deleted', { project: state.settings.id, preData: projectData(state) })])
}

export const decideAddProjectEnvironment = (state: ProjectState, { input, defaultStrategy, world, meta }: WithView<AddProjectEnvironment>): Result<EventDraft[]> => {
  if (!world.environments.has(input.environment)) return fail(badData(`Environment ${input.environment} does not exist`))
  if (state.environments.has(input.environment)) {
    return fail(nameExists(`${state.settings.id} already has the environment ${input.environment} enabled`))
  }
  return ok([
    draft(meta, 'project-environment-added', {
      project: state.settings.id,
      environment: input.environment,
      data: {
        environment: input.environment,
        changeRequestsEnabled: input.changeRequestsEnabled ?? false,
        requiredApprovals: 1,
        defaultStrategy,
      },
    }),
  ])
}

export const decideRemoveProjectEnvironment = (state: ProjectState, environment: string, meta: CommandMeta): Result<EventDraft[]> => {
  const current = state.environments.get(environment)
  if (!current) return fail(notFound(`Environment ${environment} is not enabled for project ${state.settings.id}`))
  if (state.environments.size === 1) return fail(badData('You must always have one active environment'))
  return ok([draft(meta, 'project-environment-removed', { project: state.settings.id, environment, preData: current })])
}

// The environment itself is being deleted: every project lets go of it, even its only one (Unleash cascades).
export const decideDropDeletedEnvironment = (state: ProjectState, environment: string, meta: CommandMeta): Result<EventDraft[]> => {
  const current = state.environments.get(environment)
  if (!current) return ok([])
  return ok([draft(meta, 'project-environment-removed', { project: state.settings.id, environment, preData: current })])
}

export const decideSetDefaultStrategy = (
  state: ProjectState,
  environment: string,
  strategy: CreateFeatureStrategy,
  meta: CommandMeta,
): Result<EventDraft[]> => {
  if (strategy.name !== 'flexibleRollout') {
    return fail(badData('Only "flexibleRollout" strategy can be used as a default strategy for an environment'))
  }
  const targets = environment === '*' ? [...state.environments.keys()] : [environment]
  if (environment !== '*' && !state.environments.has(environment)) {
    return fail(notFound(`Environment ${environment} is not enabled for project ${state.settings.id}`))
  }
  const events = targets.flatMap((env) => {
    const current = state.environments.get(env)?.defaultStrategy ?? null
    if (JSON.stringify(current) === JSON.stringify(strategy)) return []
    return [draft(meta, 'default-strategy-updated', { project: state.settings.id, environment: env, data: strategy, preData: current })]
  })
  return ok(events)
}
