import t from 'tap'
import { startTestServer } from '../helpers/server.js'

// Admin reads carry an ETag so that a polling page (the web UI) costs a bodiless 304 while nothing changed.
t.test('an admin read answers 304 to its own ETag until the data changes', async (t) => {
  const server = await startTestServer(t)
  const headers = { authorization: server.adminToken }
  const first = await fetch(`${server.baseUrl}/api/admin/projects/default/features`, { headers })
  t.equal(first.status, 200)
  const etag = first.headers.get('etag')
  t.match(etag, /^W\/"[A-Za-z0-9_-]+"$/, 'a weak ETag')
  t.match(first.headers.get('content-type'), /^application\/json/)
  t.same((await first.json()).features, [])

  const unchanged = await fetch(`${server.baseUrl}/api/admin/projects/default/features`, { headers: { ...headers, 'if-none-match': etag! } })
  t.equal(unchanged.status, 304, 'unchanged: 304')
  t.equal(await unchanged.text(), '', 'with no body')

  const created = await fetch(`${server.baseUrl}/api/admin/projects/default/features`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'etag-flag' }),
  })
  t.equal(created.status, 201)
  const changed = await fetch(`${server.baseUrl}/api/admin/projects/default/features`, { headers: { ...headers, 'if-none-match': etag! } })
  t.equal(changed.status, 200, 'changed: 200 with the new body')
  t.not(changed.headers.get('etag'), etag, 'and a new ETag')
  t.same((await changed.json()).features.map((f: { name: string }) => f.name), ['etag-flag'])
})
