import { publicToken } from '../domain/api-tokens.js'
import { activeFeatureCount, childrenOf, staleCounts } from '../domain/flag-facts.js'
import { healthScore } from '../domain/staleness.js'
import type { ApiToken, Environment } from '../domain/instance-state.js'
import type { Feature, FeatureEnvironment, ProjectState, Strategy } from '../domain/project-state.js'
import { orderedStrategies, projectDefaultStrategy } from '../domain/strategies.js'
import type { LifecycleStage } from '../domain/project-state.js'
import { isFavoriteOf } from '../domain/favorites.js'
import { mergeLifecycle } from '../domain/lifecycle.js'

// Shapes of the admin API (INTERFACE 2.5, 2.8, 2.9), computed from committed state on request.
export interface AdminViewContext {
  environments: ReadonlyMap<string, Environment>
  lastSeen: (feature: string, environment: string) => string | null
  childrenOf: (feature: string) => string[]
  // Who asks (favorites are per caller) and the metric-driven lifecycle stages; absent: none.
  viewer?: string
  metricStages?: (feature: string) => LifecycleStage[]
}

// Stored stages merged with the metric-driven ones, oldest first (GET .../lifecycle).
export const featureLifecycle = (feature: Feature, ctx: Pick<AdminViewContext, 'metricStages'>): LifecycleStage[] =>
  ctx.metricStages ? mergeLifecycle(feature.lifecycle, ctx.metricStages(feature.name)) : feature.lifecycle

export const strategyView = (strategy: Strategy, featureName: string) => ({
  id: strategy.id,
  name: strategy.name,
  title: strategy.title,
  disabled: strategy.disabled,
  featureName,
  sortOrder: strategy.sortOrder,
  segments: strategy.segments,
  constraints: strategy.constraints,
  variants: strategy.variants,
  parameters: strategy.parameters,
})

const environmentOrder = (ctx: AdminViewContext) => (a: string, b: string) =>
  (ctx.environments.get(a)?.sortOrder ?? 0) - (ctx.environments.get(b)?.sortOrder ?? 0) || a.localeCompare(b)

export const featureEnvironmentView = (feature: Feature, name: string, env: FeatureEnvironment, ctx: AdminViewContext) => ({
  name,
  featureName: feature.name,
  environment: name,
  type: ctx.environments.get(name)?.type ?? 'development',
  enabled: env.enabled,
  sortOrder: ctx.environments.get(name)?.sortOrder ?? 0,
  variantCount: env.variants.length,
  strategies: orderedStrategies(env.strategies).map((s) => strategyView(s, feature.name)),
  variants: env.variants,
  lastSeenAt: ctx.lastSeen(feature.name, name),
  hasStrategies: env.strategies.length > 0,
  hasEnabledStrategies: env.strategies.some((s) => !s.disabled),
})

const currentStage = (feature: Feature): LifecycleStage => {
  const order = ['archived', 'completed', 'live', 'pre-live', 'initial']
  for (const stage of order) {
    const found = feature.lifecycle.find((l) => l.stage === stage)
    if (found) return found
  }
  return { stage: 'initial' as const, enteredStageAt: feature.createdAt }
}

// The stage a flag is in now, metric-driven stages included.
export const currentLifecycle = (feature: Feature, ctx: Pick<AdminViewContext, 'metricStages'>): LifecycleStage =>
  currentStage({ ...feature, lifecycle: featureLifecycle(feature, ctx) })

export const featureView = (feature: Feature, ctx: AdminViewContext) => {
  const environmentNames = [...feature.environments.keys()].sort(environmentOrder(ctx))
  const environments = environmentNames.map((name) => featureEnvironmentView(feature, name, feature.environments.get(name)!, ctx))
  const lastSeen = environments.reduce<string | null>((latest, e) => (e.lastSeenAt && (!latest || e.lastSeenAt > latest) ? e.lastSeenAt : latest), null)
  return {
    name: feature.name,
    type: feature.type,
    description: feature.description,
    project: feature.project,
    enabled: environments.some((e) => e.enabled),
    stale: feature.stale,
    potentiallyStale: feature.potentiallyStale ?? false,
    favorite: isFavoriteOf(feature.favoritedBy, ctx.viewer),
    impressionData: feature.impressionData,
    archived: feature.archived,
    createdAt: feature.createdAt,
    archivedAt: feature.archivedAt,
    lastSeenAt: lastSeen,
    environments,
    variants: [],
    strategies: [],
    tags: feature.tags,
    children: ctx.childrenOf(feature.name),
    dependencies: feature.dependencies.map((d) => ({ feature: d.feature, enabled: d.enabled, variants: d.variants })),
    lifecycle: currentLifecycle(feature, ctx),
  }
}

// The active flags of the project that depend on a flag, sorted (the domain keeps who depends on whom
// with each version of the project's flags: a list of every flag asks for each one).
export const childrenIn = (project: ProjectState) => (name: string): string[] => [...childrenOf(project.features, name)].sort()

// From counts kept per version of the project's flags (flag-facts.ts): the project answers and the list
// of projects ask for them on every request.
export const projectHealth = (project: ProjectState): number => healthScore(activeFeatureCount(project.features), staleCounts(project.features))

export const projectSummaryView = (project: ProjectState) => ({
  id: project.settings.id,
  name: project.settings.name,
  description: project.settings.description,
  mode: project.settings.mode,
  defaultStickiness: project.settings.defaultStickiness,
  featureLimit: project.settings.featureLimit,
  featureNaming: project.settings.featureNaming,
  featureCount: activeFeatureCount(project.features),
  memberCount: 0,
  health: projectHealth(project),
  favorite: false,
  createdAt: project.settings.createdAt,
  updatedAt: project.settings.updatedAt,
  environments: [...project.environments.values()].map((e) => ({
    environment: e.environment,
    changeRequestsEnabled: e.changeRequestsEnabled,
    defaultStrategy: projectDefaultStrategy(project, e.environment),
  })),
})

export const environmentView = (environment: Environment, projectCount: number) => ({
  name: environment.name,
  type: environment.type,
  enabled: environment.enabled,
  protected: environment.protected,
  sortOrder: environment.sortOrder,
  createdAt: environment.createdAt,
  projectCount,
})

// Every environment as one project sees it (Unleash's GET /api/admin/environments/project/:id): whether
// the project uses it (visible), its change-request approvals there, the API tokens that reach it and
// the project's flags switched on in it.
export const projectEnvironmentsView = (project: ProjectState, environments: Iterable<Environment>, tokens: Iterable<ApiToken>) => {
  const tokenList = [...tokens]
  // One walk over the flags for every environment (a filter per environment was 60 ms at 50,000 flags).
  const enabledIn = new Map<string, number>()
  for (const feature of project.features.values()) {
    if (feature.archived) continue
    for (const [name, env] of feature.environments) if (env.enabled) enabledIn.set(name, (enabledIn.get(name) ?? 0) + 1)
  }
  return [...environments]
    .sort((a, b) => a.sortOrder - b.sortOrder || a.createdAt.localeCompare(b.createdAt))
    .map((environment) => {
      const used = project.environments.get(environment.name)
      return {
        name: environment.name,
        type: environment.type,
        enabled: environment.enabled,
        protected: environment.protected,
        sortOrder: environment.sortOrder,
        requiredApprovals: used?.changeRequestsEnabled ? used.requiredApprovals : null,
        projectApiTokenCount: tokenList.filter((t) => t.environment === environment.name && (t.projects.includes('*') || t.projects.includes(project.settings.id))).length,
        projectEnabledToggleCount: enabledIn.get(environment.name) ?? 0,
        visible: used !== undefined,
        ...(used?.defaultStrategy ? { defaultStrategy: used.defaultStrategy } : {}),
      }
    })
}

// Unleash lists a token's secret to those who may read tokens; events never carry it (publicToken).
export const apiTokenView = (token: ApiToken, seenAt: string | null) => ({
  secret: token.maskedSecret,
  ...publicToken(token),
  username: token.tokenName,
  seenAt,
})
