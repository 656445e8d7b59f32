import t from 'tap'
import { clientQueryFor } from '../../src/api/client.routes.js'
import type { Principal } from '../../src/http/types.js'

const principal = (projects: string[]): Principal => ({
  kind: 'client', name: 'sdk', userId: null, projects, environment: 'production', can: () => false,
})

const poll = (headers: Record<string, string>, query = '') => ({
  query: new URLSearchParams(query),
  header: (name: string) => headers[name],
  hasHeader: (name: string) => name in headers,
})

t.test('polls with the same token and spec version and no query string share one query', async (t) => {
  const sdk = principal(['beta', 'alpha'])
  const first = clientQueryFor(poll({ 'unleash-client-spec': '5.1.0' }), sdk)
  t.same(first, { environment: 'production', projects: ['alpha', 'beta'], inlineSegmentConstraints: false })
  t.equal(clientQueryFor(poll({ 'unleash-client-spec': '5.1.0' }), sdk), first, 'the second poll gets the very same object')
})

t.test('another spec version, another token or a query string gets a query of its own', async (t) => {
  const sdk = principal(['*'])
  const current = clientQueryFor(poll({ 'unleash-client-spec': '5.1.0' }), sdk)
  const old = clientQueryFor(poll({ 'unleash-client-spec': '4.1.0' }), sdk)
  t.same(old, { environment: 'production', projects: '*', inlineSegmentConstraints: true })
  const other = clientQueryFor(poll({ 'unleash-client-spec': '5.1.0' }), principal(['beta']))
  t.same(other.projects, ['beta'])
  t.not(other, current)
  const prefixed = clientQueryFor(poll({ 'unleash-client-spec': '5.1.0' }, 'namePrefix=checkout'), sdk)
  t.same(prefixed, { environment: 'production', projects: '*', namePrefix: 'checkout', inlineSegmentConstraints: false })
  t.equal(clientQueryFor(poll({ 'unleash-client-spec': '5.1.0' }), sdk), current, 'the poll without a query still gets the one it had')
})

t.test('a spec header that is not a version is refused each time, not remembered', async (t) => {
  const sdk = principal(['*'])
  t.throws(() => clientQueryFor(poll({ 'unleash-client-spec': 'v5' }), sdk), /Invalid prefix in the Unleash-Client-Spec header/)
  t.throws(() => clientQueryFor(poll({ 'unleash-client-spec': 'v5' }), sdk), /Invalid prefix in the Unleash-Client-Spec header/)
})
