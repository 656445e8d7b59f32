import type { MigratedFrom } from './migration.js'
import type { ClientRegister } from '../schemas/client.js'
import type { CompleteFeature } from '../schemas/lifecycle.js'
import type { CreateFeatureStrategy, FeatureVariant, Tag } from '../schemas/shared.js'
import type { FeatureType, TagType } from './built-in-types.js'
import type { Author, Change, Comment, ReplacedByChange, TargetedChange } from './change-request-state.js'
import type { ApiToken, ContextField, Environment, Segment, StrategyType } from './instance-state.js'
import type { Group, GroupMember, Pat, Role, SignupToken, User } from './people-state.js'
import type { Dependency, Feature, FeatureEnvironment, ProjectEnvironment, ProjectSettings, Strategy } from './project-state.js'

// What each record type carries in `data`, `preData` and `hidden` (replay-only), as the decisions write
// it and the evolve functions and read models read it back. A type not listed carries none of them.
// Shapes that older logs still hold are part of the union of their type.

// What events show of a flag (Unleash's feature row).
export type FeatureData = Pick<Feature, 'name' | 'description' | 'type' | 'project' | 'stale' | 'createdAt' | 'impressionData' | 'archived'>
export type ProjectData = ProjectSettings & { environments: string[] }
// What events and responses may show of a user.
export type PublicUser = Pick<User, 'id' | 'name' | 'username' | 'email' | 'rootRole'>
// What events show of an API token: everything but its secret.
export type PublicToken = Pick<ApiToken, 'tokenName' | 'type' | 'environment' | 'projects' | 'expiresAt' | 'createdAt'> & { project: string; alias: null }
export type GroupData = Omit<Group, 'users'> & { users: number[] }
export type PatData = Omit<Pat, 'secretHash'>
// A moved flag as plain data: the log's encoding keeps objects and arrays, not Maps.
export type MovedFeature = Omit<Feature, 'environments'> & { environments: [string, FeatureEnvironment][] }
// Unleash's export format (its exportResultSchema) for flags in one environment: what an export hands
// out (read/feature-export.ts) and features-exported records.
export interface FeatureExport {
  features: Omit<FeatureData, 'createdAt'>[]
  featureStrategies: (Strategy & { featureName: string })[]
  featureEnvironments: { enabled: boolean; featureName: string; environment: string; variants: FeatureVariant[]; name: string }[]
  contextFields: Omit<ContextField, 'createdAt'>[]
  featureTags: { featureName: string; tagType: string; tagValue: string }[]
  segments: Pick<Segment, 'id' | 'name'>[]
  tagTypes: TagType[]
  dependencies: { feature: string; dependencies: Dependency[] }[]
}
// An export too large to record whole: the flags' names.
export interface ExportSummary {
  environment: string
  featureCount: number
  features: string[]
  truncated: true
}

type Variants = { variants: FeatureVariant[] }
type Move = { oldProject: string; newProject: string }
type Favorite<K extends string> = Record<K, string> & { userKey: string }
type UserRoles = { roles: number[]; userId: number }
type GroupRoles = { roles: number[]; groupId: number }
type ChangeRequestRules = Pick<ProjectEnvironment, 'changeRequestsEnabled' | 'requiredApprovals'>
type Tokens = { secretHash: string; maskedSecret: string } | { secret: string } // the plain secret: logs written before secrets were hashed
type SignupTokenChange = Pick<SignupToken, 'secret' | 'enabled' | 'expiresAt'>

// Every change request record names its request.
type Request<D = unknown> = { changeRequestId: number } & D

export interface EventPayloads {
  'project-created': { data: ProjectSettings & { environments: string[]; owner: number | null } }
  'project-updated': { data: ProjectSettings; preData: ProjectSettings }
  'project-deleted': { preData: ProjectData }
  'project-environment-added': { data: ProjectEnvironment }
  'project-environment-removed': { preData: ProjectEnvironment }
  'change-request-configuration-updated': { data: ChangeRequestRules; preData: ChangeRequestRules }
  'default-strategy-updated': { data: CreateFeatureStrategy; preData: CreateFeatureStrategy | null }
  'project-access-added': { data: { roles: { roleId: number; userIds: number[]; groupIds: number[] }[] } }
  'project-access-user-roles-updated': { data: UserRoles; preData: UserRoles }
  'project-access-group-roles-updated': { data: GroupRoles; preData: GroupRoles }
  'project-access-user-roles-deleted': { preData: UserRoles }
  'project-access-group-roles-deleted': { preData: GroupRoles }
  'project-favorited': { data: Favorite<'project'> }
  'project-unfavorited': { data: Favorite<'project'> }

  'feature-created': { data: FeatureData }
  'feature-metadata-updated': { data: FeatureData; preData: FeatureData }
  'feature-deleted': { preData: FeatureData }
  'internal:feature-moved-out': { data: Move }
  'feature-project-change': { data: Move; hidden: { feature: MovedFeature } }
  'feature-strategy-add': { data: Strategy }
  'feature-strategy-update': { data: Strategy; preData: Strategy }
  'feature-strategy-remove': { preData: Strategy }
  'strategy-order-changed': { data: { strategyIds: string[]; sortOrders: Record<string, number> }; preData: { strategyIds: string[] } }
  'feature-environment-variants-updated': { data: Variants; preData: Variants }
  'feature-variants-updated': { data: Variants; preData: Variants }
  'feature-dependency-added': { data: { feature: string; enabled: boolean; variants?: string[] } }
  'feature-dependency-removed': { data: { feature: string } }
  'feature-tagged': { data: Tag }
  'feature-untagged': { preData: Tag }
  'feature-favorited': { data: Favorite<'feature'> }
  'feature-unfavorited': { data: Favorite<'feature'> }
  'feature-completed': { data: CompleteFeature & { kept: boolean } }
  'features-imported': { data: { features: string[] } }

  'environment-created': { data: Environment }
  'environment-updated': { data: Environment; preData: Environment }
  'environment-deleted': { preData: Environment }
  'api-token-created': { data: PublicToken; hidden: Tokens }
  'api-token-updated': { data: PublicToken; preData: PublicToken; hidden: Tokens }
  'api-token-deleted': { preData: PublicToken; hidden: Tokens }
  'segment-created': { data: Segment }
  'segment-updated': { data: Segment; preData: Segment }
  'segment-deleted': { preData: Segment }
  'strategy-created': { data: StrategyType }
  'strategy-updated': { data: StrategyType; preData: StrategyType }
  'strategy-deprecated': { data: StrategyType }
  'strategy-reactivated': { data: StrategyType }
  'strategy-deleted': { preData: StrategyType }
  'context-field-created': { data: ContextField }
  'context-field-updated': { data: ContextField; preData: ContextField }
  'context-field-deleted': { preData: ContextField }
  'tag-type-created': { data: TagType }
  'tag-type-updated': { data: TagType; preData: TagType }
  'tag-type-deleted': { preData: TagType }
  'tag-created': { data: Tag }
  'tag-deleted': { preData: Tag }
  'feature-type-updated': { data: FeatureType; preData: FeatureType }
  'application-created': { data: Pick<ClientRegister, 'appName' | 'strategies'> & { sdkVersion: string | null; createdBy: string } }
  'features-exported': { data: FeatureExport | ExportSummary }
  'setting-created': { data: MigratedFrom }

  'user-created': { data: PublicUser; hidden: { passwordHash: string | null; accountType: User['accountType'] } }
  'user-updated': { data: PublicUser & { passwordChanged?: true }; preData: PublicUser; hidden?: { passwordHash: string } }
  'user-deleted': { preData: PublicUser }
  'service-account-created': { data: PublicUser; hidden: { passwordHash: string | null; accountType: User['accountType'] } }
  'service-account-updated': { data: PublicUser; preData: PublicUser }
  'service-account-deleted': { preData: PublicUser }
  'role-created': { data: Role }
  'role-updated': { data: Role; preData: Role }
  'role-deleted': { preData: Role }
  'group-created': { data: GroupData }
  'group-updated': { data: GroupData; preData: GroupData; hidden: { members: GroupMember[] } }
  'group-deleted': { preData: GroupData }
  'pat-created': { data: PatData; hidden: { secretHash: string } }
  'pat-deleted': { preData: PatData }
  'public-signup-token-created': { data: SignupToken }
  'public-signup-token-updated': { data: SignupTokenChange; preData: SignupTokenChange }
  'public-signup-token-user-added': { data: { secret: string; userId: number } }

  'change-request-created': { data: Request<{ id: number; title: string; project: string; environment: string; minApprovals: number; createdBy: Author }> }
  // Logs written before the internal records below carried comments in change-added and titles in change-edited.
  'change-added': { data: Request<{ change: Change }> | Request<{ comment: Comment }> }
  'change-edited': { data: Request<{ changeId: number } & TargetedChange> | Request<{ title: string }> }
  'change-discarded': { data: Request<{ changeId: number }> }
  'internal:change-request-title-updated': { data: Request<{ title: string }>; preData: Request<{ title: string }> }
  'internal:change-request-comment-added': { data: Request<{ comment: Comment }> }
  'change-request-discarded': { data: Request }
  'change-request-sent-to-review': { data: Request }
  'change-request-approval-added': { data: Request<{ approver: Author; comment?: string }> }
  'change-request-approved': { data: Request }
  'change-request-rejected': { data: Request<{ rejecter: Author; comment?: string }> }
  'change-request-cancelled': { data: Request }
  'change-request-scheduled': { data: Request<{ scheduledAt: string; scheduledBy: Author }> }
  // What each change replaced (absent in logs written before it was recorded, and when none replaced anything).
  'change-request-applied': { data: Request<{ replaced?: ReplacedByChange[] }> }
  'change-request-scheduled-application-success': { data: Request }
  'change-request-scheduled-application-failure': { data: Request<{ reason: string }> }
  'change-request-schedule-suspended': { data: Request<{ reason: string }> }
}

