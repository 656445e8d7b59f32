import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { openApiPath } from '../../src/api/openapi.js'
import { Router } from '../../src/http/router.js'
import type { Method, Route } from '../../src/http/types.js'

// Reading the served OpenAPI document in tests: its operations, its $refs, and ajv validators for its schemas.

export interface Operation {
  operationId: string
  parameters?: { name: string; in: string }[]
  requestBody?: { content: { 'application/json': { schema: object } } }
  responses: Record<string, { description: string; content?: { 'application/json': { schema: object } } }>
  security: object[]
}

export interface OpenApiDocument {
  openapi: string
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, object> }
}

export const fetchOpenApi = async (baseUrl: string): Promise<OpenApiDocument> => {
  const response = await fetch(`${baseUrl}/docs/openapi.json`)
  if (response.status !== 200) throw new Error(`GET /docs/openapi.json answered ${response.status}`)
  return (await response.json()) as OpenApiDocument
}

export const refsIn = (value: unknown): string[] => {
  if (Array.isArray(value)) return value.flatMap(refsIn)
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([key, inner]) => (key === '$ref' && typeof inner === 'string' ? [inner] : refsIn(inner)))
}

// A local reference (#/a/b~1c) to the value it names, or undefined.
export const resolveRef = (document: unknown, ref: string): unknown => {
  if (!ref.startsWith('#/')) return undefined
  let at: unknown = document
  for (const part of ref.slice(2).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    if (at === null || typeof at !== 'object' || !(part in at)) return undefined
    at = (at as Record<string, unknown>)[part]
  }
  return at
}

// Every schema object of the document: request bodies, responses and components, with where it sits.
export const schemasIn = (document: OpenApiDocument): { where: string; schema: object }[] => {
  const found: { where: string; schema: object }[] = Object.entries(document.components.schemas).map(([name, schema]) => ({ where: `components.${name}`, schema }))
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const body = operation.requestBody?.content['application/json'].schema
      if (body) found.push({ where: `${method} ${path} request`, schema: body })
      for (const [status, response] of Object.entries(operation.responses)) {
        const schema = response.content?.['application/json'].schema
        if (schema) found.push({ where: `${method} ${path} ${status}`, schema })
      }
    }
  }
  return found
}

const componentPrefix = '#/components/schemas/'
const componentId = (name: string) => `https://flagwright.invalid/components/${name}`

// Component references point into the document; ajv gets each component under an id of its own instead.
const withComponentIds = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withComponentIds)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' && inner.startsWith(componentPrefix) ? componentId(inner.slice(componentPrefix.length)) : withComponentIds(inner),
    ]),
  )
}

export const schemaCompiler = (document: OpenApiDocument) => {
  // Formats are informative here; valibot checks the real inputs.
  const ajv = new Ajv2020({ allErrors: true, validateFormats: false, strictTypes: false })
  for (const [name, schema] of Object.entries(document.components.schemas)) ajv.addSchema(withComponentIds(schema) as object, componentId(name))
  return (schema: object): ValidateFunction => ajv.compile(withComponentIds(schema) as object)
}

export interface Exchange {
  method: Method
  url: string
  requestBody?: unknown
  status: number
  // Parsed JSON, or undefined when the body was empty.
  body: unknown
  text: string
}

// Checks answers against the document, route by route, and remembers which documented routes it met.
export class ContractChecker {
  readonly met = new Set<string>()
  private readonly router: Router
  private readonly compile: (schema: object) => ValidateFunction
  private readonly validators = new Map<object, ValidateFunction>()

  constructor(
    private readonly document: OpenApiDocument,
    routes: Pick<Route, 'method' | 'path' | 'access' | 'docs'>[],
  ) {
    this.router = new Router(routes.map((r) => ({ ...r, handler: () => ({ status: 500 }) })))
    this.compile = schemaCompiler(document)
  }

  private validator(schema: object): ValidateFunction {
    let validate = this.validators.get(schema)
    if (!validate) this.validators.set(schema, (validate = this.compile(schema)))
    return validate
  }

  // Routes whose answers the document describes: the ones a tour must meet.
  static described(routes: Pick<Route, 'method' | 'path' | 'docs'>[]): string[] {
    return routes.filter((r) => r.docs?.responses && Object.keys(r.docs.responses).length > 0).map((r) => `${r.method} ${r.path}`)
  }

  // The problems found with one exchange: none when the answer is as documented.
  check(exchange: Exchange): string[] {
    const match = this.router.match(exchange.method, new URL(exchange.url, 'http://x').pathname)
    if (match.kind !== 'found') return [`${exchange.method} ${exchange.url} matches no route`]
    const key = `${exchange.method} ${match.route.path}`
    const operation = this.document.paths[openApiPath(match.route.path)]?.[exchange.method.toLowerCase()]
    if (!operation) return [`${key} is not in the document`]
    this.met.add(key)
    const response = operation.responses[String(exchange.status)]
    if (!response) return [`${key} answered ${exchange.status}, which the document does not list (${Object.keys(operation.responses).join(', ')})`]
    const problems: string[] = []
    const schema = response.content?.['application/json'].schema
    if (schema) {
      const validate = this.validator(schema)
      if (!validate(exchange.body)) problems.push(`${key} ${exchange.status}: ${JSON.stringify(validate.errors?.slice(0, 5))} in ${exchange.text.slice(0, 300)}`)
    } else if (exchange.text.length > 0 && match.route.docs?.responses?.[exchange.status] === null) {
      problems.push(`${key} ${exchange.status} is documented without a body but answered ${exchange.text.slice(0, 200)}`)
    }
    // A request the server took must be one the document allows.
    const requestSchema = operation.requestBody?.content['application/json'].schema
    if (requestSchema && exchange.status < 300 && exchange.requestBody !== undefined) {
      const validate = this.validator(requestSchema)
      if (!validate(exchange.requestBody)) problems.push(`${key}: the accepted request body ${JSON.stringify(exchange.requestBody).slice(0, 200)} fails its schema: ${JSON.stringify(validate.errors?.slice(0, 5))}`)
    }
    return problems
  }
}
