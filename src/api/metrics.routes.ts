import { Gauge, Registry } from 'prom-client'
import { DomainError } from '../domain/errors.js'
import type { Route } from '../http/types.js'
import type { Replication } from './health.routes.js'

// Everything is read when Prometheus scrapes: nothing on the request path counts anything.
export interface MetricsDeps {
  replication: Replication
  streamingClients: () => number
  featureCount: () => number
  // When set, a scrape must carry `Authorization: Bearer <token>`.
  token: string | undefined
}

const gauge = (registry: Registry, name: string, help: string, read: () => number) =>
  new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      this.set(read())
    },
  })

export const metricsRoutes = (deps: MetricsDeps): Route[] => {
  const registry = new Registry()
  const details = () => deps.replication()
  // The role and whether NATS is configured do not change while the server runs.
  const at = details()
  const logId = () => {
    const d = details()
    return d.role === 'writer' ? d.committedId : d.appliedId
  }
  gauge(registry, 'flagwright_log_last_id', 'The last log id this server holds: committed on a writer, applied on a replica.', logId)
  if (at.natsConnected !== undefined) {
    gauge(registry, 'flagwright_replication_nats_connected', '1 while connected to NATS (a writer publishing, a replica following).', () => (details().natsConnected ? 1 : 0))
  }
  if (at.role === 'writer' && at.publishedId !== undefined) {
    gauge(registry, 'flagwright_replication_published_id', 'The last log id published to NATS JetStream.', () => {
      const d = details()
      return d.role === 'writer' ? d.publishedId ?? 0 : 0
    })
  }
  if (at.role === 'replica') {
    gauge(registry, 'flagwright_replication_writer_id', "The writer's latest log id this replica has seen.", () => {
      const d = details()
      return d.role === 'replica' ? d.writerId : 0
    })
    gauge(registry, 'flagwright_replication_lag_records', 'Records this replica is behind the writer.', () => {
      const d = details()
      return d.role === 'replica' ? d.lag : 0
    })
  }
  gauge(registry, 'flagwright_streaming_clients', 'SDK connections open on /api/client/streaming.', deps.streamingClients)
  gauge(registry, 'flagwright_features', 'Flags held, archived included.', deps.featureCount)
  gauge(registry, 'process_resident_memory_bytes', 'Resident memory size in bytes.', () => process.memoryUsage().rss)

  return [
    {
      method: 'GET',
      path: '/internal-backstage/prometheus',
      access: 'public',
      handler: async (req) => {
        if (deps.token !== undefined && req.headers.authorization !== `Bearer ${deps.token}`) {
          throw new DomainError('UnauthorizedError', 'The metrics need the METRICS_TOKEN as a Bearer token.')
        }
        return { status: 200, body: await registry.metrics(), headers: { 'content-type': registry.contentType } }
      },
    },
  ]
}
