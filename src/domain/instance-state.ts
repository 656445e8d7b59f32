import { emptyPeople, type PeopleState } from './people-state.js'
import type { UpsertContextField } from '../schemas/context-fields.js'
import type { Constraint } from '../schemas/shared.js'
import type { StrategyParameter } from '../schemas/strategy-types.js'
import { builtInFeatureTypes, builtInTagTypes, type FeatureType, type TagType } from './built-in-types.js'

export interface Environment {
  name: string
  type: string
  enabled: boolean
  sortOrder: number
  protected: boolean
  createdAt: string
}

export type ApiTokenType = 'client' | 'backend' | 'frontend' | 'admin'

export interface ApiToken {
  secretHash: string
  maskedSecret: string
  tokenName: string
  type: ApiTokenType
  environment: string
  projects: string[]
  expiresAt: string | null
  createdAt: string
}

export interface Segment {
  id: number
  name: string
  description: string | null
  project: string | null
  constraints: Constraint[]
  createdAt: string
  createdBy: string
}

export interface StrategyType {
  name: string
  displayName: string | null
  title: string | null
  description: string | null
  editable: boolean
  deprecated: boolean
  builtIn: boolean
  parameters: StrategyParameter[]
}

export type ContextField = Required<Omit<UpsertContextField, 'description' | 'sortOrder'>> & {
  description: string | null
  sortOrder: number
  createdAt: string
}

export interface InstanceState {
  environments: ReadonlyMap<string, Environment>
  apiTokens: ReadonlyMap<string, ApiToken>
  segments: ReadonlyMap<number, Segment>
  strategyTypes: ReadonlyMap<string, StrategyType>
  contextFields: ReadonlyMap<string, ContextField>
  people: PeopleState
  tagTypes: ReadonlyMap<string, TagType>
  // Every tag ever created (POST /api/admin/tags, or first put on a flag) and not deleted, by `type:value`.
  tags: ReadonlyMap<string, { type: string; value: string }>
  featureTypes: ReadonlyMap<string, FeatureType>
  // Names of the applications SDKs have registered (application-created); what else they report is metrics.
  applications: ReadonlySet<string>
}

const builtIn = (name: string, displayName: string, description: string, parameters: StrategyParameter[] = []): StrategyType => ({
  name,
  displayName,
  title: null,
  description,
  editable: false,
  deprecated: false,
  builtIn: true,
  parameters,
})

const percentage = (name: string, description: string): StrategyParameter => ({ name, type: 'percentage', description, required: false })
const text = (name: string, description: string, required = false): StrategyParameter => ({ name, type: 'string', description, required })
const list = (name: string, description: string): StrategyParameter => ({ name, type: 'list', description, required: true })

// Present from the first start; the SDKs implement all of them.
export const builtInStrategyTypes: StrategyType[] = [
  builtIn('default', 'Standard', 'The standard strategy is strictly on / off for your entire userbase.'),
  builtIn('flexibleRollout', 'Gradual rollout', 'Roll out to a percentage of your userbase, with stickiness and a group id.', [
    percentage('rollout', ''),
    text('stickiness', 'Used to define stickiness', true),
    text('groupId', 'Used to define a activation groups, which allows you to correlate across feature flags', true),
  ]),
  builtIn('userWithId', 'UserIDs', 'Enable the feature for a specific set of userIds.', [list('userIds', '')]),
  builtIn('gradualRolloutUserId', 'Gradual rollout (userId)', 'Gradually activate the feature for logged-in users, stickiness on userId.', [percentage('percentage', ''), text('groupId', 'Used to define a activation groups, which allows you to correlate across feature flags', true)]),
  builtIn('gradualRolloutSessionId', 'Gradual rollout (sessionId)', 'Gradually activate the feature, stickiness on sessionId.', [percentage('percentage', ''), text('groupId', 'Used to define a activation groups, which allows you to correlate across feature flags', true)]),
  builtIn('gradualRolloutRandom', 'Gradual rollout (random)', 'Randomly activate the feature for a percentage of requests.', [percentage('percentage', '')]),
  builtIn('remoteAddress', 'IPs', 'Enable the feature for a specific set of IP addresses.', [list('IPs', '')]),
  builtIn('applicationHostname', 'Hosts', 'Enable the feature for a specific set of hostnames.', [list('hostNames', '')]),
]

const standardField = (name: string, description: string, sortOrder: number, stickiness = false): ContextField => ({
  name,
  description,
  stickiness,
  sortOrder,
  legalValues: [],
  createdAt: '1970-01-01T00:00:00.000Z',
})

export const builtInContextFields: ContextField[] = [
  standardField('appName', 'Allows you to constrain on application name', 2),
  standardField('currentTime', 'Allows you to constrain on date values', 3),
  standardField('environment', 'Allows you to constrain on application environment', 0),
  standardField('remoteAddress', 'Allows you to constrain on remote address', 4),
  standardField('sessionId', 'Allows you to constrain on sessionId', 5, true),
  standardField('userId', 'Allows you to constrain on userId', 1, true),
]

export const emptyInstance = (): InstanceState => ({
  environments: new Map(),
  apiTokens: new Map(),
  segments: new Map(),
  strategyTypes: new Map(builtInStrategyTypes.map((s) => [s.name, s])),
  contextFields: new Map(builtInContextFields.map((f) => [f.name, f])),
  people: emptyPeople(),
  tagTypes: new Map(builtInTagTypes.map((t) => [t.name, t])),
  featureTypes: new Map(builtInFeatureTypes.map((t) => [t.id, t])),
  applications: new Set(),
  tags: new Map(),
})
