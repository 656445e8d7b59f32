import t from 'tap'
import { defaultAdminPassword, login, sessionOf, startPeopleServer } from '../helpers/people.js'

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
