import { createHash, timingSafeEqual } from 'node:crypto'
import { statSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { DomainError } from '../domain/errors.js'
import { secretFrom } from '../http/auth.js'
import { latencyBuckets, type RequestMetrics } from '../http/request-metrics.js'
import type { Request, Route } from '../http/types.js'
import type { ApiDeps } from './deps.js'
import type { Replication } from './health.routes.js'

// Events committed since the last snapshot set, and when that set was written (undefined: not yet).
export interface SnapshotAge {
  eventsBehind: number
  writtenAt: Date | undefined
}

export interface OpsSources {
  requests: RequestMetrics
  snapshot: () => SnapshotAge
  replication: Replication
  // The SDK streams (read/client-streams.ts).
  streams: { readonly size: number; readonly droppedSlow: number; bufferedBytes(): number }
  featureCount: () => number
  // Every commit, as the commit pipeline's last step hands it on (actors/commit-pipeline.ts).
  onCommitted: (listener: (records: readonly unknown[], commitSeconds?: number) => void) => void
}

type HttpLabels = 'method' | 'route' | 'status'

interface SampleValue {
  labels: Record<string, string | number>
  value: number
  metricName: string
}

// The request histogram is counted by RequestMetrics in plain numbers; this only turns them into
// samples when scraped, so the request path never hashes a label set.
const requestLatency = (requests: RequestMetrics): Histogram<HttpLabels> => {
  const name = 'flagwright_http_request_duration_seconds'
  const help = 'HTTP request latency by route pattern and status'
  const get = async () => {
    const values: SampleValue[] = []
    for (const row of requests.rows()) {
      const labels = { method: row.method, route: row.route, status: row.status }
      let cumulative = 0
      latencyBuckets.forEach((bound, i) => {
        cumulative += row.counts[i]
        values.push({ labels: { ...labels, le: bound }, value: cumulative, metricName: `${name}_bucket` })
      })
      values.push({ labels: { ...labels, le: '+Inf' }, value: row.count, metricName: `${name}_bucket` })
      values.push({ labels, value: row.sumSeconds, metricName: `${name}_sum` })
      values.push({ labels, value: row.count, metricName: `${name}_count` })
    }
    return { name, help, type: 'histogram', aggregator: 'sum', values }
  }
  // prom-client's registry reads only `name` and `get()` of a metric (lib/registry.js); its types ask for one of its classes.
  return { name, help, get } as unknown as Histogram<HttpLabels>
}

const buildRegistry = (deps: ApiDeps, ops: OpsSources): Registry => {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  registry.registerMetric(requestLatency(ops.requests))
  const { served, log } = deps
  new Counter({
    name: 'flagwright_http_requests_total',
    help: 'HTTP requests by route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
    collect() {
      this.reset()
      for (const row of ops.requests.rows()) this.inc({ method: row.method, route: row.route, status: row.status }, row.count)
    },
  })
  new Counter({
    name: 'flagwright_sdk_polls_total',
    help: 'GET /api/client/features by outcome: 200 (uncompressed), 304, gzip, br',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      this.reset()
      const polls = served.sdkPolls
      this.inc({ outcome: '200' }, polls.full)
      this.inc({ outcome: '304' }, polls.notModified)
      this.inc({ outcome: 'gzip' }, polls.gzip)
      this.inc({ outcome: 'br' }, polls.brotli)
    },
  })
  new Counter({
    name: 'flagwright_evaluations_total',
    help: 'Requests answered by evaluating flags on the server (frontend API, from its cache of repeated contexts too, and playground)',
    registers: [registry],
    collect() {
      this.reset()
      this.inc(served.evaluations)
    },
  })
  const appended = new Counter({ name: 'flagwright_events_appended_total', help: 'Events committed to the log since start', registers: [registry] })
  const commits = new Histogram({
    name: 'flagwright_commit_duration_seconds',
    help: 'From append to durable commit, per command',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  })
  ops.onCommitted((records, commitSeconds) => {
    appended.inc(records.length)
    if (commitSeconds !== undefined) commits.observe(commitSeconds)
  })
  new Gauge({
    name: 'flagwright_snapshot_age_events',
    help: 'Events committed since the last snapshot set',
    registers: [registry],
    collect() {
      this.set(ops.snapshot().eventsBehind)
    },
  })
  new Gauge({
    name: 'flagwright_snapshot_age_seconds',
    help: 'Seconds since this process last wrote a snapshot set (absent until it has)',
    registers: [registry],
    collect() {
      this.reset()
      const writtenAt = ops.snapshot().writtenAt
      if (writtenAt) this.set((deps.clock().getTime() - writtenAt.getTime()) / 1000)
    },
  })
  new Gauge({
    name: 'flagwright_log_records',
    help: 'Records in the event log',
    registers: [registry],
    collect() {
      this.set(log.count())
    },
  })
  const dataFile = path.join(deps.config.dataDir, 'data.mdb')
  new Gauge({
    name: 'flagwright_data_file_bytes',
    help: 'Size of the LMDB data file (log, indexes, snapshots and side data)',
    registers: [registry],
    collect() {
      this.set(statSync(dataFile).size)
    },
  })
  replicationGauges(registry, ops.replication)
  gauge(registry, 'flagwright_streaming_clients', 'SDK connections open on /api/client/streaming', () => ops.streams.size)
  new Counter({
    name: 'flagwright_streaming_dropped_slow_total',
    help: 'SDK streams ended because their client read slower than changes came (STREAMING_MAX_BUFFERED_BYTES)',
    registers: [registry],
    collect() {
      this.reset()
      this.inc(ops.streams.droppedSlow)
    },
  })
  gauge(registry, 'flagwright_streaming_buffered_bytes', 'Bytes written to SDK streams that their clients have not yet taken', () => ops.streams.bufferedBytes())
  gauge(registry, 'flagwright_features', 'Flags held, archived included', ops.featureCount)
  return registry
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

// The role and whether NATS is configured do not change while the server runs: only the gauges that
// apply to this server are registered.
const replicationGauges = (registry: Registry, replication: Replication): void => {
  const at = replication()
  gauge(registry, 'flagwright_log_last_id', 'The last log id this server holds: committed on a writer, applied on a replica', () => {
    const now = replication()
    return now.role === 'writer' ? now.committedId : now.appliedId
  })
  if (at.natsConnected !== undefined) {
    gauge(registry, 'flagwright_replication_nats_connected', '1 while connected to NATS (a writer publishing, a replica following)', () => (replication().natsConnected ? 1 : 0))
  }
  if (at.role === 'writer' && at.publishedId !== undefined) {
    gauge(registry, 'flagwright_replication_published_id', 'The last log id published to NATS JetStream', () => {
      const now = replication()
      return now.role === 'writer' ? (now.publishedId ?? 0) : 0
    })
  }
  if (at.role === 'replica') {
    gauge(registry, 'flagwright_replication_writer_id', "The writer's latest log id this replica has seen", () => {
      const now = replication()
      return now.role === 'replica' ? now.writerId : 0
    })
    // NaN (unknown) while the replica cannot see the writer's stream: 0 would say it is current.
    gauge(registry, 'flagwright_replication_lag_records', 'Records this replica is behind the writer; NaN while not connected to NATS', () => {
      const now = replication()
      return now.role === 'replica' ? (now.lag ?? Number.NaN) : 0
    })
  }
}

const digest = (secret: string) => createHash('sha256').update(secret).digest()

// Unleash serves the same path; ours is closed to the network unless a token or an address allows it.
const guard = (deps: ApiDeps): ((req: Request) => void) => {
  const { metricsToken, metricsAllow } = deps.config
  const allowed = new net.BlockList()
  allowed.addSubnet('127.0.0.0', 8, 'ipv4')
  allowed.addAddress('::1', 'ipv6')
  const extra = new net.BlockList()
  for (const entry of metricsAllow) {
    const [address, bits] = entry.split('/')
    const family = net.isIPv4(address) ? 'ipv4' : 'ipv6'
    if (bits === undefined) extra.addAddress(address, family)
    else extra.addSubnet(address, Number(bits), family)
  }
  const isIn = (list: net.BlockList, address: string) => {
    const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : undefined
    return family !== undefined && list.check(address, family)
  }
  const tokenDigest = metricsToken === undefined ? undefined : digest(metricsToken)
  return (req) => {
    if (isIn(extra, req.remoteAddress)) return
    if (tokenDigest) {
      const secret = secretFrom(req.header('authorization'))
      if (secret !== undefined && timingSafeEqual(digest(secret), tokenDigest)) return
      throw new DomainError('AuthenticationRequired', 'The metrics need the METRICS_TOKEN in the Authorization header.')
    }
    if (isIn(allowed, req.remoteAddress)) return
    throw new DomainError('NoAccessError', 'The metrics are served on loopback only; set METRICS_TOKEN or METRICS_ALLOW to scrape them from elsewhere.')
  }
}

export const prometheusRoutes = (deps: ApiDeps, ops: OpsSources): Route[] => {
  const registry = buildRegistry(deps, ops)
  const check = guard(deps)
  return [
    {
      method: 'GET',
      path: '/internal-backstage/prometheus',
      access: 'public',
      handler: async (req) => {
        check(req)
        return { status: 200, body: await registry.metrics(), headers: { 'content-type': registry.contentType } }
      },
    },
  ]
}
