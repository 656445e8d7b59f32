import t from 'tap'
import * as v from 'valibot'
import { openApiDocument } from '../../src/api/openapi.js'
import type { Route } from '../../src/http/types.js'
import { startPeopleServer } from '../helpers/people.js'
import { fetchOpenApi, refsIn, resolveRef, schemaCompiler, schemasIn, type OpenApiDocument } from '../helpers/openapi.js'

const noop = () => ({ status: 200 })

t.test('openApiDocument describes a route table', async (t) => {
  const routes: Route[] = [
    {
      method: 'POST',
      path: '/api/admin/projects/:projectId/things',
      access: 'admin',
      body: true,
      docs: { summary: 'Add a thing', body: v.object({ name: v.pipe(v.string(), v.transform((s) => s.trim())) }), responses: { 201: v.object({ id: v.number() }) } },
      handler: noop,
    },
    { method: 'GET', path: '/api/client/things', access: 'client', docs: { query: { tag: 'type:value' } }, handler: noop },
    { method: 'DELETE', path: '/api/admin/things/:id', access: 'admin', docs: { responses: { 204: null } }, handler: noop },
    { method: 'GET', path: '/health', access: 'public', handler: noop },
    { method: 'POST', path: '/sign-in', access: 'public', handler: noop },
  ]
  const doc = openApiDocument(routes, '1.2.3') as unknown as OpenApiDocument & { info: { version: string } }
  t.equal(doc.openapi, '3.1.0')
  t.equal(doc.info.version, '1.2.3')
  const post = doc.paths['/api/admin/projects/{projectId}/things'].post
  t.same(post.parameters, [{ name: 'projectId', in: 'path', required: true, schema: { type: 'string' } }], ':projectId becomes a required path parameter')
  t.match(post.requestBody, { content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } } }, 'the body schema survives its transform')
  t.match(post.responses['201'], { content: { 'application/json': { schema: { properties: { id: { type: 'number' } } } } } })
  t.same(Object.keys(post.responses).sort(), ['201', '400', '401', '403', '404', '413', '415'])
  t.same(post.security, [{ apiKey: [] }, { cookie: [] }], 'admin routes take a token or the session cookie')
  const client = doc.paths['/api/client/things'].get
  t.same(client.security, [{ apiKey: [] }])
  t.same(Object.keys(client.responses).sort(), ['200', '401', '403'])
  t.notOk(client.responses['200'].content, 'an undescribed answer has a description only')
  t.match(client.parameters, [{ name: 'tag', in: 'query', required: false, description: 'type:value' }])
  t.same(Object.keys(doc.paths['/api/admin/things/{id}'].delete.responses).sort(), ['204', '400', '401', '403', '404'])
  t.notOk(doc.paths['/api/admin/things/{id}'].delete.responses['204'].content)
  const health = doc.paths['/health'].get
  t.same(health.security, [], 'public routes need no credentials')
  t.same(Object.keys(health.responses), ['200'])
  t.same(Object.keys(doc.paths['/sign-in'].post.responses).sort(), ['200', '403'], 'a public write may be refused as cross-origin')
  const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId))
  t.equal(new Set(ids).size, ids.length, 'operation ids are unique')
})

t.test('the served document describes every route of the server', async (t) => {
  const server = await startPeopleServer(t, { env: { LOG_LEVEL: 'error' } })
  const base = server.baseUrl
  const doc = await fetchOpenApi(base)
  t.equal(doc.openapi, '3.1.0')

  const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${p}`))
  const served = server.routes.map((r) => `${r.method} ${r.path.replace(/:([^/]+)/g, '{$1}')}`)
  t.same([...documented].sort(), [...served].sort(), 'the same routes, each with its method')
  t.ok(served.includes('GET /docs/openapi.json'), 'the document describes itself')

  const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId))
  t.equal(new Set(ids).size, ids.length, 'operation ids are unique')

  const refs = [...new Set(refsIn(doc))]
  t.ok(refs.length > 0)
  t.same(refs.filter((ref) => resolveRef(doc, ref) === undefined), [], 'every $ref resolves')

  const compile = schemaCompiler(doc)
  const failures: string[] = []
  for (const { where, schema } of schemasIn(doc)) {
    try {
      compile(schema)
    } catch (error) {
      failures.push(`${where}: ${(error as Error).message}`)
    }
  }
  t.same(failures, [], 'ajv compiles every schema')

  const withBody = server.routes.filter((r) => r.docs?.body).length
  const withResponses = server.routes.filter((r) => r.docs?.responses).length
  t.ok(withBody >= 70, `${withBody} routes describe their request body`)
  t.ok(withResponses >= 50, `${withResponses} routes describe their answers`)
})

t.test('GET /docs/openapi is a page served with its own assets', async (t) => {
  const server = await startPeopleServer(t, { env: { LOG_LEVEL: 'error' } })
  const base = server.baseUrl
  const page = await fetch(`${base}/docs/openapi`)
  t.equal(page.status, 200)
  t.match(page.headers.get('content-type'), /^text\/html/)
  const html = await page.text()
  t.notMatch(html, /<script>/, 'no inline script: the CSP allows scripts from this server only')
  t.notMatch(html, /https?:\/\//, 'nothing from another origin')
  const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])
  t.same(assets.sort(), ['/docs/openapi/assets/openapi-init.js', '/docs/openapi/assets/swagger-ui-bundle.js', '/docs/openapi/assets/swagger-ui.css'])
  const csp = page.headers.get('content-security-policy') ?? ''
  t.match(csp, /default-src 'self'/)
  for (const asset of assets) {
    const response = await fetch(base + asset)
    t.equal(response.status, 200, asset)
    t.match(response.headers.get('content-type'), asset.endsWith('.css') ? /^text\/css/ : /^text\/javascript/, asset)
    const text = await response.text()
    t.ok(text.length > 0, `${asset} has content`)
    if (asset.endsWith('openapi-init.js')) t.match(text, '/docs/openapi.json', 'the page loads our document')
  }
  t.equal((await fetch(`${base}/docs/openapi/assets/index.html`)).status, 404, 'only the page assets are served')
})
