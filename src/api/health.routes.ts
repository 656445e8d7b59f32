import { DomainError } from '../domain/errors.js'
import type { Route } from '../http/types.js'
import { json } from './deps.js'
import { errorResponse, healthResponse, readyResponse } from '../schemas/responses.js'

// Where this server stands in replication: a writer's committed and published log ids, or a
// replica's applied id beside the writer's latest. `notReady` says why a load balancer should drain it;
// `degraded` says why a replica's answers may be stale while it still serves them.
export type ReplicationDetails =
  | { role: 'writer'; committedId: number; publishedId?: number; natsConnected?: boolean; refused?: string }
  | {
      role: 'replica'
      appliedId: number
      writerId: number
      // Unknown (null) while the replica cannot see the writer's stream.
      lag: number | null
      natsConnected: boolean
      // Seconds since the last record, or the stream's state, came from the writer; null before the first.
      heardSecondsAgo: number | null
      degraded?: string
      notReady?: string
    }

export type Replication = () => ReplicationDetails

export interface FollowedPosition {
  appliedId: number
  writerId: number
  connected: boolean
  restored: boolean
  heardAt: number | undefined
}

// A replica is ready once restored and no more than `maxLag` records behind the writer's latest that it
// has seen. Cut off from NATS it cannot know its lag: it says so (degraded) and keeps serving, ready
// unless the last gap it saw was already too large, rather than drain every replica at once.
export const replicaDetails = (position: FollowedPosition, maxLag: number, now: number): ReplicationDetails => {
  const seenGap = Math.max(0, position.writerId - position.appliedId)
  const heardSecondsAgo = position.heardAt === undefined ? null : Math.max(0, Math.round((now - position.heardAt) / 1000))
  const notReady = !position.restored
    ? "not yet restored from the writer's snapshot"
    : seenGap > maxLag
      ? `${seenGap} records behind the writer (the limit is ${maxLag})`
      : undefined
  const degraded = position.connected
    ? undefined
    : `not connected to NATS: serving what was applied up to log id ${position.appliedId}; the writer was ${heardSecondsAgo === null ? 'never heard from' : `last heard from ${heardSecondsAgo} s ago`}`
  return {
    role: 'replica',
    appliedId: position.appliedId,
    writerId: position.writerId,
    lag: position.connected ? seenGap : null,
    natsConnected: position.connected,
    heardSecondsAgo,
    ...(degraded && { degraded }),
    ...(notReady && { notReady }),
  }
}

export interface HealthDeps {
  replication: Replication
}

export const healthRoutes = (deps: HealthDeps): Route[] => [
  // Unleash answers {"health":"GOOD"}; the details are ours, beside it.
  { method: 'GET', path: '/health', access: 'public', docs: { responses: { 200: healthResponse } }, handler: () => json({ health: 'GOOD', details: deps.replication() }) },
  {
    method: 'GET',
    path: '/ready',
    access: 'public',
    docs: { responses: { 200: readyResponse, 503: errorResponse } },
    handler: () => {
      const details = deps.replication()
      if ('notReady' in details && details.notReady) throw new DomainError('ServiceUnavailableError', `Not ready: ${details.notReady}.`)
      return json({ health: 'GOOD', ...('degraded' in details && details.degraded && { degraded: details.degraded }) })
    },
  },
]
