import * as v from 'valibot'

// What handlers answer, for the OpenAPI description only: nothing parses with these. Objects stay open
// (v.object), so a field added to a view does not break the description, only a changed or dropped one.

const text = v.string()
const dateTime = v.string()
const nullableText = v.nullable(v.string())
const stringRecord = v.record(v.string(), v.string())

export const errorResponse = v.object({
  id: text,
  name: text,
  message: text,
  details: v.optional(v.array(v.object({ message: text, path: v.optional(text) }))),
})

export const constraintResponse = v.object({
  contextName: text,
  operator: text,
  caseInsensitive: v.optional(v.boolean()),
  inverted: v.optional(v.boolean()),
  values: v.optional(v.array(text)),
  value: v.optional(text),
})

const payloadResponse = v.object({ type: text, value: text })

export const featureVariantResponse = v.object({
  name: text,
  weight: v.number(),
  weightType: v.optional(text),
  stickiness: v.optional(text),
  payload: v.optional(payloadResponse),
  overrides: v.optional(v.array(v.object({ contextName: text, values: v.array(text) }))),
})

const strategyVariantResponse = v.object({
  name: text,
  weight: v.number(),
  weightType: text,
  stickiness: text,
  payload: v.optional(payloadResponse),
})

export const strategyResponse = v.object({
  id: text,
  name: text,
  title: nullableText,
  disabled: v.boolean(),
  featureName: text,
  sortOrder: v.number(),
  segments: v.array(v.number()),
  constraints: v.array(constraintResponse),
  variants: v.array(strategyVariantResponse),
  parameters: stringRecord,
})

export const strategiesResponse = v.array(strategyResponse)

export const featureEnvironmentResponse = v.object({
  name: text,
  featureName: text,
  environment: text,
  type: text,
  enabled: v.boolean(),
  sortOrder: v.number(),
  variantCount: v.number(),
  strategies: v.array(strategyResponse),
  variants: v.array(featureVariantResponse),
  lastSeenAt: v.nullable(dateTime),
  hasStrategies: v.boolean(),
  hasEnabledStrategies: v.boolean(),
})

export const featureResponse = v.object({
  name: text,
  type: text,
  description: nullableText,
  project: text,
  enabled: v.boolean(),
  stale: v.boolean(),
  potentiallyStale: v.boolean(),
  favorite: v.boolean(),
  impressionData: v.boolean(),
  archived: v.boolean(),
  createdAt: dateTime,
  archivedAt: v.nullable(dateTime),
  lastSeenAt: v.nullable(dateTime),
  environments: v.array(featureEnvironmentResponse),
  variants: v.array(featureVariantResponse),
  strategies: v.array(strategyResponse),
  tags: v.array(v.object({ type: text, value: text })),
  children: v.array(text),
  dependencies: v.array(v.object({ feature: text, enabled: v.boolean(), variants: v.optional(v.array(text)) })),
  lifecycle: v.object({ stage: text, enteredStageAt: dateTime }),
})

export const featuresResponse = v.object({ version: v.number(), features: v.array(featureResponse) })

// A write answers the flag's own fields, not its environments (as Unleash 8.2).
export const featureDataResponse = v.object({
  name: text,
  description: nullableText,
  type: text,
  project: text,
  stale: v.boolean(),
  createdAt: dateTime,
  impressionData: v.boolean(),
  archived: v.boolean(),
})

const defaultStrategyResponse = v.object({
  name: text,
  title: v.optional(nullableText),
  constraints: v.array(constraintResponse),
  parameters: stringRecord,
  segments: v.optional(v.array(v.number())),
  variants: v.optional(v.array(strategyVariantResponse)),
  disabled: v.optional(v.nullable(v.boolean())),
})

export const projectResponse = v.object({
  id: text,
  name: text,
  description: nullableText,
  mode: text,
  defaultStickiness: text,
  featureLimit: v.nullable(v.number()),
  featureNaming: v.object({ pattern: nullableText, example: nullableText, description: nullableText }),
  featureCount: v.number(),
  memberCount: v.number(),
  health: v.number(),
  favorite: v.boolean(),
  createdAt: dateTime,
  updatedAt: v.nullable(dateTime),
  environments: v.array(v.object({ environment: text, changeRequestsEnabled: v.boolean(), defaultStrategy: defaultStrategyResponse })),
})

export const projectsResponse = v.object({ version: v.number(), projects: v.array(projectResponse) })

export const projectWithFeaturesResponse = v.object({
  ...projectResponse.entries,
  version: v.number(),
  features: v.array(featureResponse),
  members: v.number(),
})

export const variantsResponse = v.object({ version: v.number(), variants: v.array(featureVariantResponse) })

export const segmentResponse = v.object({
  id: v.number(),
  name: text,
  description: nullableText,
  project: nullableText,
  constraints: v.array(constraintResponse),
  createdAt: dateTime,
  createdBy: nullableText,
  usedInProjects: v.number(),
  usedInFeatures: v.number(),
})

export const segmentsResponse = v.object({ segments: v.array(segmentResponse) })

export const segmentStrategiesResponse = v.object({
  strategies: v.array(v.object({ id: text, projectId: text, featureName: text, strategyName: text, environment: text })),
  changeRequestStrategies: v.array(v.unknown()),
})

export const environmentResponse = v.object({
  name: text,
  type: text,
  enabled: v.boolean(),
  protected: v.boolean(),
  sortOrder: v.number(),
  createdAt: dateTime,
  projectCount: v.number(),
})

export const environmentsResponse = v.object({ version: v.number(), environments: v.array(environmentResponse) })

export const apiTokenResponse = v.object({
  secret: text,
  tokenName: text,
  type: v.picklist(['admin', 'client', 'frontend']),
  environment: text,
  project: text,
  projects: v.array(text),
  expiresAt: v.nullable(dateTime),
  createdAt: dateTime,
  alias: nullableText,
  username: text,
  seenAt: v.nullable(dateTime),
})

export const apiTokensResponse = v.object({ tokens: v.array(apiTokenResponse) })

export const eventResponse = v.object({
  id: v.number(),
  type: text,
  createdAt: dateTime,
  createdBy: text,
  createdByUserId: v.nullable(v.number()),
  environment: nullableText,
  project: nullableText,
  featureName: nullableText,
  data: v.unknown(),
  preData: v.unknown(),
  tags: v.array(v.object({ type: text, value: text })),
})

export const eventsResponse = v.object({
  version: v.number(),
  events: v.array(eventResponse),
  totalEvents: v.number(),
})

export const featureEventsResponse = v.object({ ...eventsResponse.entries, toggleName: text })

// GET /api/admin/search/events (Unleash's eventSearchResponseSchema).
export const eventSearchResponse = v.object({
  events: v.array(v.object({ ...eventResponse.entries, label: text, summary: text })),
  total: v.number(),
})

// GET /api/admin/search/features (Unleash's searchFeaturesSchema).
export const searchFeaturesResponse = v.object({
  features: v.array(
    v.object({
      name: text,
      type: text,
      description: nullableText,
      project: text,
      favorite: v.boolean(),
      createdAt: dateTime,
      stale: v.boolean(),
      archivedAt: v.nullable(dateTime),
      impressionData: v.boolean(),
      dependencyType: v.nullable(v.picklist(['parent', 'child'])),
      environments: v.array(
        v.object({
          name: text,
          enabled: v.boolean(),
          type: text,
          sortOrder: v.number(),
          variantCount: v.number(),
          lastSeenAt: v.nullable(dateTime),
          hasStrategies: v.boolean(),
          hasEnabledStrategies: v.boolean(),
          yes: v.number(),
          no: v.number(),
          changeRequestIds: v.array(v.number()),
        }),
      ),
      segments: v.array(text),
      createdBy: v.object({ id: v.number(), name: text, imageUrl: text }),
      lifecycle: v.object({ stage: text, status: v.optional(text), enteredStageAt: dateTime }),
      tags: v.optional(v.array(v.object({ value: text, type: text, color: nullableText }))),
    }),
  ),
  total: v.number(),
})

export const eventsHeadResponse = v.object({
  id: v.number(),
  hash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
})

const clientStrategyResponse = v.object({
  name: text,
  constraints: v.array(constraintResponse),
  parameters: stringRecord,
  segments: v.optional(v.array(v.number())),
  variants: v.optional(v.array(strategyVariantResponse)),
})

export const clientFeatureResponse = v.object({
  name: text,
  type: text,
  enabled: v.boolean(),
  project: text,
  stale: v.boolean(),
  strategies: v.array(clientStrategyResponse),
  variants: v.array(featureVariantResponse),
  description: nullableText,
  impressionData: v.boolean(),
  dependencies: v.optional(v.array(v.object({ feature: text, enabled: v.optional(v.boolean()), variants: v.optional(v.array(text)) }))),
})

export const clientFeaturesResponse = v.object({
  version: v.number(),
  features: v.array(clientFeatureResponse),
  segments: v.optional(v.array(v.object({ id: v.number(), constraints: v.array(constraintResponse) }))),
  query: v.optional(v.record(v.string(), v.unknown())),
  meta: v.optional(v.object({ revisionId: v.number(), etag: text, queryHash: text })),
})

const evaluatedVariantResponse = v.object({
  name: text,
  enabled: v.boolean(),
  feature_enabled: v.optional(v.boolean()),
  featureEnabled: v.optional(v.boolean()),
  payload: v.optional(payloadResponse),
})

export const frontendResponse = v.object({
  toggles: v.array(v.object({ name: text, enabled: v.boolean(), variant: evaluatedVariantResponse, impressionData: v.boolean() })),
})

// The playground may not know a result (a constraint on a field the context lacks): Unleash's 'unknown'.
const maybeKnown = v.union([v.boolean(), v.literal('unknown')])

const explainedConstraint = v.object({ ...constraintResponse.entries, result: v.boolean() })

export const playgroundResponse = v.object({
  input: v.object({ environment: text, projects: v.union([v.literal('*'), v.array(text)]), context: v.record(v.string(), v.unknown()) }),
  features: v.array(
    v.object({
      name: text,
      projectId: text,
      strategies: v.object({
        result: maybeKnown,
        data: v.array(
          v.object({
            name: text,
            id: text,
            disabled: v.nullable(v.boolean()),
            parameters: stringRecord,
            constraints: v.array(explainedConstraint),
            segments: v.array(v.object({ id: v.number(), name: text, result: v.boolean(), constraints: v.array(explainedConstraint) })),
            result: v.object({ evaluationStatus: text, enabled: maybeKnown }),
            links: v.object({ edit: text }),
          }),
        ),
      }),
      hasUnsatisfiedDependency: v.boolean(),
      isEnabledInCurrentEnvironment: v.boolean(),
      isEnabled: v.boolean(),
      variant: v.nullable(evaluatedVariantResponse),
      variants: v.array(featureVariantResponse),
    }),
  ),
})

const replicationDetails = v.object({
  role: v.picklist(['writer', 'replica']),
  committedId: v.optional(v.number()),
  publishedId: v.optional(v.number()),
  natsConnected: v.optional(v.boolean()),
  refused: v.optional(text),
  appliedId: v.optional(v.number()),
  writerId: v.optional(v.number()),
  lag: v.optional(v.nullable(v.number())),
  heardSecondsAgo: v.optional(v.nullable(v.number())),
  degraded: v.optional(text),
  notReady: v.optional(text),
})

export const healthResponse = v.object({ health: v.literal('GOOD'), details: replicationDetails })

export const readyResponse = v.object({ health: v.literal('GOOD'), degraded: v.optional(text) })

// Reads of Unleash's own admin UI (its metrics panel, dashboard, project status, playground).
const usageCounts = { environment: text, timestamp: dateTime, yes: v.number(), no: v.number() }

export const featureUsageResponse = v.object({
  version: v.number(),
  maturity: text,
  featureName: text,
  lastHourUsage: v.array(v.object(usageCounts)),
  seenApplications: v.array(text),
})

export const rawFeatureUsageResponse = v.object({
  version: v.number(),
  maturity: text,
  data: v.array(v.object({ ...usageCounts, featureName: text, appName: text, variants: v.optional(v.record(v.string(), v.number())) })),
})

export const uiConfigResponse = v.object({
  environment: text,
  version: text,
  versionInfo: v.object({ current: v.object({ oss: text, enterprise: text }), latest: v.object({}), isLatest: v.boolean() }),
  unleashUrl: text,
  baseUriPath: text,
  authenticationType: text,
  disablePasswordAuth: v.boolean(),
  emailEnabled: v.boolean(),
  maintenanceMode: v.boolean(),
  frontendApiOrigins: v.array(text),
  resourceLimits: v.record(v.string(), v.number()),
  flags: v.record(v.string(), v.boolean()),
})

export const projectEnvironmentsResponse = v.object({
  version: v.number(),
  environments: v.array(
    v.object({
      name: text,
      type: text,
      enabled: v.boolean(),
      protected: v.boolean(),
      sortOrder: v.number(),
      requiredApprovals: v.nullable(v.number()),
      projectApiTokenCount: v.number(),
      projectEnabledToggleCount: v.number(),
      visible: v.boolean(),
      defaultStrategy: v.optional(v.object({ name: text })),
    }),
  ),
})

export const tagsResponse = v.object({ version: v.number(), tags: v.array(v.object({ type: text, value: text })) })

export const dependenciesExistResponse = v.boolean()

export const profileResponse = v.object({
  rootRole: v.object({ id: v.number(), type: text, name: text, description: v.optional(text), project: v.optional(nullableText) }),
  projects: v.array(text),
  groups: v.array(v.object({ id: v.number(), name: text, description: nullableText, mappingsSSO: v.array(text), rootRole: v.nullable(v.number()) })),
  subscriptions: v.array(text),
  features: v.array(v.unknown()),
  canChangePassword: v.boolean(),
})

const stageSummary = v.object({ averageDays: v.nullable(v.number()), currentFlags: v.number() })

export const projectStatusResponse = v.object({
  resources: v.object({ members: v.number(), apiTokens: v.number(), segments: v.number() }),
  activityCountByDate: v.array(v.object({ date: text, count: v.number() })),
  health: v.object({ current: v.number() }),
  technicalDebt: v.object({ current: v.number() }),
  lifecycleSummary: v.object({
    initial: stageSummary,
    preLive: stageSummary,
    live: stageSummary,
    completed: stageSummary,
    archived: v.object({ currentFlags: v.number(), last30Days: v.number() }),
  }),
  staleFlags: v.object({ total: v.number() }),
})

export const flagCreatorsResponse = v.array(v.object({ id: v.number(), name: text }))

const ownerResponse = v.union([
  v.object({ ownerType: v.literal('user'), name: text, email: v.optional(nullableText), imageUrl: v.optional(nullableText) }),
  v.object({ ownerType: v.literal('group'), name: text }),
  v.object({ ownerType: v.literal('system') }),
])

export const personalDashboardResponse = v.object({
  flags: v.array(v.object({ name: text, type: text, project: text })),
  projects: v.array(v.object({ id: text, name: text, health: v.number(), technicalDebt: v.number(), memberCount: v.number(), featureCount: v.number() })),
  projectOwners: v.array(ownerResponse),
  admins: v.array(v.object({ id: v.number(), name: v.optional(text), username: v.optional(text), email: v.optional(text), imageUrl: v.optional(text) })),
})

const onboardingStatusResponse = v.union([
  v.object({ status: v.picklist(['onboarding-started', 'sdk-connected', 'onboarded']) }),
  v.object({ status: v.literal('first-flag-created'), feature: text }),
])

export const personalProjectDetailsResponse = v.object({
  latestEvents: v.array(v.object({ id: v.number(), summary: nullableText, createdBy: text, createdByImageUrl: text, createdAt: dateTime })),
  onboardingStatus: onboardingStatusResponse,
  owners: v.array(ownerResponse),
  roles: v.array(v.object({ id: v.number(), name: text, type: text })),
  insights: v.object({
    avgHealthCurrentWindow: v.nullable(v.number()),
    avgHealthPastWindow: v.nullable(v.number()),
    totalFlags: v.number(),
    activeFlags: v.number(),
    staleFlags: v.number(),
    potentiallyStaleFlags: v.number(),
    health: v.number(),
    technicalDebt: v.number(),
  }),
})

const evaluatedFlag = playgroundResponse.entries.features.item

export const advancedPlaygroundResponse = v.object({
  input: v.object({ environments: v.array(text), projects: v.union([v.literal('*'), v.array(text)]), context: v.record(v.string(), v.unknown()) }),
  features: v.array(
    v.object({
      name: text,
      projectId: text,
      environments: v.record(v.string(), v.array(v.object({ ...evaluatedFlag.entries, environment: text, context: v.record(v.string(), v.string()) }))),
    }),
  ),
  warnings: v.optional(v.object({ invalidContextProperties: v.array(text) })),
})

export const splashResponse = v.object({ splashId: text, userId: v.number(), seen: v.boolean() })

export const instanceStatsResponse = v.object({
  timestamp: dateTime,
  versionOSS: text,
  versionEnterprise: text,
  users: v.number(),
  serviceAccounts: v.number(),
  apiTokens: v.record(v.string(), v.number()),
  activeUsers: v.object({ last7: v.number(), last30: v.number(), last60: v.number(), last90: v.number() }),
  featureToggles: v.number(),
  archivedFeatureToggles: v.number(),
  projects: v.number(),
  contextFields: v.number(),
  roles: v.number(),
  groups: v.number(),
  environments: v.number(),
  segments: v.number(),
  strategies: v.number(),
  clientApps: v.array(v.object({ range: text, count: v.number() })),
})
