import { defaultLimits, type ResourceLimits } from './domain/limits.js'
import net from 'node:net'
import path from 'node:path'
import { httpUrl } from './http/cross-origin.js'
import { isLogLevel, type LogLevel } from './logger.js'

export interface Config {
  port: number
  host: string
  dataDir: string
  initAdminTokens: string[]
  initClientTokens: string[]
  initFrontendTokens: string[]
  snapshotEvery: number
  maxBodyBytes: number
  // The LMDB map reserved at start (virtual memory); lmdb-js grows it when a commit outgrows it.
  lmdbMapSize: number | undefined
  logFormat: 'text' | 'json'
  logLevel: LogLevel
  publicUrl: string
  // UNLEASH_URL's origin when it is given: browsers' writes with the session cookie must come from it
  // (or from csrfAllowedOrigins). Without it, from the origin the request's Host header names.
  publicOrigin: string | undefined
  csrfAllowedOrigins: string[]
  // Proxies in front whose X-Forwarded-For entries are believed (0: none; the socket's address is the client's).
  trustProxy: number
  metricsFlushMs: number
  // How often the data file's pages mapped by writes and reads are let go (EventLog.releaseReadPagesSoon); 0: never.
  readPagesReleaseMs: number
  // The least time between two trims of glibc's heap after full collections (native-heap.ts); 0: never.
  nativeHeapTrimMs: number
  potentiallyStaleCheckMs: number
  defaultAdminUsername: string
  schedulerIntervalMs: number
  defaultAdminPassword: string | undefined
  replication: ReplicationConfig | undefined
  limits: ResourceLimits
  loginMaxFailuresPerMinute: number
  secureCookies: 'auto' | 'always' | 'never'
  // GET /internal-backstage/prometheus: with a token, callers need it unless their address is allowed;
  // without one, only loopback and allowed addresses may scrape.
  metricsToken: string | undefined
  metricsAllow: string[]
  // Push to SDKs (/api/client/streaming) and the delta API (/api/client/delta).
  streamingMaxConnections: number
  streamingHeartbeatMs: number
  // A stream left holding more than this for a client that reads too slowly is ended.
  streamingMaxBufferedBytes: number
  // Answer /api/client/features with fetch-mode: streaming while there is room for more streams.
  streamingInvitePollers: boolean
  deltaEventsKept: number
}

// With NATS_URL set, a writer publishes its committed log to JetStream; with READ_REPLICA=true as
// well, the server is a read replica following that stream.
export interface ReplicationConfig {
  natsUrl: string
  replica: boolean
  stream: string
  retainRecords: number
  snapshotEvery: number
  maxLag: number
  writerUrl: string | undefined
}

const splitList = (value: string | undefined): string[] =>
  (value ?? '').split(',').map((s) => s.trim()).filter((s) => s.length > 0)

export interface InitTokenScope {
  projects: string[]
  environment: string
}

// Unleash reads an init token's scope from its prefix: "<project>:<environment>.<secret>".
export const initTokenScope = (secret: string): InitTokenScope | undefined => {
  const match = /^(\[\]|\*|[^:\s]+):([^.:\s]+)\.\S+$/.exec(secret)
  if (!match) return undefined
  return { projects: match[1] === '[]' || match[1] === '*' ? ['*'] : [match[1]], environment: match[2] }
}

// The entry is named by position and its first characters: the rest may be a secret.
const scopedTokens = (value: string | undefined, name: string): string[] => {
  const entries = splitList(value)
  entries.forEach((entry, i) => {
    if (initTokenScope(entry)) return
    const shown = entry.length > 12 ? `${entry.slice(0, 12)}…` : entry
    throw new Error(`${name}: entry ${i + 1} ("${shown}") is not of the form project:environment.secret`)
  })
  return entries
}

const streamNamePattern = /^[A-Za-z0-9_-]{1,64}$/

const replicationConfig = (env: NodeJS.ProcessEnv): ReplicationConfig | undefined => {
  const replica = env.READ_REPLICA === 'true' || env.READ_REPLICA === '1'
  if (!env.NATS_URL) {
    if (replica) throw new Error('READ_REPLICA needs NATS_URL: a replica follows the writer\'s log on NATS JetStream')
    return undefined
  }
  const stream = env.NATS_STREAM || 'flagwright'
  if (!streamNamePattern.test(stream)) throw new Error(`NATS_STREAM must be 1-64 letters, digits, "-" or "_", got "${stream.slice(0, 70)}"`)
  return {
    natsUrl: env.NATS_URL,
    replica,
    stream,
    retainRecords: integer(env.NATS_RETAIN_RECORDS, 1_000_000, 'NATS_RETAIN_RECORDS') || 1_000_000,
    snapshotEvery: integer(env.REPLICA_SNAPSHOT_EVERY, 10_000, 'REPLICA_SNAPSHOT_EVERY') || 10_000,
    maxLag: integer(env.REPLICA_MAX_LAG, 1000, 'REPLICA_MAX_LAG'),
    writerUrl: env.WRITER_URL || undefined,
  }
}

// The variables Unleash reads for its resource limits.
const limitVariables: Record<keyof ResourceLimits, string> = {
  featureFlags: 'UNLEASH_FEATURE_FLAGS_LIMIT',
  projects: 'UNLEASH_PROJECTS_LIMIT',
  environments: 'UNLEASH_ENVIRONMENTS_LIMIT',
  segments: 'UNLEASH_SEGMENTS_LIMIT',
  segmentValues: 'UNLEASH_SEGMENT_VALUES_LIMIT',
  apiTokens: 'UNLEASH_API_TOKENS_LIMIT',
  featureEnvironmentStrategies: 'UNLEASH_FEATURE_ENVIRONMENT_STRATEGIES_LIMIT',
  constraints: 'UNLEASH_CONSTRAINTS_LIMIT',
  constraintValues: 'UNLEASH_CONSTRAINT_VALUES_LIMIT',
}

const resourceLimits = (env: NodeJS.ProcessEnv): ResourceLimits => {
  const configured = { ...defaultLimits }
  for (const [key, variable] of Object.entries(limitVariables) as [keyof ResourceLimits, string][]) {
    configured[key] = integer(env[variable], defaultLimits[key], variable) || defaultLimits[key]
  }
  return configured
}

const secureCookies = (value: string | undefined): Config['secureCookies'] => {
  if (value === undefined || value === '' || value === 'auto') return 'auto'
  if (value === 'true' || value === 'always') return 'always'
  if (value === 'false' || value === 'never') return 'never'
  throw new Error(`SECURE_COOKIES must be auto, true or false, got "${value.slice(0, 40)}"`)
}

// Addresses (192.0.2.7) or networks (10.0.0.0/8, fd00::/8).
const addressList = (value: string | undefined, name: string): string[] => {
  const entries = splitList(value)
  for (const entry of entries) {
    const [address, bits, ...rest] = entry.split('/')
    const family = net.isIP(address)
    const maxBits = family === 4 ? 32 : 128
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits)
    if (family === 0 || !bitsOk || rest.length > 0) throw new Error(`${name}: "${entry}" is not an IP address or network (address/bits)`)
  }
  return entries
}


const publicOrigin = (value: string | undefined): string | undefined => {
  if (value === undefined || value === '') return undefined
  const url = httpUrl(value)
  if (url === undefined) throw new Error(`UNLEASH_URL must be an http or https URL, got "${value.slice(0, 100)}"`)
  return url.origin
}

const originList = (value: string | undefined, name: string): string[] =>
  splitList(value).map((entry) => {
    const url = httpUrl(entry)
    if (url === undefined || url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
      throw new Error(`${name}: "${entry.slice(0, 100)}" is not an origin (scheme://host[:port], http or https, no path)`)
    }
    return url.origin
  })

const trustProxy = (value: string | undefined): number => {
  if (value === undefined || value === '' || value === 'false') return 0
  if (value === 'true') return 1
  if (/^\d{1,2}$/.test(value)) return Number(value)
  throw new Error(`TRUST_PROXY must be true, false or the number of proxies in front, got "${value.slice(0, 40)}"`)
}

const sizeUnits: Record<string, number> = { '': 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4 }

// Bytes, or a number with KB, MB, GB or TB (powers of 1024).
const byteSize = (value: string | undefined, name: string): number | undefined => {
  if (value === undefined || value === '') return undefined
  const match = /^(\d+)\s*(kb|mb|gb|tb)?$/i.exec(value.trim())
  const bytes = match ? Number(match[1]) * sizeUnits[(match[2] ?? '').toLowerCase()] : NaN
  if (!Number.isSafeInteger(bytes) || bytes < 1024 * 1024) throw new Error(`${name} must be a size of at least 1MB (bytes, or a number with KB, MB, GB or TB), got "${value.slice(0, 40)}"`)
  return bytes
}

const logFormat = (value: string | undefined): Config['logFormat'] => {
  if (value === undefined || value === '' || value === 'text') return 'text'
  if (value === 'json') return 'json'
  throw new Error(`LOG_FORMAT must be text or json, got "${value.slice(0, 40)}"`)
}

const logLevel = (value: string | undefined): LogLevel => {
  if (value === undefined || value === '') return 'info'
  const level = value.toLowerCase()
  if (!isLogLevel(level)) throw new Error(`LOG_LEVEL must be debug, info, warn or error, got "${value.slice(0, 40)}"`)
  return level
}

const integer = (value: string | undefined, fallback: number, name: string): number => {
  if (value === undefined || value === '') return fallback
  const n = Number(value)
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`)
  return n
}

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  const port = integer(env.HTTP_PORT ?? env.PORT, 4242, 'HTTP_PORT')
  const host = env.HTTP_HOST ?? '127.0.0.1'
  return {
    port,
    host,
    dataDir: path.resolve(env.DATA_DIR ?? './data'),
    initAdminTokens: splitList(env.INIT_ADMIN_API_TOKENS),
    initClientTokens: scopedTokens(env.INIT_CLIENT_API_TOKENS ?? env.INIT_BACKEND_API_TOKENS, env.INIT_CLIENT_API_TOKENS === undefined ? 'INIT_BACKEND_API_TOKENS' : 'INIT_CLIENT_API_TOKENS'),
    initFrontendTokens: scopedTokens(env.INIT_FRONTEND_API_TOKENS, 'INIT_FRONTEND_API_TOKENS'),
    snapshotEvery: integer(env.SNAPSHOT_EVERY, 5000, 'SNAPSHOT_EVERY'),
    maxBodyBytes: integer(env.MAX_BODY_BYTES, 1024 * 1024, 'MAX_BODY_BYTES'),
    lmdbMapSize: byteSize(env.LMDB_MAP_SIZE, 'LMDB_MAP_SIZE'),
    logFormat: logFormat(env.LOG_FORMAT),
    logLevel: logLevel(env.LOG_LEVEL),
    // uWS silently degrades to a pure-JS server when its native binary does not load.
    publicUrl: (env.UNLEASH_URL ?? `http://${host}:${port}`).replace(/\/+$/, ''),
    publicOrigin: publicOrigin(env.UNLEASH_URL),
    csrfAllowedOrigins: originList(env.CSRF_ALLOWED_ORIGINS, 'CSRF_ALLOWED_ORIGINS'),
    trustProxy: trustProxy(env.TRUST_PROXY),
    metricsFlushMs: integer(env.METRICS_FLUSH_MS, 1000, 'METRICS_FLUSH_MS'),
    readPagesReleaseMs: integer(env.READ_PAGES_RELEASE_MS, 2_000, 'READ_PAGES_RELEASE_MS'),
    nativeHeapTrimMs: integer(env.NATIVE_HEAP_TRIM_MS, 100, 'NATIVE_HEAP_TRIM_MS'),
    // How often flags past their type's lifetime are marked potentially stale.
    potentiallyStaleCheckMs: integer(env.POTENTIALLY_STALE_CHECK_MS, 60_000, 'POTENTIALLY_STALE_CHECK_MS') || 60_000,
    defaultAdminUsername: env.UNLEASH_DEFAULT_ADMIN_USERNAME || 'admin',
    schedulerIntervalMs: integer(env.SCHEDULER_INTERVAL_MS, 1000, 'SCHEDULER_INTERVAL_MS'),
    defaultAdminPassword: env.UNLEASH_DEFAULT_ADMIN_PASSWORD || undefined,
    replication: replicationConfig(env),
    limits: resourceLimits(env),
    loginMaxFailuresPerMinute:
      integer(env.SIMPLE_LOGIN_LIMIT_PER_MINUTE ?? env.LOGIN_MAX_FAILURES_PER_MINUTE, 10, env.SIMPLE_LOGIN_LIMIT_PER_MINUTE === undefined ? 'LOGIN_MAX_FAILURES_PER_MINUTE' : 'SIMPLE_LOGIN_LIMIT_PER_MINUTE') || 10,
    secureCookies: secureCookies(env.SECURE_COOKIES),
    streamingMaxConnections: integer(env.STREAMING_MAX_CONNECTIONS, 20_000, 'STREAMING_MAX_CONNECTIONS'),
    streamingHeartbeatMs: integer(env.STREAMING_HEARTBEAT_MS, 15_000, 'STREAMING_HEARTBEAT_MS') || 15_000,
    streamingMaxBufferedBytes: integer(env.STREAMING_MAX_BUFFERED_BYTES, 1024 * 1024, 'STREAMING_MAX_BUFFERED_BYTES'),
    streamingInvitePollers: env.STREAMING_INVITE_POLLERS === '1',
    deltaEventsKept: integer(env.DELTA_EVENTS_KEPT, 1000, 'DELTA_EVENTS_KEPT'),
    metricsToken: env.METRICS_TOKEN || undefined,
    metricsAllow: addressList(env.METRICS_ALLOW, 'METRICS_ALLOW'),
  }
}
