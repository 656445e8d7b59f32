import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { loadConfig } from '../../src/config.js'
import { startServer } from '../../src/server.js'

// Every route, every kind of hostile input: the answer is never a 500 and never leaks internals.
const adminToken = `*:*.${randomBytes(28).toString('hex')}`
const clientToken = `*:development.${randomBytes(28).toString('hex')}`
const frontendToken = `*:development.${randomBytes(20).toString('hex')}`

const hostileBodies: [string, string][] = [
  ['empty', ''],
  ['null', 'null'],
  ['an array', '[]'],
  ['a string', '"x"'],
  ['a number past 2^53', '{"id":9007199254740993,"name":9007199254740993,"weight":1e400,"expiresAt":1e308}'],
  ['__proto__', '{"__proto__":{"polluted":true},"name":"x"}'],
  ['constructor key', '{"constructor":{"prototype":{"polluted":true}}}'],
  ['nested nulls', '{"name":null,"constraints":[null],"variants":[{}],"parameters":{"a":{}},"features":[null],"roles":[null]}'],
  ['wrong types everywhere', '{"name":[],"type":{},"enabled":"yes","environment":5,"projects":"*","context":[]}'],
  ['deep nesting', `${'['.repeat(5000)}${']'.repeat(5000)}`],
  ['a large string', JSON.stringify({ name: 'n'.repeat(300_000), description: 'd'.repeat(300_000) })],
  ['invalid JSON', '{"name": "x",'],
  ['NUL bytes', '{"name":"a\\u0000b","value":"\\u0000"}'],
]

const hostileParams = ['%00', 'x%zz', '..', '__proto__', 'a'.repeat(2000), '9007199254740993', '-1', '%E2%28%A1']

const leaksInternals = (text: string) => /\bat [\w.<>]+ \(|node_modules|\/work\/|TypeError|ReferenceError|stack/i.test(text)

t.test('no route answers hostile input with a 500 or internal text', async (t) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'route-fuzz-'))
  const server = await startServer(
    loadConfig({
      HTTP_PORT: '0',
      DATA_DIR: dataDir,
      INIT_ADMIN_API_TOKENS: adminToken,
      INIT_CLIENT_API_TOKENS: clientToken,
      INIT_FRONTEND_API_TOKENS: frontendToken,
      UNLEASH_DEFAULT_ADMIN_PASSWORD: 'Fuzz-Passw0rd!',
    }),
  )
  t.teardown(async () => {
    await server.close()
    rmSync(dataDir, { recursive: true, force: true })
  })
  const base = `http://127.0.0.1:${server.port}`
  const call = async (method: string, url: string, token: string | undefined, body?: string) => {
    const response = await fetch(base + url, {
      method,
      headers: { ...(token ? { authorization: token } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: method === 'GET' ? undefined : body,
    })
    return { status: response.status, text: await response.text() }
  }
  // A flag with a strategy, so that routes under it reach their handlers.
  await call('POST', '/api/admin/projects/default/features', adminToken, '{"name":"fuzzed"}')
  const added = await call('POST', '/api/admin/projects/default/features/fuzzed/environments/development/strategies', adminToken, '{"name":"default"}')
  const strategyId = JSON.parse(added.text).id as string
  const sample: Record<string, string> = {
    projectId: 'default',
    featureName: 'fuzzed',
    child: 'fuzzed',
    parent: 'fuzzed',
    environment: 'development',
    strategyId,
    name: 'default',
    id: '1',
    userId: '1',
    groupId: '1',
    changeId: '1',
    tokenId: '1',
    token: 'nope',
    type: 'simple',
    value: 'vv',
  }
  const tokenFor = (access: string) =>
    access === 'client' ? clientToken : access === 'frontend' ? frontendToken : access === 'admin' ? adminToken : undefined
  const fill = (pattern: string, override?: string) =>
    pattern.replace(/:(\w+)/g, (_, name: string) => override ?? encodeURIComponent(sample[name] ?? 'x'))

  let requests = 0
  const failures: string[] = []
  const check = async (method: string, url: string, token: string | undefined, body: string | undefined, what: string) => {
    requests++
    const { status, text } = await call(method, url, token, body)
    if (status >= 500) failures.push(`${what}: ${status} ${text.slice(0, 200)}`)
    else if (status >= 400 && leaksInternals(text)) failures.push(`${what}: leaks internals: ${text.slice(0, 200)}`)
  }
  for (const route of server.routes) {
    const token = tokenFor(route.access)
    const url = fill(route.path)
    // Destructive routes last would change the fixture; the project and flag are recreated if gone.
    if (route.method !== 'GET') {
      for (const [label, body] of hostileBodies) await check(route.method, url, token, body, `${route.method} ${route.path} with ${label}`)
    } else {
      await check('GET', `${url}?q=%zz&project=%00&namePrefix=${'n'.repeat(3000)}&tag=a&environment=__proto__`, token, undefined, `GET ${route.path} with a hostile query`)
    }
    if (route.path.includes(':')) {
      for (const param of hostileParams) {
        await check(route.method, fill(route.path, param), token, route.method === 'GET' ? undefined : '{}', `${route.method} ${route.path} with parameter ${param.slice(0, 20)}`)
      }
    }
    await call('POST', '/api/admin/projects/default/features', adminToken, '{"name":"fuzzed"}')
  }
  t.ok(requests > 1000, `sent ${requests} hostile requests over ${server.routes.length} routes`)
  t.same(failures, [], 'no 500s and no internals in error bodies')
})
