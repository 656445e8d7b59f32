import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { createApiToken } from '../helpers/admin-api.js'
import { builtMain, startTestServer } from '../helpers/server.js'

// Smoke test of `npm run bench` (bench/run.ts): one short round of each HTTP case against a test server,
// through --target, so the harness cannot rot. It checks what the report holds, never a timing.
// About 15 s of runs and seeding: more than tap's default on a busy machine.
t.setTimeout(120_000)

const runScript = path.join(path.dirname(builtMain), '..', 'bench', 'run.js')

const run = (args: string[]) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, [runScript, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', (code) => resolve({ code, output }))
  })

const secretOf = async (server: Parameters<typeof createApiToken>[0], type: string) => {
  const res = await createApiToken(server, { type, environment: 'development', tokenName: `bench-${type}` })
  if (res.status !== 201) throw new Error(`${type} token: ${res.status} ${res.text}`)
  return res.body.secret as string
}

t.test('the harness seeds a target, runs each HTTP case beside the bare uWS baseline and writes its reports', async (t) => {
  const server = await startTestServer(t)
  const dir = t.testdir()
  const cases = ['client', 'client_gzip', 'client_304', 'frontend', 'ofrep', 'playground', 'writes', 'creates']
  const { code, output } = await run([
    '--target', server.baseUrl,
    '--admin-token', server.adminToken,
    '--client-token', await secretOf(server, 'client'),
    '--frontend-token', await secretOf(server, 'frontend'),
    '--flags', '20', '--connections', '2', '--duration', '0.5', '--warmup', '0.1', '--rounds', '1',
    '--cases', cases.join(','),
    '--results-dir', dir,
    '--json', path.join(dir, 'copy.json'),
  ])
  t.equal(code, 0, output)
  const report = JSON.parse(readFileSync(path.join(dir, 'copy.json'), 'utf8'))
  t.equal(report.options.flags, 20)
  t.equal(report.options.target, new URL(server.baseUrl).href)
  t.equal(report.dataset.flags, 20)
  const seen = report.http.map((r: { case: string; server: string }) => `${r.case}: ${r.server}`)
  const writes = ['writes', 'creates']
  t.same(seen, [...cases.filter((c) => !writes.includes(c)).flatMap((c) => [`${c}: target`, `${c}: bare uWS`]), 'writes: target', 'creates: target'])
  t.equal(report.seeding.method, 'import', 'seeded through the import API')
  t.equal(report.seeding.flags, 20)
  for (const r of report.http) {
    t.ok(r.requests > 0, `${r.case}, ${r.server}: answered`)
    t.same(r.unexpectedStatuses, {}, `${r.case}, ${r.server}: only the expected status`)
  }
  const generatorOf = (name: string) => report.http.find((r: { case: string }) => r.case === name).loadGenerator
  t.equal(generatorOf('creates'), generatorOf('client'), 'the creates run on the read cases\' generator (wrk where it is installed)')
  t.equal(generatorOf('writes'), 'node', 'the writes, each connection its own flag, on the Node generator')
  const playground = report.http.find((r: { case: string }) => r.case === 'playground')
  t.ok(playground.bodyBytesPerResponse > 20 * 100, 'the playground explains the 20 seeded flags')
  t.ok(report.disk.fsyncP50Ms > 0, 'the fsync latency is measured with the writes')
  const markdown = readFileSync(path.join(dir, report.startedAt.replace(/[:.]/g, '-').replace(/^/, 'bench-') + '.md'), 'utf8')
  t.match(markdown, /!\[latency per path and server\]\(bench-.*\.svg\)/)
  t.match(markdown, /\| client_304: target\/bare uWS/)
  const svg = readFileSync(path.join(dir, report.startedAt.replace(/[:.]/g, '-').replace(/^/, 'bench-') + '.svg'), 'utf8')
  t.match(svg, /^<svg /)
  t.match(svg, />playground: bare uWS</)

  const refused = await run(['--target', server.baseUrl, '--admin-token', server.adminToken, '--client-token', 'x', '--frontend-token', 'y', '--flags', '20', '--cases', 'nope'])
  t.equal(refused.code, 2, 'an unknown case is refused')
  t.match(refused.output, /--cases: unknown case "nope"/)
})

t.test('--target needs its tokens', async (t) => {
  const { code, output } = await run(['--target', 'http://127.0.0.1:1', '--cases', 'client'])
  t.equal(code, 2)
  t.match(output, /--target needs --admin-token/)
})
