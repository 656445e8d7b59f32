import { randomBytes } from 'node:crypto'
import { DomainError } from '../domain/errors.js'
import type { Principal, Reply, Request, Route } from '../http/types.js'
import { FrontendAnswers, type FrontendAnswer } from '../read/frontend-answers.js'
import { frontendRequestSchema, sdkContextSchema } from '../schemas/playground.js'
import type { EvalContext } from '../eval/types.js'
import { clientMetricsSchema, clientRegisterSchema } from '../schemas/client.js'
import { recordApplication, recordClientMetrics } from './client.routes.js'
import { empty, type ApiDeps } from './deps.js'
import { parse, parseTransient } from './parse.js'
import { parseJsonBody } from '../http/json-body.js'
import { fixedHeaders } from '../http/fixed-headers.js'
import { frontendResponse } from '../schemas/responses.js'

const topLevel = new Set(['appName', 'environment', 'userId', 'sessionId', 'remoteAddress', 'currentTime'])

// Unleash's frontend API keeps the standard fields top-level and moves every other key into properties.
export const frontendContext = (raw: Record<string, unknown>, remoteAddress: string): EvalContext => {
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

// What makes a request's context its own: the request context as sent, and the caller's address when the
// context names none. Undefined when a session id would be drawn at random: such an answer never repeats.
export const contextKey = (given: { sessionId?: unknown; remoteAddress?: unknown } | undefined, sent: string, remoteAddress: () => string): string | undefined => {
  if (given?.sessionId === undefined || given.sessionId === null) return undefined
  return given.remoteAddress === undefined || given.remoteAddress === null ? `${remoteAddress()}\u0000${sent}` : sent
}

const notModified: Reply = Object.freeze({ status: 304 })

// `answers`: the remembered answers, which the server's timer empties once stale.
export const frontendRoutes = (deps: ApiDeps, answers: FrontendAnswers): Route[] => {
  // The reply of each answer, made once: an answer served from the cache is served with no allocation.
  const replies = new WeakMap<FrontendAnswer, Reply>()
  const answer = (req: Request, key: string | undefined, raw: () => Record<string, unknown>): Reply =>
    replyOf(req, answers.answer(req.principal as Principal, key, () => frontendContext(raw(), req.remoteAddress)))
  const replyOf = (req: Request, found: FrontendAnswer): Reply => {
    deps.served.evaluations++
    if (req.header('if-none-match') === found.etag) return notModified
    let reply = replies.get(found)
    if (reply === undefined) {
      const headers = fixedHeaders({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache', etag: found.etag })
      replies.set(found, (reply = Object.freeze({ status: 200, body: found.body, headers })))
    }
    return reply
  }
  return [
    {
      method: 'GET',
      path: '/api/frontend',
      access: 'frontend',
      cors: true,
      docs: {
        query: {
          userId: 'Context field',
          sessionId: 'Context field',
          remoteAddress: 'Context field',
          appName: 'Context field',
          environment: 'Context field',
          currentTime: 'Context field',
          'properties[name]': 'A custom context field (any other name is one too)',
        },
        responses: { 200: frontendResponse, 304: null },
      },
      handler: (req) => {
        const query = req.query
        const key = contextKey({ sessionId: query.get('sessionId'), remoteAddress: query.get('remoteAddress') }, `?${query.toString()}`, () => req.remoteAddress)
        return answer(req, key, () => parseTransient(sdkContextSchema, fromQuery(query), 'query'))
      },
    },
    {
      method: 'POST',
      path: '/api/frontend',
      access: 'frontend',
      cors: true,
      body: true,
      bodyText: true,
      keepHeaders: ['if-none-match'],
      docs: { body: frontendRequestSchema, responses: { 200: frontendResponse, 304: null } },
      handler: (req) => {
        // The body as sent determines the context as well as its parse does: it is the key (or, when the
        // context names no address, the caller's address and it), and a body answered before is answered
        // again without being parsed. A valid JSON text holds no NUL and never starts with "?" (the GET
        // route's keys), so no key of one kind can be one of another.
        const text = req.bodyText ?? ''
        const principal = req.principal as Principal
        const known = answers.cached(principal, text) ?? answers.cached(principal, `${req.remoteAddress}\u0000${text}`)
        if (known !== undefined) return replyOf(req, known)
        const body = parseJsonBody(text)
        const sent = body as { context?: { sessionId?: unknown; remoteAddress?: unknown } } | undefined
        const given = typeof sent?.context === 'object' ? sent.context : undefined
        return answer(req, contextKey(given, text, () => req.remoteAddress), () => parseTransient(frontendRequestSchema, body ?? {}).context)
      },
    },
    {
      method: 'POST',
      path: '/api/frontend/client/metrics',
      access: 'frontend',
      cors: true,
      body: true,
      docs: { body: clientMetricsSchema, responses: { 200: null } },
      // Recorded as client metrics are (Unleash 8.2 side by side: the flag's lastSeenAt moves and the
      // browser application is listed); the answer stays Unleash's 200.
      handler: (req) => {
        recordClientMetrics(deps, req, parseTransient(clientMetricsSchema, req.body))
        return empty(200)
      },
    },
    {
      method: 'POST',
      path: '/api/frontend/client/register',
      access: 'frontend',
      cors: true,
      body: true,
      docs: { body: clientRegisterSchema },
      handler: async (req) => {
        await recordApplication(deps, req, parse(clientRegisterSchema, req.body))
        return empty(200)
      },
    },
    { method: 'GET', path: '/api/frontend/client/features', access: 'frontend', cors: true, handler: notSupported },
    { method: 'GET', path: '/api/frontend/health', access: 'frontend', cors: true, handler: notSupported },
    { method: 'GET', path: '/api/frontend/internal-backstage/prometheus', access: 'frontend', cors: true, handler: notSupported },
  ]
}

