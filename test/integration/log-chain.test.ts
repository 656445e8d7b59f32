import { open } from 'lmdb'
import t from 'tap'
import { api, createFeature, createProject, expectOk, listEvents } from '../helpers/admin-api.js'
import { runLogCli } from '../helpers/log-cli.js'
import { startTestServer } from '../helpers/server.js'

const P = 'chain'

t.test('the hash-chained log: head, verify while running, and a record rewritten with the server stopped', async (t) => {
  const server = await startTestServer(t, { mode: 'child' })
  expectOk(await createProject(server, { id: P, name: P }), 'create project')
  expectOk(await createFeature(server, P, 'alpha'), 'create alpha')
  expectOk(await createFeature(server, P, 'beta'), 'create beta')

  const head = await api(server, 'GET', '/api/admin/events/head')
  t.equal(head.status, 200)
  const newest = (await listEvents(server)).body.events[0]
  t.equal(head.body.id, newest.id, 'the head is the last event listed')
  t.match(head.body.hash, /^[0-9a-f]{64}$/)
  t.equal((await api(server, 'GET', '/api/admin/events/head', undefined, null)).status, 401, 'no token, no head')

  const running = await runLogCli(['verify', '--data-dir', server.dataDir])
  t.equal(running.code, 0, 'verify exits 0 while the server runs')
  t.equal(running.stdout.trim(), `ok: ${head.body.id} records, head ${head.body.id} ${head.body.hash}`)

  const alphaCreated = (await listEvents(server, P)).body.events.find((e: any) => e.type === 'feature-created' && e.featureName === 'alpha')
  t.equal(await server.stop(), 0)

  const root = open({ path: server.dataDir, compression: false, noSubdir: false })
  const log = root.openDB<any, number>({ name: 'log', keyEncoding: 'uint32' })
  const stored = log.get(alphaCreated.id)
  await log.put(alphaCreated.id, { ...stored, createdBy: 'someone else' })
  await root.close()

  const tampered = await runLogCli(['verify', '--data-dir', server.dataDir])
  t.equal(tampered.code, 1, 'verify exits non-zero')
  t.match(tampered.stdout, new RegExp(`^broken at record ${alphaCreated.id}: record ${alphaCreated.id} does not match its stored hash`))
})

t.test('npm run log explains itself: --help, no arguments, an unknown option or command', async (t) => {
  for (const args of [['--help'], ['-h'], ['help']]) {
    const run = await runLogCli(args)
    t.equal(run.code, 0, `${args.join(' ')}: exit 0`)
    t.match(run.stdout, /^usage: npm run log -- COMMAND \[OPTIONS\]/, `${args.join(' ')}: the usage`)
    t.match(run.stdout, /verify .*\n[\s\S]*backup TARGET_DIR[\s\S]*--data-dir DIR/, 'every command and option')
  }
  const none = await runLogCli([])
  t.equal(none.code, 2, 'no command: exit 2')
  t.match(none.stderr, /^usage: npm run log -- COMMAND/)
  const unknownOption = await runLogCli(['verify', '--verbose'])
  t.equal(unknownOption.code, 2)
  t.match(unknownOption.stderr, /Unknown option '--verbose'[\s\S]*usage: npm run log/, 'an unknown option is named, not a crash')
  t.notMatch(unknownOption.stderr, /ERR_PARSE_ARGS|at parseArgs/, 'no stack trace')
  const unknownCommand = await runLogCli(['vrfy'])
  t.equal(unknownCommand.code, 2)
  t.match(unknownCommand.stderr, /^unknown command "vrfy"/)
  const noTarget = await runLogCli(['backup'])
  t.equal(noTarget.code, 2)
  t.match(noTarget.stderr, /^backup needs a TARGET_DIR/)
})
