import { createHash, randomBytes } from 'node:crypto'
import { DomainError } from '../domain/errors.js'
import type { Principal, Request, Route } from '../http/types.js'
import type { Evaluators } from '../read/evaluators.js'
import { frontendRequestSchema, sdkContextSchema } from '../schemas/playground.js'
import type { EvalContext } from '../eval/types.js'
import { empty, type ApiDeps } from './deps.js'
import { parse } from './parse.js'

const topLevel = new Set(['appName', 'environment', 'userId', 'sessionId', 'remoteAddress', 'currentTime'])

// Unleash's frontend API keeps the standard fields top-level and moves every other key into properties.
const frontendContext = (raw: Record<string, unknown>, remoteAddress: string): EvalContext => {
  const properties: Record<string, string> = {}
  const context: EvalContext = { properties }
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined || value === null) continue
    if (key === 'properties' && typeof value === 'object') {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) if (v !== undefined) properties[k] = String(v)
    } else if (topLevel.has(key)) context[key] = String(value)
    else properties[key] = String(value)
  }
  context.remoteAddress ??= remoteAddress
  context.sessionId ??= randomBytes(8).toString('hex')
  return context
}

const fromQuery = (query: URLSearchParams): Record<string, unknown> => {
  const raw: Record<string, unknown> = {}
  const properties: Record<string, string> = {}
  for (const [key, value] of query) {
    const nested = /^properties\[(.+)\]$/.exec(key)
    if (nested) properties[nested[1]] = value
    else raw[key] = value
  }
  return { ...raw, properties }
}

const notSupported = () => {
  throw new DomainError('NotImplementedError', 'The frontend API does not support this endpoint.')
}

export const frontendRoutes = (deps: ApiDeps, evaluators: Evaluators): Route[] => {
  const answer = (req: Request, raw: Record<string, unknown>) => {
    const principal = req.principal as Principal
    const context = frontendContext(raw, req.remoteAddress)
    const evaluator = evaluators.for(principal.environment)
    const allProjects = principal.projects.includes('*')
    const toggles = []
    for (const [projectId, project] of deps.registry.committedProjects) {
      if (!allProjects && !principal.projects.includes(projectId)) continue
      for (const feature of project.features.values()) {
        if (feature.archived) continue
        const result = evaluator.evaluate(feature.name, context)
        deps.served.evaluations++
        if (!result.enabled) continue
        toggles.push({ name: feature.name, enabled: true, variant: result.variant, impressionData: result.impressionData })
      }
    }
    toggles.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const body = Buffer.from(JSON.stringify({ toggles }))
    const etag = `"${createHash('sha1').update(body).digest('base64url')}"`
    if (req.headers['if-none-match'] === etag) return { status: 304 }
    return { status: 200, body, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache', etag } }
  }
  return [
    {
      method: 'GET',
      path: '/api/frontend',
      access: 'frontend',
      cors: true,
      handler: (req) => answer(req, parse(sdkContextSchema, fromQuery(req.query), 'query')),
    },
    {
      method: 'POST',
      path: '/api/frontend',
      access: 'frontend',
      cors: true,
      body: true,
      handler: (req) => answer(req, parse(frontendRequestSchema, req.body ?? {}).context),
    },
    { method: 'POST', path: '/api/frontend/client/metrics', access: 'frontend', cors: true, body: true, handler: () => empty(200) },
    { method: 'POST', path: '/api/frontend/client/register', access: 'frontend', cors: true, body: true, handler: () => empty(200) },
    { method: 'GET', path: '/api/frontend/client/features', access: 'frontend', cors: true, handler: notSupported },
    { method: 'GET', path: '/api/frontend/health', access: 'frontend', cors: true, handler: notSupported },
    { method: 'GET', path: '/api/frontend/internal-backstage/prometheus', access: 'frontend', cors: true, handler: notSupported },
  ]
}

