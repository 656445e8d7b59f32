import t from 'tap'
import { api, createFeature, expectOk, request } from '../helpers/admin-api.js'
import { startTestServer } from '../helpers/server.js'

// Unleash refuses an unknown property where its OpenAPI schema says additionalProperties: false, and
// ignores one everywhere else (SEMANTICS 8.2). The cases below name the Unleash schema they follow.

const clientToken = 'default:development.unknown-props-client-token'
const frontendToken = 'default:development.unknown-props-frontend-token'
const refusal = 'Request validation failed: your request body or params contain invalid data. Refer to the `details` list for more information.'
const rootDetail = (property: string) => ({
  path: property,
  message: `The root object of the request body does not allow additional properties. Your request included the \`${property}\` property.`,
})

t.test('closed bodies refuse an unknown property with 400 naming it; open bodies accept one', async (t) => {
  const server = await startTestServer(t, { env: { INIT_CLIENT_API_TOKENS: clientToken, INIT_FRONTEND_API_TOKENS: frontendToken } })
  expectOk(await createFeature(server, 'default', 'target'), 'a flag')
  const strategies = '/api/admin/projects/default/features/target/environments/development/strategies'

  const closed: [string, string, string, unknown, { path: string; message: string }][] = [
    ['a constraint (constraintSchema)', 'POST', strategies, { name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['a'], colour: 'red' }] }, {
      path: '/constraints/0/colour',
      message: 'The `/constraints/0` object of the request body does not allow additional properties. Your request included the `/constraints/0/colour` property.',
    }],
    ['a flag tag (tagSchema)', 'POST', '/api/admin/features/target/tags', { type: 'simple', value: 'launch', colour: 'red' }, rootDetail('colour')],
    ['a tag type (tagTypeSchema)', 'POST', '/api/admin/tag-types', { name: 'team', colour: 'red' }, rootDetail('colour')],
    ['environment variants (variantSchema)', 'PUT', '/api/admin/projects/default/features/target/environments/development/variants', [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default', colour: 'red' }], {
      path: '/0/colour',
      message: 'The `/0` object of the request body does not allow additional properties. Your request included the `/0/colour` property.',
    }],
    ['a variant override (overrideSchema)', 'PUT', '/api/admin/projects/default/features/target/environments/development/variants', [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default', overrides: [{ contextName: 'userId', values: ['a'], colour: 'red' }] }], {
      path: '/0/overrides/0/colour',
      message: 'The `/0/overrides/0` object of the request body does not allow additional properties. Your request included the `/0/overrides/0/colour` property.',
    }],
    ['a user (createUserSchema)', 'POST', '/api/admin/user-admin', { email: 'new@example.com', rootRole: 'Viewer', colour: 'red' }, rootDetail('colour')],
    ['a login (loginSchema)', 'POST', '/auth/simple/login', { username: 'admin', password: 'wrong', remember: true }, rootDetail('remember')],
    ['a project environment (projectEnvironmentSchema)', 'POST', '/api/admin/projects/default/environments', { environment: 'development', colour: 'red' }, rootDetail('colour')],
  ]
  for (const [what, method, path, body, detail] of closed) {
    const res = await api(server, method, path, body)
    t.equal(res.status, 400, `${what}: 400`)
    t.same(res.body.details, [detail], `${what}: the detail names the property`)
    t.equal(res.body.message, refusal, `${what}: Unleash's message`)
    t.equal(res.body.name, 'BadDataError', `${what}: BadDataError`)
  }

  const proto = await request(server, { method: 'POST', path: '/api/admin/tag-types', body: '{"name":"team","__proto__":{"admin":true}}', headers: { 'content-type': 'application/json' } })
  t.equal(proto.status, 400, 'a __proto__ key is refused, in any body')
  t.match(proto.body.message, /__proto__/, 'naming it')
  t.equal((await api(server, 'GET', '/api/admin/tag-types')).body.tagTypes.some((type: { name: string }) => type.name === 'team'), false, 'and nothing was created')

  const open: [string, string, string, unknown, number, string?][] = [
    ['a new flag (createFeatureSchema)', 'POST', '/api/admin/projects/default/features', { name: 'open-flag', colour: 'red' }, 201],
    ['a flag update (updateFeatureSchema)', 'PUT', '/api/admin/projects/default/features/target', { description: 'd', type: 'release', colour: 'red' }, 200],
    ['a strategy, at its top (createFeatureStrategySchema)', 'POST', strategies, { name: 'default', colour: 'red' }, 200],
    ['the playground (playgroundRequestSchema)', 'POST', '/api/admin/playground', { environment: 'development', projects: '*', context: { appName: 'a', colour: 'red' }, colour: 'red' }, 200],
    ['an SDK registration (clientApplicationSchema)', 'POST', '/api/client/register', { appName: 'a', instanceId: 'i', interval: 1000, started: new Date().toISOString(), strategies: [], colour: 'red' }, 202, clientToken],
    ['a frontend context (frontendApiFeaturesPostContextSchema)', 'POST', '/api/frontend', { context: { userId: 'u', colour: 'red' }, colour: 'red' }, 200, frontendToken],
  ]
  for (const [what, method, path, body, status, token] of open) {
    const res = await api(server, method, path, body, token)
    t.equal(res.status, status, `${what}: ${status}`)
  }
})

t.test('a body that is not an object at all keeps its own message', async (t) => {
  const server = await startTestServer(t)
  const res = await request(server, { method: 'POST', path: '/api/admin/tag-types', body: '"not an object"', headers: { 'content-type': 'application/json' } })
  t.equal(res.status, 400)
  t.notMatch(res.body.message, /additional properties/)
})
