import http from 'node:http'
import t from 'tap'
import { createFeature, getFeature, request, type ServerRef } from '../helpers/admin-api.js'
import { defaultAdminPassword, login, sessionCookieName, sessionOf, startPeopleServer } from '../helpers/people.js'

// A browser sends the SameSite=Lax session cookie with a bodiless POST that another page of the same
// site makes, and with top-level form posts; the server itself must tell where a write was made.

const turnOn = '/api/admin/projects/default/features/guarded/environments/production/on'
const evil = 'http://evil.example'

const signedIn = async (server: ServerRef): Promise<string> => {
  const session = sessionOf(await login(server, 'admin', defaultAdminPassword))
  if (!session) throw new Error('the admin could not sign in')
  return session
}

const withCookie = (server: ServerRef, session: string, method: string, path: string, headers: Record<string, string>) =>
  request(server, { method, path, token: null, headers: { cookie: `${sessionCookieName}=${session}`, ...headers } })

const enabledIn = async (server: ServerRef, environment: string): Promise<boolean> => {
  const feature = await getFeature(server, 'default', 'guarded')
  return feature.body.environments.find((e: { name: string }) => e.name === environment).enabled
}

// node:http, since fetch will not send a Host header of our choosing.
const rawPost = (server: ServerRef, path: string, headers: Record<string, string>): Promise<{ status: number; body: { name?: string } }> =>
  new Promise((resolve, reject) => {
    const req = http.request(`${server.baseUrl}${path}`, { method: 'POST', headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} }))
    })
    req.on('error', reject)
    req.end()
  })

t.test('a session write from another origin or site is refused; one from this origin, or from a script, is served', async (t) => {
  const server = await startPeopleServer(t)
  t.equal((await createFeature(server, 'default', 'guarded')).status, 201)
  const session = await signedIn(server)
  const own = server.baseUrl

  const foreign = await withCookie(server, session, 'POST', turnOn, { origin: evil })
  t.equal(foreign.status, 403, 'a foreign Origin')
  t.equal(foreign.body.name, 'ForbiddenError')
  t.equal(foreign.body.message, `Cross-origin request refused: Origin ${evil} is not this server's origin.`)
  t.type(foreign.body.id, 'string', 'the usual error body')
  for (const site of ['cross-site', 'same-site']) {
    const res = await withCookie(server, session, 'POST', turnOn, { 'sec-fetch-site': site })
    t.equal(res.status, 403, `Sec-Fetch-Site: ${site}`)
    t.equal(res.body.message, `Cross-origin request refused: the browser says it was made by another site (Sec-Fetch-Site: ${site}).`)
  }
  const sameSiteOwnOrigin = await withCookie(server, session, 'POST', turnOn, { origin: own, 'sec-fetch-site': 'same-site' })
  t.equal(sameSiteOwnOrigin.status, 403, 'Sec-Fetch-Site: same-site is refused even beside an Origin that matches')
  t.equal(await enabledIn(server, 'production'), false, 'nothing refused was done')
  for (const method of ['PUT', 'PATCH', 'DELETE']) {
    const res = await withCookie(server, session, method, '/api/admin/projects/default/features/guarded', { origin: 'null' })
    t.equal(res.status, 403, `${method} with Origin: null`)
  }

  const same = await withCookie(server, session, 'POST', turnOn, { origin: own, 'sec-fetch-site': 'same-origin' })
  t.equal(same.status, 200, 'this origin')
  t.equal(await enabledIn(server, 'production'), true)
  const script = await withCookie(server, session, 'POST', '/api/admin/projects/default/features/guarded/environments/production/off', {})
  t.equal(script.status, 200, 'no Origin and no Sec-Fetch-Site: a script')
  const read = await withCookie(server, session, 'GET', '/api/admin/projects/default/features/guarded', { origin: evil, 'sec-fetch-site': 'cross-site' })
  t.equal(read.status, 200, 'reads are not writes')

  const byToken = await request(server, { method: 'POST', path: turnOn, headers: { origin: evil, 'sec-fetch-site': 'cross-site' } })
  t.equal(byToken.status, 200, 'a token is not sent by a browser on its own')

  const bothHeaders = await request(server, { method: 'POST', path: turnOn, headers: { origin: evil, cookie: `${sessionCookieName}=${session}` } })
  t.equal(bothHeaders.status, 200, 'a token beside the cookie: the token is the credential')
})

t.test('signing in from another origin is refused (login CSRF); from this origin it works', async (t) => {
  const server = await startPeopleServer(t)
  const body = { username: 'admin', password: defaultAdminPassword }
  const foreign = await request(server, { method: 'POST', path: '/auth/simple/login', token: null, body, headers: { origin: evil } })
  t.equal(foreign.status, 403)
  t.equal(foreign.body.name, 'ForbiddenError')
  t.notOk(sessionOf(foreign), 'no session is given')
  const crossSite = await request(server, { method: 'POST', path: '/auth/simple/login', token: null, body, headers: { 'sec-fetch-site': 'cross-site' } })
  t.equal(crossSite.status, 403)
  const own = await request(server, { method: 'POST', path: '/auth/simple/login', token: null, body, headers: { origin: server.baseUrl, 'sec-fetch-site': 'same-origin' } })
  t.equal(own.status, 200)
  t.ok(sessionOf(own))
})

t.test('without UNLEASH_URL the Host header names this origin, http or https', async (t) => {
  const server = await startPeopleServer(t)
  t.equal((await createFeature(server, 'default', 'guarded')).status, 201)
  const session = await signedIn(server)
  const headers = (origin: string) => ({ host: 'flags.example:8443', origin, cookie: `${sessionCookieName}=${session}` })
  t.equal((await rawPost(server, turnOn, headers('https://flags.example:8443'))).status, 200, 'https')
  t.equal((await rawPost(server, turnOn, headers('http://FLAGS.example:8443'))).status, 200, 'http, any case')
  t.equal((await rawPost(server, turnOn, headers('https://flags.example'))).status, 403, 'another port')
  t.equal((await rawPost(server, turnOn, headers('https://other.example:8443'))).status, 403, 'another host')
  t.equal((await rawPost(server, turnOn, headers(server.baseUrl))).status, 403, 'the address listened on is not the Host asked for')
})

t.test('with UNLEASH_URL only its origin (and CSRF_ALLOWED_ORIGINS) may write', async (t) => {
  const server = await startPeopleServer(t, {
    env: { UNLEASH_URL: 'https://flags.example.com/unleash/', CSRF_ALLOWED_ORIGINS: 'https://admin.example.com' },
  })
  t.equal((await createFeature(server, 'default', 'guarded')).status, 201)
  const session = await signedIn(server)
  const post = (headers: Record<string, string>) => withCookie(server, session, 'POST', turnOn, headers)
  t.equal((await post({ origin: 'https://flags.example.com', 'sec-fetch-site': 'same-origin' })).status, 200, "UNLEASH_URL's origin")
  t.equal((await post({ origin: server.baseUrl })).status, 403, 'the Host is not consulted')
  t.equal((await post({ origin: 'http://flags.example.com' })).status, 403, 'nor another scheme')
  t.equal((await post({ origin: 'https://admin.example.com', 'sec-fetch-site': 'same-site' })).status, 200, 'an allowed origin, same-site as it is')
  t.equal((await post({ origin: 'https://admin.example.com:444' })).status, 403, 'an allowed origin names its port')
})
