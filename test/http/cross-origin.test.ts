import t from 'tap'
import { crossOriginRefusal, type OriginPolicy } from '../../src/http/cross-origin.js'

const byHost: OriginPolicy = { publicOrigin: undefined, allowed: new Set() }
const byUrl: OriginPolicy = { publicOrigin: 'https://flags.example.com', allowed: new Set(['https://admin.example.com']) }

const verdict = (policy: OriginPolicy, origin?: string, fetchSite?: string, host = 'flags.example.com') =>
  crossOriginRefusal(policy, origin, fetchSite, host)?.message ?? 'served'

t.test('without a public origin the Host header names this origin, http or https', async (t) => {
  t.equal(verdict(byHost, 'https://flags.example.com'), 'served')
  t.equal(verdict(byHost, 'http://flags.example.com'), 'served')
  t.equal(verdict(byHost, 'http://localhost:4242', undefined, 'LOCALHOST:4242'), 'served', 'case-blind')
  t.equal(verdict(byHost, 'http://[::1]:4242', undefined, '[::1]:4242'), 'served', 'IPv6')
  t.equal(verdict(byHost, 'http://evil.example'), "Cross-origin request refused: Origin http://evil.example is not this server's origin.")
  t.match(verdict(byHost, 'https://flags.example.com:8443'), /refused/, 'another port is another origin')
  t.ok(crossOriginRefusal(byHost, 'https://flags.example.com', undefined, undefined), 'no Host, no match')
  t.match(verdict(byHost, 'ftp://flags.example.com'), /refused/, 'not http(s)')
  t.match(verdict(byHost, 'null'), /Origin null is not/, 'an opaque origin is no one\'s')
  t.match(verdict(byHost, 'garbage'), /refused/)
})

t.test('with a public origin only it and the allowed ones write, whatever the Host', async (t) => {
  t.equal(verdict(byUrl, 'https://flags.example.com', 'same-origin', 'internal:4242'), 'served')
  t.match(verdict(byUrl, 'http://internal:4242', undefined, 'internal:4242'), /refused/)
  t.match(verdict(byUrl, 'http://flags.example.com'), /refused/, 'another scheme')
  t.equal(verdict(byUrl, 'https://admin.example.com', 'same-site'), 'served', 'an allowed origin is same-site or cross-site, as it should be')
  t.equal(verdict(byUrl, 'https://ADMIN.example.com:443', 'cross-site'), 'served', 'compared as origins')
})

t.test('Sec-Fetch-Site says where a browser made the request', async (t) => {
  t.equal(verdict(byHost, undefined, 'same-origin'), 'served')
  t.equal(verdict(byHost, undefined, 'none'), 'served', 'the user did it (a typed address)')
  t.equal(verdict(byHost, undefined, 'cross-site'), 'Cross-origin request refused: the browser says it was made by another site (Sec-Fetch-Site: cross-site).')
  t.match(verdict(byHost, undefined, 'same-site'), /same-site/, 'same-site is not same-origin')
  t.match(verdict(byHost, 'https://flags.example.com', 'same-site'), /Sec-Fetch-Site: same-site/, 'even beside a matching Origin')
  t.equal(verdict(byHost), 'served', 'neither header: not a browser')
})

t.test('a long Origin is cut in the message', async (t) => {
  const message = verdict(byHost, `http://${'a'.repeat(300)}.example`)
  t.ok(message.length < 200)
})
