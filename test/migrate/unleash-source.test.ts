import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { readUnleash } from '../../src/migrate/unleash-source.js'
import { startFakeSource, type RecordedAnswer } from './fake-source.js'

const recorded = (JSON.parse(readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/unleash-8.2.json'), 'utf8')) as { admin: RecordedAnswer[] }).admin
const token = '*:*.unleash-insecure-admin-api-token'

t.test('reads the recorded Unleash 8.2 whole: archived flags through the export with their strategies in order', async (t) => {
  const source = await startFakeSource(recorded, token)
  t.teardown(() => source.close())
  const lines: string[] = []
  const data = await readUnleash({ url: `${source.url}/`, token, progress: (line) => lines.push(line) })
  t.equal(data.url, source.url, 'a trailing slash is dropped')
  t.equal(data.version, '8.2.0')
  t.equal(data.flags.length, 40)
  const archived = data.flags.filter((f) => f.archived)
  t.equal(archived.length, 1)
  t.same(archived[0].environments.map((e) => e.name), ['development', 'production'], 'every environment of the archived flag')
  t.same(archived[0].environments[0].strategies.map((s) => s.sortOrder), archived[0].environments[0].strategies.map((_, i) => i), 'sort order from the export order')
  t.ok(data.flags.some((f) => f.tags.length > 0), 'tags read per flag')
  t.same(data.unread, [{ what: 'groups', why: 'not readable: /api/admin/groups answered 404 (an Enterprise feature, or not in this version)' }])
  t.match(lines, [/^reading http/, /^read 2 environments, 1 projects/, /^reading 39 flags and 1 archived ones$/, /^read 39 of 39 flags$/, /^read 5 API tokens, 2 users$/])
})

t.test('groups an Enterprise Unleash shows are named as not copied, one by one', async (t) => {
  const withGroups = recorded.map((a) => (a.path === '/api/admin/groups' ? { ...a, status: 200, text: JSON.stringify({ groups: [{ id: 1, name: 'ops' }, { id: 2, name: 'dev' }] }) } : a))
  const source = await startFakeSource(withGroups, token)
  t.teardown(() => source.close())
  const data = await readUnleash({ url: source.url, token })
  t.same(data.unread.map((u) => u.why), ['group ops: groups are not copied; re-create it and its members here', 'group dev: groups are not copied; re-create it and its members here'])
})

t.test('a refusal other than a missing endpoint ends the read with the source answer', async (t) => {
  const source = await startFakeSource(recorded, token)
  t.teardown(() => source.close())
  await t.rejects(readUnleash({ url: source.url, token: '*:*.other' }), /GET \/api\/admin\/ui-config: 401/)
})
