import { toJsonSchema } from '@valibot/to-json-schema'
import type { GenericSchema } from 'valibot'
import type { Route } from '../http/types.js'
import { sessionCookie } from '../http/auth.js'
import { errorResponse } from '../schemas/responses.js'

// The OpenAPI 3.1 description of a route table, from each route's docs and its valibot schemas.

type JsonObject = Record<string, unknown>

const errorRef = { $ref: '#/components/schemas/Error' }

const errorDescriptions: Record<number, string> = {
  400: 'The request is invalid: the body, a parameter or the query failed validation.',
  401: 'No credentials, or credentials that name no one.',
  403: 'The credentials lack the permission needed, or are of the wrong kind for this route; or a browser sent this write (with the session cookie, or a sign-in) from another origin.',
  404: 'What the path names does not exist.',
  413: 'The body is larger than the server accepts.',
  415: 'The body is not sent as application/json.',
}

const statusDescriptions: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
  304: 'Not modified (the ETag matched)',
  409: 'Conflict',
  503: 'Service unavailable',
}

// Transforms and regex flags have no JSON Schema equivalent: they are left out, not refused.
const jsonSchemaOf = (schema: GenericSchema): JsonObject => {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, { target: 'draft-2020-12', errorMode: 'ignore', typeMode: 'input' }) as JsonObject
  return rest
}

const pathParams = (path: string): string[] => path.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1))

export const openApiPath = (path: string): string => path.replace(/:([^/]+)/g, '{$1}')

// /api/admin/projects/:projectId/features → "projects"; /api/client/features → "client"; /health → "health".
const tagOf = (path: string): string => {
  const segments = path.split('/').filter((s) => s.length > 0 && !s.startsWith(':'))
  if (segments[0] !== 'api') return segments[0] ?? 'ui'
  if (segments[1] === 'admin') return segments[2] ?? 'admin'
  return segments[1] ?? 'api'
}

const operationIdOf = (route: Route): string => {
  const words = route.path
    .split('/')
    .filter((s) => s.length > 0)
    .map((s) => (s.startsWith(':') ? `by-${s.slice(1)}` : s))
  return [route.method.toLowerCase(), ...words]
    .join('-')
    .replace(/[^A-Za-z0-9]+(.)?/g, (_, next: string | undefined) => (next ? next.toUpperCase() : ''))
}

const securityOf = (route: Route): JsonObject[] => {
  if (route.access === 'public') return []
  if (route.access === 'admin') return [{ apiKey: [] }, { cookie: [] }]
  return [{ apiKey: [] }]
}

const responsesOf = (route: Route): JsonObject => {
  const responses: JsonObject = {}
  const documented = route.docs?.responses
  if (documented && Object.keys(documented).length > 0) {
    for (const [status, schema] of Object.entries(documented)) {
      const description = statusDescriptions[Number(status)] ?? `Status ${status}`
      const body = schema === errorResponse ? errorRef : schema && jsonSchemaOf(schema)
      responses[status] = body ? { description, content: { 'application/json': { schema: body } } } : { description }
    }
  } else {
    responses['200'] = { description: 'OK (the response body is not described yet)' }
  }
  const errors: number[] = []
  const hasParams = pathParams(route.path).length > 0
  if (route.body || hasParams) errors.push(400)
  if (route.access !== 'public') errors.push(401, 403)
  else if (route.method !== 'GET') errors.push(403)
  if (hasParams) errors.push(404)
  if (route.body) errors.push(413, 415)
  for (const status of errors) {
    responses[String(status)] ??= { description: errorDescriptions[status], content: { 'application/json': { schema: errorRef } } }
  }
  return responses
}

const operationOf = (route: Route, operationId: string): JsonObject => {
  const parameters = [
    ...pathParams(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...Object.entries(route.docs?.query ?? {}).map(([name, description]) => ({ name, in: 'query', required: false, description, schema: { type: 'string' } })),
  ]
  return {
    operationId,
    tags: [tagOf(route.path)],
    ...(route.docs?.summary && { summary: route.docs.summary }),
    ...(parameters.length > 0 && { parameters }),
    ...(route.body && {
      requestBody: {
        required: true,
        content: { 'application/json': { schema: route.docs?.body ? jsonSchemaOf(route.docs.body) : {} } },
      },
    }),
    responses: responsesOf(route),
    security: securityOf(route),
  }
}

export const openApiDocument = (routes: Route[], version: string): JsonObject => {
  const paths: Record<string, JsonObject> = {}
  const usedIds = new Set<string>()
  for (const route of routes) {
    let operationId = operationIdOf(route)
    for (let n = 2; usedIds.has(operationId); n++) operationId = `${operationIdOf(route)}${n}`
    usedIds.add(operationId)
    const path = openApiPath(route.path)
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operationOf(route, operationId) }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Flagwright',
      version,
      description: 'The Unleash-compatible feature flag API this server answers. Routes whose response bodies are not described yet list their statuses without a schema.',
    },
    paths,
    components: {
      schemas: { Error: jsonSchemaOf(errorResponse) },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'An API token (admin, client or frontend), as is or after "Bearer ".' },
        cookie: { type: 'apiKey', in: 'cookie', name: sessionCookie, description: 'The session cookie set by POST /auth/simple/login.' },
      },
    },
  }
}
