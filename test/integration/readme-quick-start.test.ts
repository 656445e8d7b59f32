// The README's quick start, run as a new user would paste it: its shell block against a server started
// as `npm start` would (its admin token printed, not given), then its unleash-client snippet.
import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { startTestServer } from '../helpers/server.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8')
const quickStart = readme.slice(readme.indexOf('## Quick start'))
const block = (language: string): string => {
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)\\n```').exec(quickStart)
  if (!match) throw new Error(`the quick start has no ${language} block`)
  return match[1]
}

const run = (file: string, args: string[], env: Record<string, string>, cwd: string) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { env: { ...process.env, ...env }, cwd, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    )
  })

t.test('the quick start works as written: a flag switched on, a client token, curl and unleash-client', async (t) => {
  const server = await startTestServer(t, { mode: 'child', adminToken: null })
  const printed = /Created an admin API token \(shown once; keep it\): (\S+)/.exec(server.output())?.[1]
  t.ok(printed, 'the first start printed an admin API token')

  // The reader's two values: the token the start printed, and where the server listens.
  const shell = block('sh')
    .replace(/^ADMIN=.*$/m, `ADMIN='${printed}'`)
    .replace(/^URL=.*$/m, `URL=${server.baseUrl}`)
  const dir = t.testdir({})
  const script = path.join(dir, 'quick-start.sh')
  writeFileSync(script, `set -e\n${shell}\necho\necho "CLIENT=$CLIENT"\n`)
  const ran = await run('bash', [script], {}, dir)
  t.equal(ran.code, 0, ran.stderr)
  t.match(ran.stdout, /"name":"new-checkout"/, 'the flag is created')
  const client = /^CLIENT=(\S+)$/m.exec(ran.stdout)?.[1]
  t.match(client, /^\*:development\.[0-9a-f]+$/, 'a client token is made')
  t.match(ran.stdout, /"features":\[\{"name":"new-checkout","type":"release","enabled":true/, 'curl reads the flag, on')

  // The snippet runs from the repository, where unleash-client is installed.
  const snippet = block('js').replace('http://127.0.0.1:4242/api', `${server.baseUrl}/api`)
  const checkFile = path.join(repoRoot, `check-${process.pid}.mjs`)
  writeFileSync(checkFile, snippet)
  t.teardown(() => import('node:fs').then(({ rmSync }) => rmSync(checkFile, { force: true })))
  const checked = await run(process.execPath, [checkFile], { CLIENT: client ?? '' }, repoRoot)
  t.equal(checked.code, 0, checked.stderr)
  t.equal(checked.stdout.trim(), 'new-checkout is on', 'the SDK snippet prints what the README says')
})
