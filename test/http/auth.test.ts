import t from 'tap'
import { DomainError } from '../../src/domain/errors.js'
import { authenticate, authorize, cookieValue, permissionDenied, sessionCookie } from '../../src/http/auth.js'
import { statusOf } from '../../src/http/errors.js'
import type { Access, Authenticator, Principal } from '../../src/http/types.js'

// SEMANTICS 7.1 and 7.3.

const principal = (kind: Principal['kind'], name: string, permissions: string[] = []): Principal => ({
  kind,
  name,
  userId: null,
  projects: ['*'],
  environment: 'development',
  can: (permission) => kind === 'admin' || permissions.includes(permission),
})

const tokens = new Map<string, Principal>([
  ['*:development.client', principal('client', 'backend token')],
  ['*:development.frontend', principal('frontend', 'frontend token')],
  ['*:*.admin', principal('admin', 'admin token')],
  ['user:pat', principal('user', 'pat user', ['UPDATE_FEATURE'])],
])
const sessions = new Map<string, Principal>([['session-1', principal('user', 'session user')]])

const authenticator: Authenticator = {
  byToken: (secret) => tokens.get(secret),
  bySession: (id) => sessions.get(id),
}

const run = (access: Access, headers: { authorization?: string; cookie?: string }): Principal | DomainError | undefined => {
  try {
    return authenticate(access, headers.authorization, () => headers.cookie, authenticator)
  } catch (error) {
    if (error instanceof DomainError) return error
    throw error
  }
}

const apiTokenRequired = 'This endpoint requires an API token. Please add an authorization header to your request with a valid token'
const wrongTokenType = 'invalid token: expected a different token type for this endpoint'

const asError = (value: ReturnType<typeof run>) => (value instanceof DomainError ? { kind: value.kind, status: statusOf(value), message: value.message } : value)
const statusFor = (value: ReturnType<typeof run>) => (value instanceof DomainError ? statusOf(value) : undefined)
const refusal = (value: ReturnType<typeof run>) => (value instanceof DomainError ? [statusOf(value), value.message] : value)

t.test('the Authorization header', async (t) => {
  t.test('a leading Bearer is stripped, in any case', async (t) => {
    for (const header of ['*:development.client', 'Bearer *:development.client', 'bearer *:development.client', 'BEARER *:development.client', 'Bearer   *:development.client', '  *:development.client  ']) {
      const result = run('client', { authorization: header })
      t.equal(result instanceof DomainError ? result.kind : result?.name, 'backend token', JSON.stringify(header))
    }
  })

  t.test('a secret is looked up exactly', async (t) => {
    t.equal(statusFor(run('client', { authorization: '*:development.CLIENT' })), 401)
    t.equal(statusFor(run('client', { authorization: 'Bearer' })), 401, 'Bearer alone is no credential')
    t.equal(statusFor(run('client', { authorization: '' })), 401, 'an empty header is no credential')
  })
})

t.test('client API (/api/client/*): backend and client tokens', async (t) => {
  t.equal((run('client', { authorization: '*:development.client' }) as Principal).kind, 'client')
  t.same(asError(run('client', {})), { kind: 'AuthenticationRequired', status: 401, message: apiTokenRequired }, 'no header')
  t.same(asError(run('client', { authorization: 'unknown' })), { kind: 'AuthenticationRequired', status: 401, message: apiTokenRequired }, 'unknown or expired token')
  for (const wrong of ['*:development.frontend', '*:*.admin', 'user:pat']) {
    t.same(refusal(run('client', { authorization: wrong })), [403, wrongTokenType], `${wrong} is the wrong kind`)
  }
  t.same(asError(run('client', { cookie: `${sessionCookie}=session-1` })), { kind: 'AuthenticationRequired', status: 401, message: apiTokenRequired }, 'a session cookie is not a token')
})

t.test('frontend API (/api/frontend*): frontend tokens', async (t) => {
  t.equal((run('frontend', { authorization: '*:development.frontend' }) as Principal).kind, 'frontend')
  t.same(asError(run('frontend', {})), { kind: 'AuthenticationRequired', status: 401, message: apiTokenRequired })
  t.same(asError(run('frontend', { authorization: 'nope' })), { kind: 'AuthenticationRequired', status: 401, message: apiTokenRequired })
  for (const wrong of ['*:development.client', '*:*.admin', 'user:pat']) {
    t.same(refusal(run('frontend', { authorization: wrong })), [403, wrongTokenType], `${wrong} is the wrong kind`)
  }
})

t.test('admin API (/api/admin/*): sessions, PATs and admin tokens', async (t) => {
  t.equal((run('admin', { authorization: '*:*.admin' }) as Principal).name, 'admin token')
  t.equal((run('admin', { authorization: 'Bearer user:pat' }) as Principal).name, 'pat user')
  t.equal((run('admin', { cookie: `other=1; ${sessionCookie}=session-1` }) as Principal).name, 'session user')

  t.test('no credential: AuthenticationRequired with where to log in', async (t) => {
    const error = run('admin', {})
    t.ok(error instanceof DomainError)
    if (!(error instanceof DomainError)) return
    t.equal(error.kind, 'AuthenticationRequired')
    t.equal(statusOf(error), 401)
    t.equal(error.message, 'You must log in to use Unleash. Your request had no authorization header, so we could not authorize you. Try logging in at /auth/simple/login')
    t.match(error.extra, { path: '/auth/simple/login', type: 'password', defaultHidden: false })
  })

  t.test('a credential that names no one: UnauthorizedError', async (t) => {
    for (const headers of [{ authorization: 'nope' }, { authorization: 'Bearer *:*.expired' }, { cookie: `${sessionCookie}=gone` }]) {
      t.same(asError(run('admin', headers)), { kind: 'UnauthorizedError', status: 401, message: 'You must log in to use Unleash.' }, JSON.stringify(headers))
    }
  })

  t.test('client and frontend tokens are the wrong kind', async (t) => {
    for (const wrong of ['*:development.client', '*:development.frontend']) {
      t.same(refusal(run('admin', { authorization: wrong })), [403, wrongTokenType], wrong)
    }
  })

  t.test('the Authorization header wins over the session cookie', async (t) => {
    t.equal(statusFor(run('admin', { authorization: 'nope', cookie: `${sessionCookie}=session-1` })), 401)
  })
})

t.test('public routes never refuse, but still say who is calling', async (t) => {
  t.equal(run('public', {}), undefined)
  t.equal(run('public', { authorization: 'nope' }), undefined)
  t.equal((run('public', { authorization: '*:*.admin' }) as Principal).name, 'admin token')
})

t.test('cookies', async (t) => {
  t.equal(cookieValue(`a=1; ${sessionCookie}=abc; b=2`, sessionCookie), 'abc')
  t.equal(cookieValue(`x${sessionCookie}=abc`, sessionCookie), undefined, 'the name must match exactly')
  t.equal(cookieValue(undefined, sessionCookie), undefined)
})

t.test('permissions (SEMANTICS 7.4)', async (t) => {
  const one = permissionDenied(['UPDATE_FEATURE'])
  const message = 'You don\'t have the required permissions to perform this operation. To perform this action, you need the "UPDATE_FEATURE" permission.'
  t.equal(statusOf(one), 403)
  t.equal(one.message, message)
  t.same(one.details, [{ message }])
  t.same(one.extra, { permissions: ['UPDATE_FEATURE'] })
  t.equal(one.kind, 'PermissionError', 'a missing permission is a PermissionError (SEMANTICS 7.4)')
  t.equal(
    permissionDenied(['CREATE_FEATURE_STRATEGY', 'UPDATE_PROJECT'], 'production').message,
    'You don\'t have the required permissions to perform this operation. To perform this action, you need one of the following permissions: "CREATE_FEATURE_STRATEGY", "UPDATE_PROJECT" in the "production" environment.',
  )
  t.doesNotThrow(() => authorize(principal('admin', 'admin'), 'ANYTHING'), 'admins hold every permission')
  t.doesNotThrow(() => authorize(tokens.get('user:pat'), ['DELETE_FEATURE', 'UPDATE_FEATURE']), 'one of several is enough')
  t.throws(() => authorize(tokens.get('user:pat'), 'DELETE_FEATURE'))
  t.throws(() => authorize(undefined, 'UPDATE_FEATURE'), 'no principal holds nothing')
})
