import t from 'tap'
import { request, type ServerRef } from '../helpers/admin-api.js'
import { createPerson, defaultAdminPassword, login, sessionOf, startPeopleServer } from '../helpers/people.js'

// A sign-in as a client behind the proxy (TRUST_PROXY=1) would make it: the proxy's X-Forwarded-For.
const loginFrom = (server: ServerRef, address: string, username: string, password: string) =>
  request(server, { method: 'POST', path: '/auth/simple/login', token: null, body: { username, password }, headers: { 'x-forwarded-for': address } })

const attacker = '198.51.100.66'
const owner = '203.0.113.7'

t.test('forty wrong passwords, then the right one, is a 429', async (t) => {
  const server = await startPeopleServer(t, { env: { LOGIN_MAX_FAILURES_PER_MINUTE: '10' } })
  const statuses: number[] = []
  for (let i = 0; i < 40; i++) statuses.push((await login(server, 'admin', `wrong-${i}`)).status)
  t.same(statuses.slice(0, 10), Array(10).fill(401), 'the first ten are plain failures')
  t.same(statuses.slice(10), Array(30).fill(429), 'then every attempt is throttled')
  const right = await login(server, 'admin', defaultAdminPassword)
  t.equal(right.status, 429)
  t.equal(right.body.name, 'RateLimitError')
  t.notOk(sessionOf(right), 'and no session is given')
})

t.test('the session cookie is Secure behind an https proxy, or always when configured', async (t) => {
  const auto = await startPeopleServer(t)
  const plain = await login(auto, 'admin', defaultAdminPassword)
  t.notMatch(plain.headers.get('set-cookie') ?? '', /Secure/, 'not over plain http')
  const proxied = await fetch(`${auto.baseUrl}/auth/simple/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
    body: JSON.stringify({ username: 'admin', password: defaultAdminPassword }),
  })
  t.match(proxied.headers.get('set-cookie') ?? '', /; Secure/, 'behind an https proxy')
  const always = await startPeopleServer(t, { env: { SECURE_COOKIES: 'true' } })
  t.match((await login(always, 'admin', defaultAdminPassword)).headers.get('set-cookie') ?? '', /; Secure/, 'SECURE_COOKIES=true')
})

t.test("a username and the same user's email share one count", async (t) => {
  const server = await startPeopleServer(t, { env: { LOGIN_MAX_FAILURES_PER_MINUTE: '4' } })
  const alice = await createPerson(server, { username: 'alice', email: 'Alice@Example.com', rootRole: 'Viewer' })
  const statuses: number[] = []
  for (const name of ['alice', 'alice', 'alice@example.com', 'ALICE@example.com', 'alice@example.com', 'alice']) {
    statuses.push((await login(server, name, 'wrong-password')).status)
  }
  t.same(statuses, [401, 401, 401, 401, 429, 429], 'four guesses in all, however the account is named')
  t.equal((await login(server, alice.email, alice.password)).status, 429, 'the right password is refused too, from this address')
})

t.test('a guesser throttles the account at its own address only: its owner elsewhere signs in', async (t) => {
  const server = await startPeopleServer(t, { env: { LOGIN_MAX_FAILURES_PER_MINUTE: '3', TRUST_PROXY: '1' } })
  const statuses: number[] = []
  for (let i = 0; i < 5; i++) statuses.push((await loginFrom(server, attacker, 'admin', `wrong-${i}`)).status)
  t.same(statuses, [401, 401, 401, 429, 429])
  const atAttackers = await loginFrom(server, attacker, 'admin', defaultAdminPassword)
  t.equal(atAttackers.status, 429, 'from the guessing address even the right password waits')
  const owners = await loginFrom(server, owner, 'admin', defaultAdminPassword)
  t.equal(owners.status, 200, 'from another address the owner signs in')
  t.ok(sessionOf(owners))
  t.equal((await loginFrom(server, `${attacker}, ${owner}`, 'admin', 'wrong')).status, 401, 'the client-written part of X-Forwarded-For is not believed...')
  t.equal((await loginFrom(server, `${owner}, ${attacker}`, 'admin', defaultAdminPassword)).status, 429, '...the entry the proxy added is')
})

t.test('one address guessing at many accounts meets the per-address limit', async (t) => {
  const server = await startPeopleServer(t, { env: { LOGIN_MAX_FAILURES_PER_MINUTE: '2', TRUST_PROXY: '1' } })
  const statuses: number[] = []
  for (let i = 0; i < 20; i++) statuses.push((await loginFrom(server, attacker, `someone-${i}`, 'Guess-1234!')).status)
  t.same(statuses, Array(20).fill(401), 'twenty accounts, one guess each: ten times the per-account limit')
  t.equal((await loginFrom(server, attacker, 'someone-new', 'Guess-1234!')).status, 429, 'the 21st from that address waits')
  t.equal((await loginFrom(server, attacker, 'admin', defaultAdminPassword)).status, 429, 'whatever the account')
  t.equal((await loginFrom(server, owner, 'admin', defaultAdminPassword)).status, 200, 'other addresses are not held back')
})

t.test('a 429 says in Retry-After how many seconds to wait', async (t) => {
  const server = await startPeopleServer(t, { env: { LOGIN_MAX_FAILURES_PER_MINUTE: '1' } })
  t.equal((await login(server, 'admin', 'wrong')).status, 401)
  const throttled = await login(server, 'admin', 'wrong')
  t.equal(throttled.status, 429)
  const retryAfter = throttled.headers.get('retry-after')
  t.match(retryAfter, /^\d+$/, 'whole seconds')
  t.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, `within the minute (${retryAfter})`)
  t.equal(throttled.body.retryAfter, Number(retryAfter), 'the body says the same')
  t.equal(throttled.body.message, `Too many failed logins: try again in ${retryAfter} seconds.`)
})

t.test('without TRUST_PROXY, X-Forwarded-For is ignored: the socket address is the client', async (t) => {
  const server = await startPeopleServer(t, { env: { LOGIN_MAX_FAILURES_PER_MINUTE: '3' } })
  for (let i = 0; i < 3; i++) t.equal((await loginFrom(server, `198.51.100.${i}`, 'admin', 'wrong')).status, 401)
  t.equal((await loginFrom(server, owner, 'admin', defaultAdminPassword)).status, 429, 'a forged address does not escape the count')
})
