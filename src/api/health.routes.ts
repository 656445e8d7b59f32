import { DomainError } from '../domain/errors.js'
import type { Route } from '../http/types.js'
import { json } from './deps.js'
import { errorResponse, healthResponse, readyResponse } from '../schemas/responses.js'

// Where this server stands in replication: a writer's committed and published log ids, or a
// replica's applied id beside the writer's latest. `notReady` says why a load balancer should drain it.
export type ReplicationDetails =
  | { role: 'writer'; committedId: number; publishedId?: number; natsConnected?: boolean; refused?: string }
  | { role: 'replica'; appliedId: number; writerId: number; lag: number; natsConnected: boolean; notReady?: string }

export type Replication = () => ReplicationDetails

export interface FollowedPosition {
  appliedId: number
  writerId: number
  connected: boolean
  restored: boolean
}

// A replica is ready once restored and no more than `maxLag` records behind the writer's latest
// that it has seen; with NATS gone it keeps the last lag it knew rather than drain every replica at once.
export const replicaDetails = (position: FollowedPosition, maxLag: number): ReplicationDetails => {
  const lag = Math.max(0, position.writerId - position.appliedId)
  const notReady = !position.restored
    ? "not yet restored from the writer's snapshot"
    : lag > maxLag
      ? `${lag} records behind the writer (the limit is ${maxLag})`
      : undefined
  return { role: 'replica', appliedId: position.appliedId, writerId: position.writerId, lag, natsConnected: position.connected, ...(notReady && { notReady }) }
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
      return json({ health: 'GOOD' })
    },
  },
]
