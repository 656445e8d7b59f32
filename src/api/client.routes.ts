import semver from 'semver'
import { DomainError, badData, notFound } from '../domain/errors.js'
import { wrongTokenType } from '../http/auth.js'
import type { Principal, Request, Route } from '../http/types.js'
import type { ClientQuery } from '../read/client-features.js'
import { clientMetricsSchema, clientRegisterSchema } from '../schemas/client.js'
import { empty, json, type ApiDeps } from './deps.js'
import { parse } from './parse.js'
import { pastClientPayload, pastWorld } from './history.js'

// Unleash's DEFAULT_ENV since v7: a token for all environments reads this one unless told otherwise.
export const defaultEnvironment = 'development'
const segmentsSupportedFrom = '4.2.0'
const tagPattern = /^\w+:.+$/s

// SDK fleets send a handful of distinct versions: remember the answer rather than parse per poll.
const inlineBySpec = new Map<string, boolean>()
const maxRememberedSpecs = 100

const inlineSegmentsFor = (spec: string): boolean => {
  const known = inlineBySpec.get(spec)
  if (known !== undefined) return known
  if (!/^\d/.test(spec)) throw badData(`Invalid prefix in the Unleash-Client-Spec header: "${spec.slice(0, 100)}".`)
  if (!semver.valid(spec)) throw badData(`Invalid SemVer in the Unleash-Client-Spec header: "${spec.slice(0, 100)}".`)
  const inline = semver.lt(spec, segmentsSupportedFrom)
  if (inlineBySpec.size < maxRememberedSpecs) inlineBySpec.set(spec, inline)
  return inline
}

const inlineSegments = (req: Request): boolean => {
  if (req.query.get('inlineSegmentConstraints') === 'true') return true
  const spec = req.headers['unleash-client-spec']
  return spec === undefined ? true : inlineSegmentsFor(spec)
}

export const clientQueryFor = (req: Request, principal: Principal): ClientQuery => {
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
  return {
    environment,
    projects,
    ...(namePrefix ? { namePrefix } : {}),
    ...(tags.length > 0 ? { tags } : {}),
    inlineSegmentConstraints: inlineSegments(req),
  }
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

// Metrics from a token for all environments land under Unleash's literal "default".
const metricsEnvironment = (principal: Principal) => (principal.environment === '*' ? 'default' : principal.environment)

export const clientRoutes = (deps: ApiDeps): Route[] => [
  {
    method: 'GET',
    path: '/api/client/features',
    access: 'client',
    // Admin tokens pass only with ?at=, for incident reviews: what SDKs were served at that moment.
    adminToo: true,
    handler: (req) => {
      const principal = req.principal!
      const askedAt = req.query.has('at')
      if (principal.kind === 'admin' && !askedAt) throw new DomainError('NoAccessError', wrongTokenType)
      if (askedAt) {
        if (principal.kind !== 'admin') throw new DomainError('NoAccessError', '"at" (the features served at a past moment) needs an admin token.')
        const past = pastWorld(deps, req)!
        return { status: 200, body: pastClientPayload(past, clientQueryFor(req, principal)).body, headers: { 'content-type': 'application/json; charset=utf-8' } }
      }
      const payload = deps.clientFeatures.payload(clientQueryFor(req, principal))
      // Unleash answers 304 with no body and no headers (SEMANTICS 5.2).
      const polls = deps.served.sdkPolls
      if (matchesEtag(req.headers['if-none-match'], payload.etag)) {
        polls.notModified++
        return { status: 304 }
      }
      const accepts = req.headers['accept-encoding'] ?? ''
      const headers: Record<string, string> = { etag: payload.etag, 'content-type': 'application/json; charset=utf-8', vary: 'Accept-Encoding' }
      if (payload.brotli && /\bbr\b/.test(accepts)) {
        polls.brotli++
        return { status: 200, body: payload.brotli, headers: { ...headers, 'content-encoding': 'br' } }
      }
      if (payload.gzip && /\bgzip\b/.test(accepts)) {
        polls.gzip++
        return { status: 200, body: payload.gzip, headers: { ...headers, 'content-encoding': 'gzip' } }
      }
      polls.full++
      return { status: 200, body: payload.body, headers }
    },
  },
  {
    method: 'GET',
    path: '/api/client/features/:featureName',
    access: 'client',
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
    handler: (req) => {
      const input = parse(clientRegisterSchema, req.body)
      const now = deps.clock().toISOString()
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
    handler: (req) => {
      const input = parse(clientMetricsSchema, req.body)
      const environment = metricsEnvironment(req.principal!)
      const now = deps.clock().toISOString()
      const projects = deps.registry.committedProjects
      for (const [name, counts] of Object.entries(input.bucket?.toggles ?? {})) {
        if (counts.yes + counts.no === 0) continue
        for (const project of projects.values()) {
          if (project.features.has(name)) {
            deps.lastSeen.record(name, environment, now)
            deps.lifecycleStages.observeMetrics(project.features.get(name)!, deps.registry.committedInstance.environments.get(environment), now)
            break
          }
        }
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
  { method: 'GET', path: '/health', access: 'public', handler: () => json({ health: 'GOOD' }) },
]
