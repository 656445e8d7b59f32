import t from 'tap'
import { DomainError } from '../../src/domain/errors.js'
import { statusOf } from '../../src/http/errors.js'
import { Router, type Match } from '../../src/http/router.js'
import type { Method, Route } from '../../src/http/types.js'

const route = (method: Method, path: string): Route => ({ method, path, access: 'public', handler: () => ({ status: 200 }) })

const table = [
  route('GET', '/api/admin/projects'),
  route('POST', '/api/admin/projects'),
  route('GET', '/api/admin/projects/:projectId'),
  route('DELETE', '/api/admin/projects/:id'),
  route('GET', '/api/admin/projects/:projectId/features/:featureName'),
  route('GET', '/api/admin/projects/:projectId/features/:featureName/environments/:environment/variants'),
  route('POST', '/api/admin/projects/:projectId/features/:featureName/environments/:environment/on'),
  route('GET', '/api/admin/projects/:projectId/overview'),
  route('GET', '/api/admin/features/:featureName/tags'),
  route('POST', '/api/admin/features/validate'),
  route('GET', '/api/admin/archive/features'),
  route('DELETE', '/api/admin/archive/:featureName'),
  route('POST', '/api/admin/archive/revive/:featureName'),
  route('PUT', '/api/admin/environments/update/:name'),
  route('POST', '/api/admin/environments/:name/on'),
  route('GET', '/api/client/features'),
  route('GET', '/api/client/features/:featureName'),
  route('GET', '/health'),
]
const router = new Router(table)

// A request-like description of a match: which route, with which parameters.
const describe = (match: Match) =>
  match.kind === 'found' ? { kind: match.kind, route: `${match.route.method} ${match.route.path}`, params: match.params } : match

const paramsOf = (match: Match) => (match.kind === 'found' ? match.params : match)

t.test('GET /api/admin/projects is a static route', async (t) => {
  t.same(describe(router.match('GET', '/api/admin/projects')), { kind: 'found', route: 'GET /api/admin/projects', params: {} })
})

t.test('GET /api/admin/projects/web/overview: static segments win over a parameter', async (t) => {
  t.same(describe(router.match('GET', '/api/admin/projects/web/overview')), {
    kind: 'found',
    route: 'GET /api/admin/projects/:projectId/overview',
    params: { projectId: 'web' },
  })
  t.same(describe(router.match('GET', '/api/client/features')), { kind: 'found', route: 'GET /api/client/features', params: {} })
  t.same(describe(router.match('GET', '/api/client/features/x')), { kind: 'found', route: 'GET /api/client/features/:featureName', params: { featureName: 'x' } })
})

t.test('GET /api/admin/projects/web/features/checkout/environments/production/variants binds every parameter', async (t) => {
  t.same(describe(router.match('GET', '/api/admin/projects/web/features/checkout/environments/production/variants')), {
    kind: 'found',
    route: 'GET /api/admin/projects/:projectId/features/:featureName/environments/:environment/variants',
    params: { projectId: 'web', featureName: 'checkout', environment: 'production' },
  })
})

t.test('parameter names are per method on a shared path', async (t) => {
  t.same(paramsOf(router.match('GET', '/api/admin/projects/web')), { projectId: 'web' })
  t.same(paramsOf(router.match('DELETE', '/api/admin/projects/web')), { id: 'web' })
})

t.test('a trailing slash is ignored', async (t) => {
  t.same(describe(router.match('GET', '/api/admin/projects/')), { kind: 'found', route: 'GET /api/admin/projects', params: {} })
  t.same(paramsOf(router.match('GET', '/api/admin/projects/web/')), { projectId: 'web' })
  t.same(describe(router.match('GET', '/health/')), { kind: 'found', route: 'GET /health', params: {} })
})

t.test('parameters are percent-decoded segment by segment', async (t) => {
  t.same(paramsOf(router.match('GET', '/api/admin/projects/my%20project/features/a%2Fb')), { projectId: 'my project', featureName: 'a/b' }, 'an encoded slash stays inside its segment')
  t.same(paramsOf(router.match('GET', '/api/client/features/%C3%B8')), { featureName: 'ø' })
  t.same(paramsOf(router.match('GET', '/api/client/features/100%25')), { featureName: '100%' })
  t.equal(router.match('GET', '/api/admin/%70rojects').kind, 'not-found', 'static segments are not decoded')
})

t.test('a malformed escape is a 400 BadDataError', async (t) => {
  for (const path of ['/api/client/features/%E0%A4%A', '/api/client/features/%', '/api/client/features/%zz', '/api/admin/projects/%C3/features/x']) {
    let error: unknown
    try {
      router.match('GET', path)
    } catch (caught) {
      error = caught
    }
    t.ok(error instanceof DomainError, `${path} throws a DomainError`)
    if (error instanceof DomainError) {
      t.equal(error.kind, 'BadDataError')
      t.equal(statusOf(error), 400)
    }
  }
})

t.test('an unknown path is not found; a known path with another method is not allowed', async (t) => {
  t.same(router.match('GET', '/api/admin/nope'), { kind: 'not-found' })
  t.same(router.match('GET', '/api/admin/projects/web/features'), { kind: 'not-found' }, 'an inner node without routes')
  t.same(router.match('GET', '/'), { kind: 'not-found' })
  const match = router.match('PATCH', '/api/admin/projects')
  t.equal(match.kind, 'method-not-allowed')
  t.same(match.kind === 'method-not-allowed' ? [...match.allowed].sort() : [], ['GET', 'POST'])
})

// Express (and so Unleash) matches a parameter whatever the segment says: a flag may be called
// "validate", "features" or "revive", an environment "update".
t.test('a static segment that leads nowhere falls back to the parameter', async (t) => {
  t.same(describe(router.match('GET', '/api/admin/features/validate/tags')), {
    kind: 'found',
    route: 'GET /api/admin/features/:featureName/tags',
    params: { featureName: 'validate' },
  })
  t.same(describe(router.match('DELETE', '/api/admin/archive/revive')), { kind: 'found', route: 'DELETE /api/admin/archive/:featureName', params: { featureName: 'revive' } })
  t.same(describe(router.match('POST', '/api/admin/environments/update/on')), { kind: 'found', route: 'POST /api/admin/environments/:name/on', params: { name: 'update' } })
})

t.test('a static path without the method falls back to the parameter route that has it', async (t) => {
  t.same(describe(router.match('DELETE', '/api/admin/archive/features')), { kind: 'found', route: 'DELETE /api/admin/archive/:featureName', params: { featureName: 'features' } })
  t.same(describe(router.match('GET', '/api/admin/archive/features')), { kind: 'found', route: 'GET /api/admin/archive/features', params: {} }, 'the static route still wins for its own method')
  const match = router.match('PUT', '/api/admin/archive/features')
  t.equal(match.kind, 'method-not-allowed')
  t.same(match.kind === 'method-not-allowed' ? [...match.allowed].sort() : [], ['DELETE', 'GET'], 'allowed lists every route the path could reach')
})

t.test('a duplicate route is refused when the table is built', async (t) => {
  t.throws(() => new Router([route('GET', '/a/:x'), route('GET', '/a/:y')]))
  t.doesNotThrow(() => new Router([route('GET', '/a/:x'), route('PUT', '/a/:y')]))
})
