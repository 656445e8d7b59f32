// The first frontend answer after a write (issue 26): each write used to make the next frontend answer sort
// every flag name again and walk every flag twice. On a copy of a seeded data directory, POST /api/frontend
// with a context not answered before (so that it is evaluated), `--rounds` times without writes and then
// as often right after toggling one flag; p50 and p90 of each, in ms, and the difference.
// Run: node dist/bench/startup-memory.js --flags 50000 --data /tmp/d50k --seed-only
//      node dist/bench/frontend-after-write.js --data /tmp/d50k [--rounds 40]
// BENCH_SERVER_MAIN=path/to/main.js measures another build.
import { cpSync, rmSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { startFlagServer, tempDir } from './lib/child-server.js'
import { fixed } from './lib/format-table.js'

const { values: args } = parseArgs({ options: { data: { type: 'string' }, rounds: { type: 'string' } } })
if (!args.data) throw new Error('--data: a data directory seeded by startup-memory.js --seed-only')
const rounds = Number(args.rounds ?? 40)

const adminToken = '*:*.frontend-after-write-admin'
const frontendToken = 'default:development.frontend-after-write'
const root = tempDir('frontend-after-write-')
const dataDir = path.join(root, 'data')
cpSync(path.resolve(args.data), dataDir, { recursive: true })
const server = await startFlagServer({
  adminToken,
  clientToken: '*:development.frontend-after-write-client',
  dataDir,
  script: process.env.BENCH_SERVER_MAIN ? path.resolve(process.env.BENCH_SERVER_MAIN) : undefined,
  env: { INIT_FRONTEND_API_TOKENS: frontendToken },
})
try {
  const flags = await fetch(`${server.url}/api/admin/projects/default/features`, { headers: { authorization: adminToken } }).then((r) => r.json() as Promise<{ features: { name: string }[] }>)
  const names = flags.features.map((f) => f.name)
  const frontend = async (userId: string): Promise<number> => {
    const began = performance.now()
    const response = await fetch(`${server.url}/api/frontend`, {
      method: 'POST',
      headers: { authorization: frontendToken, 'content-type': 'application/json' },
      body: JSON.stringify({ context: { userId } }),
    })
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`POST /api/frontend: ${response.status}`)
    return performance.now() - began
  }
  const toggle = async (i: number): Promise<void> => {
    const name = encodeURIComponent(names[i % names.length])
    const response = await fetch(`${server.url}/api/admin/projects/default/features/${name}/environments/development/${i % 2 ? 'on' : 'off'}`, { method: 'POST', headers: { authorization: adminToken } })
    await response.arrayBuffer()
    if (response.status >= 300) throw new Error(`toggle: ${response.status}`)
  }
  await frontend('warm-up')
  const quiet: number[] = []
  const afterWrite: number[] = []
  for (let i = 0; i < rounds; i++) quiet.push(await frontend(`quiet-${i}`))
  for (let i = 0; i < rounds; i++) {
    await toggle(i)
    afterWrite.push(await frontend(`after-${i}`))
  }
  const at = (list: number[], q: number) => [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(q * list.length))]
  console.log(`frontend-after-write: ${names.length.toLocaleString('en')} flags, ${rounds} answers each (${server.name}, ${process.env.BENCH_SERVER_MAIN ?? 'this build'})`)
  console.log(`  no write:          p50 ${fixed(at(quiet, 0.5), 2)} ms, p90 ${fixed(at(quiet, 0.9), 2)} ms`)
  console.log(`  right after one:   p50 ${fixed(at(afterWrite, 0.5), 2)} ms, p90 ${fixed(at(afterWrite, 0.9), 2)} ms`)
  console.log(`  the write's cost to the next answer: ${fixed(at(afterWrite, 0.5) - at(quiet, 0.5), 2)} ms at p50`)
} finally {
  await server.stop()
  rmSync(root, { recursive: true, force: true })
}
