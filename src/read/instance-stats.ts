import type { InstanceState } from '../domain/instance-state.js'
import type { ProjectState } from '../domain/project-state.js'

const dayMs = 24 * 60 * 60 * 1000

export interface InstanceStatsContext {
  instance: InstanceState
  projects: Iterable<ProjectState>
  version: string
  now: Date
  // A user's last sign-in, and when each registered application's instances were last seen.
  lastLogin: (userId: number) => string | null
  applications: { appName: string; instances: { lastSeen: string }[] }[]
}

// Unleash's instance statistics (its admin home and instance page), counted from state. Left out:
// what is not kept here (an instance id, SSO and SCIM, exports, imports and production changes by date).
export const instanceStatsView = (ctx: InstanceStatsContext) => {
  const people = ctx.instance.people
  const nowMs = ctx.now.getTime()
  const accounts = [...people.users.values()].filter((u) => !u.deleted)
  const users = accounts.filter((u) => u.accountType === 'User')
  const activeIn = (days: number) => users.filter((u) => {
    const seen = ctx.lastLogin(u.id)
    return seen !== null && nowMs - Date.parse(seen) <= days * dayMs
  }).length
  const tokensByType: Record<string, number> = {}
  for (const token of ctx.instance.apiTokens.values()) {
    const type = token.type === 'client' ? 'backend' : token.type
    tokensByType[type] = (tokensByType[type] ?? 0) + 1
  }
  const projects = [...ctx.projects]
  const features = projects.flatMap((p) => [...p.features.values()])
  const customRootRoles = [...people.roles.values()].filter((r) => r.type === 'root-custom')
  const appsSeenIn = (days: number) => ctx.applications.filter((app) => app.instances.some((i) => nowMs - Date.parse(i.lastSeen) <= days * dayMs)).length
  return {
    timestamp: ctx.now.toISOString(),
    versionOSS: ctx.version,
    versionEnterprise: '',
    users: users.length,
    serviceAccounts: accounts.length - users.length,
    apiTokens: tokensByType,
    activeUsers: { last7: activeIn(7), last30: activeIn(30), last60: activeIn(60), last90: activeIn(90) },
    featureToggles: features.filter((f) => !f.archived).length,
    archivedFeatureToggles: features.filter((f) => f.archived).length,
    projects: projects.length,
    contextFields: ctx.instance.contextFields.size,
    roles: people.roles.size,
    customRootRoles: customRootRoles.length,
    customRootRolesInUse: customRootRoles.filter((r) => accounts.some((u) => u.rootRole === r.id)).length,
    groups: people.groups.size,
    environments: ctx.instance.environments.size,
    segments: ctx.instance.segments.size,
    strategies: ctx.instance.strategyTypes.size,
    SAMLenabled: false,
    OIDCenabled: false,
    SCIMenabled: false,
    passwordAuthEnabled: true,
    clientApps: [
      { range: '7d', count: appsSeenIn(7) },
      { range: '30d', count: appsSeenIn(30) },
      { range: 'allTime', count: appsSeenIn(Infinity) },
    ],
  }
}
