// Records what Unleash 8.2 answers for the CI migration test (migrate-fixtures.test.ts), so that test
// runs without Unleash: loads the dataset's first 40 flags into a fresh Unleash, reads it as a
// migration does (every admin request and answer kept), then keeps its client features for the
// development and production client tokens and its frontend answers for seeded contexts.
//   node --import ./scripts/ts-loader.mjs test/migrate/record-fixtures.ts http://127.0.0.1:4344 test/migrate/fixtures/unleash-8.2.json
import { writeFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { AdminApi } from '../../bench/lib/admin-api.js'
import { readUnleash } from '../../src/migrate/unleash-source.js'
import { seededContexts } from './compare.js'
import { loadDataset } from './unleash-dataset.js'

const [url, out] = process.argv.slice(2)
const admin = '*:*.unleash-insecure-admin-api-token'
const api = new AdminApi(url, admin)
await loadDataset(api, 40)
const recorded: { method: string; path: string; body: string | null; status: number; text: string }[] = []
const recording: typeof fetch = async (input, init) => {
  const response = await fetch(input, init)
  const text = await response.text()
  const { pathname, search } = new URL(String(input))
  recorded.push({ method: init?.method ?? 'GET', path: pathname + search, body: typeof init?.body === 'string' ? init.body : null, status: response.status, text })
  return new Response(text, { status: response.status, headers: response.headers })
}
await readUnleash({ url, token: admin, fetch: recording })
const tokens = ((await api.request('GET', '/api/admin/api-tokens')) as { tokens: { tokenName: string; secret: string }[] }).tokens
const secretOf = (name: string) => tokens.find((t) => t.tokenName === name)!.secret
const clientTokens = { development: 'default:development.unleash-insecure-api-token', production: secretOf('proof-prod-client') }
const frontendTokens = { development: 'default:development.unleash-insecure-frontend-api-token', production: secretOf('proof-prod-frontend') }
const get = async (path: string, token: string, body?: unknown) =>
  (await fetch(`${url}${path}`, { method: body ? 'POST' : 'GET', headers: { authorization: token, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined })).json()
// Unleash's frontend API answers from a cache refreshed after changes: wait until it stops changing.
const contexts = seededContexts(60)
let last = ''
for (;;) {
  const now = JSON.stringify(await get('/api/frontend', frontendTokens.development, { context: contexts[0] }))
  if (now === last) break
  last = now
  await sleep(2000)
}
const frontend: Record<string, unknown[]> = {}
for (const [env, token] of Object.entries(frontendTokens)) frontend[env] = await Promise.all(contexts.map((context) => get('/api/frontend', token, { context })))
const client: Record<string, unknown> = {}
for (const [env, token] of Object.entries(clientTokens)) client[env] = await get('/api/client/features', token)
writeFileSync(out, `${JSON.stringify({ url, admin: recorded, clientTokens, frontendTokens, client, contexts, frontend })}\n`)
console.log(`recorded ${recorded.length} admin answers, client features and ${contexts.length} frontend answers per environment into ${out}`)
