import { DomainError } from '../domain/errors.js'
import type { Feature } from '../domain/project-state.js'
import { wrongTokenType } from '../http/auth.js'
import { fixedHeaders } from '../http/fixed-headers.js'
import { parseJsonBody } from '../http/json-body.js'
import type { Principal, Reply, Request, Route } from '../http/types.js'
import type { Evaluators } from '../read/evaluators.js'
import { FrontendAnswers, type FrontendAnswer, type RenderAnswer } from '../read/frontend-answers.js'
import { flagNotFound, ofrepContextFields, ofrepEvaluation, ofrepFactsOf } from '../read/ofrep.js'
import { ofrepBulkResponse, ofrepEvaluationResponse, ofrepFailureResponse, ofrepRequestSchema, type OfrepEvaluation, type OfrepFailure } from '../schemas/ofrep.js'
import type { ApiDeps } from './deps.js'
import { contextKey, frontendContext } from './frontend.routes.js'
import { locateFeature } from './lookups.js'
import { recordClientMetrics } from './client.routes.js'
import * as v from 'valibot'

const json = fixedHeaders({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' })
const notModified: Reply = Object.freeze({ status: 304 })

// OFREP takes the frontend API's tokens: frontend and client tokens, raw or as `Bearer <token>`.
const sdkPrincipal = (req: Request): Principal => {
  const principal = req.principal
  if (principal === undefined) throw new DomainError('AuthenticationRequired', 'This endpoint requires a frontend or client API token in the Authorization header.')
  if (principal.kind !== 'frontend' && principal.kind !== 'client') throw new DomainError('NoAccessError', wrongTokenType)
  return principal
}

// OFREP's own error body for a request it cannot evaluate (its providers read errorCode).
const failure = (status: number, body: OfrepFailure): Reply => ({ status, body: Buffer.from(JSON.stringify(body)), headers: json })

type Parsed = { ok: true; context: Record<string, unknown> } | { ok: false; reply: Reply }

const parseRequest = (text: string, key?: string): Parsed => {
  const withKey = key === undefined ? {} : { key }
  let body: unknown
  try {
    body = parseJsonBody(text)
  } catch (error) {
    return { ok: false, reply: failure(400, { ...withKey, errorCode: 'PARSE_ERROR', errorDetails: error instanceof DomainError ? error.message : 'The request body is not valid JSON.' }) }
  }
  const result = v.safeParse(ofrepRequestSchema, body ?? {}, { abortPipeEarly: true })
  if (!result.success) return { ok: false, reply: failure(400, { ...withKey, errorCode: 'INVALID_CONTEXT', errorDetails: result.issues[0].message }) }
  return { ok: true, context: result.output.context }
}

const inScopeOf = (principal: Principal) => (principal.projects.includes('*') ? () => true : (project: string) => principal.projects.includes(project))

// The bulk evaluations remembered for contexts that repeat (the server's timer empties them once stale).
export const ofrepBulkAnswers = (deps: Pick<ApiDeps, 'reads'>, evaluators: Evaluators): FrontendAnswers => {
  // Every flag in scope, by name, as the frontend API's toggles are ordered.
  const renderBulk: RenderAnswer = (evaluator, context, inScope, scope) => {
    const features: Feature[] = []
    for (const [id, project] of deps.reads.projects) {
      if (!inScope(id)) continue
      for (const feature of project.features.values()) if (!feature.archived) features.push(feature)
    }
    features.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const flags: OfrepEvaluation[] = features.map((feature) => ofrepEvaluation(feature.name, evaluator.evaluate(feature.name, context), ofrepFactsOf(feature, scope.environment)))
    return JSON.stringify({ flags })
  }
  return new FrontendAnswers(evaluators, undefined, renderBulk)
}

export const ofrepRoutes = (deps: ApiDeps, evaluators: Evaluators, bulk: FrontendAnswers): Route[] => {
  const replies = new WeakMap<FrontendAnswer, Reply>()
  const replyOf = (req: Request, answer: FrontendAnswer): Reply => {
    if (req.header('if-none-match') === answer.etag) return notModified
    let reply = replies.get(answer)
    if (reply === undefined) replies.set(answer, (reply = Object.freeze({ status: 200, body: answer.body, headers: fixedHeaders({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache', etag: answer.etag }) })))
    return reply
  }

  return [
    {
      method: 'POST',
      path: '/ofrep/v1/evaluate/flags/:key',
      access: 'public',
      cors: true,
      body: true,
      bodyText: true,
      docs: { summary: 'OpenFeature Remote Evaluation Protocol: evaluate one flag', body: ofrepRequestSchema, responses: { 200: ofrepEvaluationResponse, 400: ofrepFailureResponse, 401: null, 403: null, 404: ofrepFailureResponse } },
      handler: (req) => {
        const principal = sdkPrincipal(req)
        const key = req.params.key
        const parsed = parseRequest(req.bodyText ?? '', key)
        if (!parsed.ok) return parsed.reply
        const feature = locateFeature(deps, key)
        if (feature === undefined || feature.archived || !inScopeOf(principal)(feature.project)) return failure(404, flagNotFound(key))
        const fields = ofrepContextFields(parsed.context)
        const context = frontendContext(fields, req.remoteAddress)
        const result = evaluators.for(principal.environment).evaluate(key, context)
        deps.served.evaluations++
        const now = deps.clock().toISOString()
        recordClientMetrics(deps, req, {
          appName: typeof fields.appName === 'string' ? fields.appName : 'ofrep',
          instanceId: 'ofrep',
          bucket: {
            start: now,
            stop: now,
            toggles: { [key]: { yes: result.enabled ? 1 : 0, no: result.enabled ? 0 : 1, variants: result.variant.enabled ? { [result.variant.name]: 1 } : {} } },
          },
        })
        return { status: 200, body: Buffer.from(JSON.stringify(ofrepEvaluation(key, result, ofrepFactsOf(feature, principal.environment)))), headers: json }
      },
    },
    {
      method: 'POST',
      path: '/ofrep/v1/evaluate/flags',
      access: 'public',
      cors: true,
      body: true,
      bodyText: true,
      keepHeaders: ['if-none-match'],
      docs: { summary: 'OpenFeature Remote Evaluation Protocol: evaluate every flag in the token\'s scope', body: ofrepRequestSchema, responses: { 200: ofrepBulkResponse, 304: null, 400: ofrepFailureResponse, 401: null, 403: null } },
      handler: (req) => {
        const principal = sdkPrincipal(req)
        const text = req.bodyText ?? ''
        deps.served.evaluations++
        const known = bulk.cached(principal, text) ?? bulk.cached(principal, `${req.remoteAddress}\u0000${text}`)
        if (known !== undefined) return replyOf(req, known)
        const parsed = parseRequest(text)
        if (!parsed.ok) return parsed.reply
        const fields = ofrepContextFields(parsed.context)
        // As the frontend API: an answer repeats for the same body when it names a session id (else one is
        // drawn at random), and the caller's address is part of it when the context names none.
        return replyOf(req, bulk.answer(principal, contextKey(fields, text, () => req.remoteAddress), () => frontendContext(fields, req.remoteAddress)))
      },
    },
  ]
}
