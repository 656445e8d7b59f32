import semver from 'semver'
import { DomainError, badData, notFound } from '../domain/errors.js'
import type { Principal, Reply, Request, Route } from '../http/types.js'
import type { ClientPayload, ClientQuery } from '../read/client-features.js'
import { secretFrom, wrongTokenType } from '../http/auth.js'
import { fixedHeaders } from '../http/fixed-headers.js'
import { deltaBytes, type Delta } from '../read/client-deltas.js'
import { keepAlive } from '../read/client-streams.js'
import { clientBulkMetricsSchema, clientMetricsSchema, clientRegisterSchema, type ClientMetrics, type ClientRegister } from '../schemas/client.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { parse, parseTransient } from './parse.js'
import { pastClientPayload, pastWorld } from './history.js'
import { clientFeatureResponse, clientFeaturesResponse } from '../schemas/responses.js'
import { flagSeenKey } from '../read/seen-times.js'
import type { UsageReport } from '../read/feature-usage.js'
import type { Feature } from '../domain/project-state.js'

// The first registration of an application name is recorded (application-created); the SDK's answer
// does not wait on anything else. A write refused now (a full disk) is tried again on the next one.
export const recordApplication = async (deps: ApiDeps, req: Request, input: ClientRegister): Promise<void> => {
  if (deps.reads.instance.applications.has(input.appName)) return
  try {
    await deps.commands.toInstance({ type: 'application.register', input, meta: metaOf(deps, req) })
  } catch (error) {
    if (!(error instanceof DomainError)) throw error
  }
}

// Unleash's DEFAULT_ENV since v7: a token for all environments reads this one unless told otherwise.
export const defaultEnvironment = 'development'
const segmentsSupportedFrom = '4.2.0'
const tagPattern = /^\w+:.+$/s
// Flag names are at most 100 characters; a longer LIKE prefix can only be escapes and wildcards.
const maxNamePrefixLength = 400

// SDK fleets send a handful of distinct values of a header: what is worked out from each is remembered
// for the first 100 values seen rather than redone per poll. A value that is refused is not kept.
const maxRememberedValues = 100
const rememberedPerValue = <T>(work: (value: string) => T): ((value: string) => T) => {
  const known = new Map<string, T>()
  return (value) => {
    let result = known.get(value)
    if (result === undefined) {
      result = work(value)
      if (known.size < maxRememberedValues) known.set(value, result)
    }
    return result
  }
}

const inlineSegmentsFor = rememberedPerValue((spec): boolean => {
  if (!/^\d/.test(spec)) throw badData(`Invalid prefix in the Unleash-Client-Spec header: "${spec.slice(0, 100)}".`)
  if (!semver.valid(spec)) throw badData(`Invalid SemVer in the Unleash-Client-Spec header: "${spec.slice(0, 100)}".`)
  return semver.lt(spec, segmentsSupportedFrom)
})

const encodingsIn = rememberedPerValue((header) => ({ brotli: /\bbr\b/.test(header), gzip: /\bgzip\b/.test(header) }))

const inlineSegments = (req: Pick<Request, 'query' | 'header' | 'hasHeader'>): boolean => {
  if (req.query.get('inlineSegmentConstraints') === 'true') return true
  const spec = req.header('unleash-client-spec')
  if (spec !== undefined) return inlineSegmentsFor(spec)
  // Sent but empty or not UTF-8 is not a version, and is refused like any other that is not.
  return req.hasHeader('unleash-client-spec') ? inlineSegmentsFor('') : true
}

// A poll with no query string asks what the last one with the same token and spec version asked: its
// query is kept per principal (a token that changes gets a new principal), so a poll builds none. The
// last spec is compared before the map is asked: the header is a fresh string, which a Map lookup would
// hash, and a token's SDKs mostly run one version.
interface PollQueries {
  bySpec: Map<string, ClientQuery>
  lastSpec: string
  last: ClientQuery | undefined
}
const queriesOfPolls = new WeakMap<Principal, PollQueries>()

export const clientQueryFor = (req: Pick<Request, 'query' | 'header' | 'hasHeader'>, principal: Principal): ClientQuery => {
  const spec = req.header('unleash-client-spec')
  if (spec === undefined || req.query.size > 0) return buildClientQuery(req, principal)
  let polls = queriesOfPolls.get(principal)
  if (polls === undefined) queriesOfPolls.set(principal, (polls = { bySpec: new Map(), lastSpec: '', last: undefined }))
  if (polls.last !== undefined && spec === polls.lastSpec) return polls.last
  let query = polls.bySpec.get(spec)
  if (query === undefined) {
    query = buildClientQuery(req, principal)
    if (polls.bySpec.size < maxRememberedValues) polls.bySpec.set(spec, query)
  }
  polls.lastSpec = spec
  polls.last = query
  return query
}

const buildClientQuery = (req: Pick<Request, 'query' | 'header' | 'hasHeader'>, principal: Principal): ClientQuery => {
  const environment = principal.environment === '*' ? req.query.get('environment') || defaultEnvironment : principal.environment
  const requested = req.query.getAll('project').filter((p) => p.length > 0)
  let projects: ClientQuery['projects'] = principal.projects.includes('*') ? '*' : [...principal.projects].sort()
  if (requested.length > 0) {
    projects = projects === '*' ? [...new Set(requested)].sort() : projects.filter((p) => requested.includes(p))
  }
  const tags = req.query.getAll('tag').map((tag) => {
    if (!tagPattern.test(tag)) throw badData(`"tag" must be of the form type:value; got "${tag.slice(0, 100)}"`)
    const at = tag.indexOf(':')
    return { type: tag.slice(0, at), value: tag.slice(at + 1) }
  })
  const namePrefix = req.query.get('namePrefix') || undefined
  if (namePrefix && namePrefix.length > maxNamePrefixLength) {
    throw badData(`"namePrefix" must be at most ${maxNamePrefixLength} characters long; got ${namePrefix.length}`)
  }
  return {
    environment,
    projects,
    ...(namePrefix ? { namePrefix } : {}),
    ...(tags.length > 0 ? { tags } : {}),
    inlineSegmentConstraints: inlineSegments(req),
  }
}

// The headers of a payload's three answers, made once per payload (and again for a streaming invite).
type AnswerHeaders = Record<'plain' | 'gzip' | 'brotli', Record<string, string>>
const answerHeaders = new WeakMap<ClientPayload, AnswerHeaders>()
const answerHeadersInviting = new WeakMap<ClientPayload, AnswerHeaders>()
const headersFor = (payload: ClientPayload, inviteToStream: boolean): AnswerHeaders => {
  const made = inviteToStream ? answerHeadersInviting : answerHeaders
  let headers = made.get(payload)
  if (headers === undefined) {
    const plain: Record<string, string> = { etag: payload.etag, 'content-type': 'application/json; charset=utf-8', vary: 'Accept-Encoding' }
    if (inviteToStream) plain['fetch-mode'] = 'streaming'
    // Shared by every answer: frozen, so none can change another's.
    headers = {
      gzip: fixedHeaders({ ...plain, 'content-encoding': 'gzip' }),
      brotli: fixedHeaders({ ...plain, 'content-encoding': 'br' }),
      plain: fixedHeaders(plain),
    }
    made.set(payload, headers)
  }
  return headers
}

const matchesEtag = (ifNoneMatch: string | undefined, etag: string): boolean =>
  ifNoneMatch !== undefined &&
  (ifNoneMatch === etag || ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag))

// A number is milliseconds since 1970; one outside the Date range would make toISOString throw.
const startedAt = (started: string | number | undefined, now: string): string => {
  if (started === undefined) return now
  if (typeof started === 'string') return started
  const date = new Date(started)
  if (Number.isNaN(date.getTime())) throw badData('"started" must be a date-time or a number of milliseconds since 1970')
  return date.toISOString()
}

// One reply for every 304: made once, not per poll.
const notModified: Reply = Object.freeze({ status: 304 })

// Metrics from a token for all environments land under Unleash's literal "default".
const metricsEnvironment = (principal: Principal) => (principal.environment === '*' ? 'default' : principal.environment)

// Unleash reads a delta client's revision from its ETag: "<number>", possibly weak.
const revisionFromEtag = (header: string | undefined): number | undefined => {
  if (header === undefined) return undefined
  const match = /^(?:W\/)?"?(\d{1,15})"?$/.exec(header.trim())
  return match ? Number(match[1]) : undefined
}

const deltaBodies = new WeakMap<Delta, Buffer>()
const deltaBody = (delta: Delta): Buffer => {
  let body = deltaBodies.get(delta)
  if (!body) deltaBodies.set(delta, (body = deltaBytes(delta, '{"events":[', ']}')))
  return body
}

// Unleash Edge names itself in headers on every call; its own registration is these.
const registrationFromHeaders = (req: Request, environment: string, now: string) => {
  const appName = req.header('unleash-appname')
  if (!appName) return undefined
  return {
    appName: appName.slice(0, 255),
    instanceId: (req.header('unleash-instanceid') || 'default').slice(0, 255),
    sdkVersion: (req.header('unleash-sdk') ?? req.header('user-agent') ?? '').slice(0, 255) || null,
    strategies: [],
    environment,
    started: now,
    lastSeen: now,
    remoteAddress: req.remoteAddress,
  }
}

// Which project each reported flag was found in: a metrics POST names every flag an SDK evaluated, and
// finding each by walking every project made it O(flags x projects). A name is in one project at most
// (names are unique across projects), so the remembered project is checked, and walked past only when
// the flag is no longer there (moved, deleted) or was never found. Unknown names are not remembered.
const maxRememberedFlags = 200_000
const projectsOfFlags = new WeakMap<ApiDeps['reads'], Map<string, string>>()
const findFlag = (deps: ApiDeps, name: string): Feature | undefined => {
  let projectOfFlag = projectsOfFlags.get(deps.reads)
  if (projectOfFlag === undefined) projectsOfFlags.set(deps.reads, (projectOfFlag = new Map()))
  const known = projectOfFlag.get(name)
  if (known !== undefined) {
    const feature = deps.reads.projects.get(known)?.features.get(name)
    if (feature) return feature
  }
  for (const [id, project] of deps.reads.projects) {
    const feature = project.features.get(name)
    if (!feature) continue
    if (projectOfFlag.size >= maxRememberedFlags) projectOfFlag.clear()
    projectOfFlag.set(name, id)
    return feature
  }
  return undefined
}

// A flag that was evaluated: its last-seen time and lifecycle stage move.
const foldSeen = (deps: ApiDeps, name: string, environment: string, now: string, counts: Omit<UsageReport, 'featureName' | 'environment'>) => {
  const feature = findFlag(deps, name)
  if (!feature) return
  deps.lastSeen.record(flagSeenKey(name, environment), now)
  deps.lifecycleStages.observeMetrics(feature, deps.reads.instance.environments.get(environment), now)
  deps.usage.record({ ...counts, featureName: name, environment })
}

// One way to record an SDK's metrics, backend or frontend (Unleash 8.2 records both alike): the instance
// is heard from (the applications list), and every flag evaluated at least once is seen.
export const recordClientMetrics = (deps: ApiDeps, req: Request, input: ClientMetrics): void => {
  const environment = metricsEnvironment(req.principal!)
  const now = deps.clock().toISOString()
  const sdkVersion = req.header('unleash-sdk')?.slice(0, 255)
  deps.applications.seen({ appName: input.appName, instanceId: input.instanceId, environment, lastSeen: now, remoteAddress: req.remoteAddress, sdkVersion })
  for (const [name, counts] of Object.entries(input.bucket?.toggles ?? {})) {
    if (counts.yes + counts.no > 0) foldSeen(deps, name, environment, now, { appName: input.appName, ...counts })
  }
}

export const clientRoutes = (deps: ApiDeps): Route[] => {
  return [
  {
    method: 'GET',
    path: '/api/client/features',
    access: 'client',
    // Admin tokens pass only with ?at=, for incident reviews: what SDKs were served at that moment.
    adminToo: true,
    docs: {
      query: {
        project: 'A project to include (repeatable)',
        environment: 'The environment, for tokens of every environment',
        namePrefix: 'Only flags whose names start with this',
        tag: 'type:value, a tag the flags must carry (repeatable)',
        inlineSegmentConstraints: '"true" inlines segment constraints in the strategies',
        at: 'An event id or ISO 8601 date-time (admin tokens only): what SDKs were served just after it',
      },
      responses: { 200: clientFeaturesResponse, 304: null },
    },
    handler: (req) => {
      const principal = req.principal!
      const askedAt = req.query.has('at')
      if (principal.kind === 'admin' && !askedAt) throw new DomainError('NoAccessError', wrongTokenType)
      if (askedAt) {
        if (principal.kind !== 'admin') throw new DomainError('NoAccessError', '"at" (the features served at a past moment) needs an admin token.')
        const past = pastWorld(deps, req)!
        return { status: 200, body: pastClientPayload(past, clientQueryFor(req, principal)).plain(), headers: { 'content-type': 'application/json; charset=utf-8' } }
      }
      const payload = deps.clientFeatures.payload(clientQueryFor(req, principal))
      // Unleash answers 304 with no body and no headers (SEMANTICS 5.2).
      const polls = deps.served.sdkPolls
      if (matchesEtag(req.header('if-none-match'), payload.etag)) {
        polls.notModified++
        return notModified
      }
      const accepts = encodingsIn(req.header('accept-encoding') ?? '')
      const headers = headersFor(payload, deps.config.streamingInvitePollers && deps.clientStreams.hasRoom())
      const brotli = accepts.brotli ? payload.brotli() : undefined
      if (brotli) {
        polls.brotli++
        return { status: 200, body: brotli, headers: headers.brotli }
      }
      // An SDK that takes brotli waits for that copy rather than having a second one made; a gzip copy
      // made for others is served to it meanwhile.
      const gzip = accepts.gzip ? (accepts.brotli ? payload.gzipIfReady() : payload.gzip()) : undefined
      if (gzip) {
        polls.gzip++
        return { status: 200, body: gzip, headers: headers.gzip }
      }
      polls.full++
      return { status: 200, body: payload.plain(!accepts.gzip), headers: headers.plain }
    },
  },
  {
    method: 'GET',
    path: '/api/client/delta',
    access: 'client',
    handler: (req) => {
      const query = clientQueryFor(req, req.principal!)
      const since = revisionFromEtag(req.header('if-none-match'))
      const delta = since === undefined ? deps.clientDeltas.hydration(query) : deps.clientDeltas.since(query, since)
      if (since === delta.revision && !delta.hydration) return notModified
      return { status: 200, body: deltaBody(delta), headers: { etag: `"${delta.revision}"`, 'content-type': 'application/json; charset=utf-8' } }
    },
  },
  {
    method: 'GET',
    path: '/api/client/streaming',
    access: 'client',
    handler: (req) => {
      const principal = req.principal!
      const query = clientQueryFor(req, principal)
      const lastEventId = revisionFromEtag(req.header('last-event-id'))
      // Only what a changed token scope needs, not the whole request, is kept per connection.
      const environment = req.query.get('environment')
      const projects = req.query.getAll('project')
      const spec = req.header('unleash-client-spec')
      const rescope = (next: Principal) => {
        const params = new URLSearchParams(projects.map((p) => ['project', p]))
        if (environment) params.set('environment', environment)
        const header = (name: string) => (name === 'unleash-client-spec' ? spec : undefined)
        return clientQueryFor({ query: params, header, hasHeader: (name) => header(name) !== undefined }, next)
      }
      const secret = secretFrom(req.header('authorization'))!
      return {
        status: 200,
        headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
        stream: (stream) => deps.clientStreams.open(stream, { query, secret, principal, lastEventId, rescope }),
        drainProbe: keepAlive,
      }
    },
  },
  {
    method: 'GET',
    path: '/api/client/features/:featureName',
    access: 'client',
    docs: { responses: { 200: clientFeatureResponse } },
    handler: (req) => {
      const query = clientQueryFor(req, req.principal!)
      const feature = deps.clientFeatures.feature(query, req.params.featureName)
      if (!feature) throw notFound(`Could not find feature flag ${req.params.featureName}`)
      return json(feature)
    },
  },
  {
    method: 'POST',
    path: '/api/client/register',
    access: 'client',
    body: true,
    docs: { body: clientRegisterSchema, responses: { 202: null } },
    handler: async (req) => {
      const input = parse(clientRegisterSchema, req.body)
      const now = deps.clock().toISOString()
      await recordApplication(deps, req, input)
      const edge = registrationFromHeaders(req, metricsEnvironment(req.principal!), now)
      if (edge && edge.appName !== input.appName) deps.applications.register(edge)
      deps.applications.register({
        appName: input.appName,
        instanceId: input.instanceId,
        sdkVersion: input.sdkVersion ?? null,
        strategies: input.strategies,
        environment: metricsEnvironment(req.principal!),
        started: startedAt(input.started, now),
        lastSeen: now,
        remoteAddress: req.remoteAddress,
      })
      return empty(202)
    },
  },
  {
    method: 'POST',
    path: '/api/client/metrics',
    access: 'client',
    body: true,
    docs: { body: clientMetricsSchema, responses: { 202: null } },
    handler: (req) => {
      recordClientMetrics(deps, req, parseTransient(clientMetricsSchema, req.body))
      return empty(202)
    },
  },
  {
    method: 'POST',
    path: '/api/client/metrics/bulk',
    access: 'client',
    body: true,
    docs: { body: clientBulkMetricsSchema, responses: { 202: null } },
    handler: (req) => {
      const input = parseTransient(clientBulkMetricsSchema, req.body)
      const principal = req.principal!
      const now = deps.clock().toISOString()
      // A token for one environment reports for that one only, whatever the entries say (as Unleash).
      const environmentOf = (named: string | undefined) => (principal.environment === '*' ? named || 'default' : principal.environment)
      const edge = registrationFromHeaders(req, metricsEnvironment(principal), now)
      if (edge) deps.applications.register(edge)
      for (const app of input.applications) {
        deps.applications.register({
          appName: app.appName,
          instanceId: app.instanceId,
          sdkVersion: app.sdkVersion ?? null,
          strategies: app.strategies,
          environment: environmentOf(app.environment),
          started: startedAt(app.started, now),
          lastSeen: now,
          remoteAddress: req.remoteAddress,
        })
      }
      for (const metric of input.metrics) {
        if (metric.yes + metric.no > 0) foldSeen(deps, metric.featureName, environmentOf(metric.environment), now, { appName: metric.appName, yes: metric.yes, no: metric.no, variants: metric.variants })
      }
      return empty(202)
    },
  },
  {
    method: 'GET',
    path: '/api/admin/metrics/applications',
    access: 'admin',
    handler: () => json({ applications: deps.applications.list() }),
  },
]
}
