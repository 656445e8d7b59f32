import type { CommandPort, ReadPort } from './ports.js'
import type { Config } from '../config.js'
import type { CommandMeta } from '../domain/events.js'
import type { Request } from '../http/types.js'
import type { ClientDeltas } from '../read/client-deltas.js'
import type { ClientFeatures } from '../read/client-features.js'
import type { ClientStreams } from '../read/client-streams.js'
import type { SeenTimes } from '../read/seen-times.js'
import type { LifecycleStages } from '../read/lifecycle-stages.js'
import type { EventLog } from '../store/log.js'
import type { Applications } from '../read/applications.js'
import type { Sessions } from '../sign-in/sessions.js'
import type { ServedCounts } from '../read/served-counts.js'
import type { Logger } from '../logger.js'
import type { UserActivity } from '../sign-in/user-activity.js'
import type { FeatureSearchIndex } from '../read/feature-search.js'
import type { FeatureUsage } from '../read/feature-usage.js'

export interface ApiDeps {
  commands: CommandPort
  reads: ReadPort
  log: EventLog
  clientFeatures: ClientFeatures
  clientDeltas: ClientDeltas
  clientStreams: ClientStreams
  // When each flag was last seen per environment (flagSeenKey), and each API token (its secret's hash).
  lastSeen: SeenTimes
  tokenSeen: SeenTimes
  lifecycleStages: LifecycleStages
  // Every flag as the search API finds them, kept up by committed events.
  featureSearch: FeatureSearchIndex
  applications: Applications
  // SDKs' evaluation counts per flag for the last hours (the flag page's metrics).
  usage: FeatureUsage
  sessions: Sessions
  activity: UserActivity
  served: ServedCounts
  logger: Logger
  config: Config
  clock: () => Date
}

// Unleash records admin-token writes with user id -42.
const adminTokenUserId = -42

export const metaOf = (deps: Pick<ApiDeps, 'clock'>, req: Request): CommandMeta => ({
  now: deps.clock().toISOString(),
  actor: {
    name: req.principal?.name ?? 'unleash_system_user',
    userId: req.principal ? req.principal.userId ?? adminTokenUserId : -1337,
  },
  mayBypassChangeRequests: (environment) => req.principal?.can('SKIP_CHANGE_REQUEST', req.params.projectId, environment) === true,
})

export const json = (body: unknown, status = 200) => ({ status, body })
export const empty = (status = 200) => ({ status })
