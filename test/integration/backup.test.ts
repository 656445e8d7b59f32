import path from 'node:path'
import t from 'tap'
import { createFeature, createProject, expectOk, listFeatures } from '../helpers/admin-api.js'
import { runLogCli } from '../helpers/log-cli.js'
import { makeDataDir, startTestServer } from '../helpers/server.js'

const P = 'backup'

t.test('a backup taken during a write stream holds every acknowledged write and passes verify', async (t) => {
  const server = await startTestServer(t, { mode: 'child' })
  expectOk(await createProject(server, { id: P, name: P }), 'create project')

  const acknowledged: string[] = []
  let writing = true
  let next = 0
  const writer = async () => {
    while (writing) {
      const name = `f${next++}`
      if ((await createFeature(server, P, name)).status === 201) acknowledged.push(name)
    }
  }
  const writers = Array.from({ length: 3 }, writer)
  while (acknowledged.length < 30) await new Promise((resolve) => setTimeout(resolve, 20))

  const before = [...acknowledged]
  const copy = path.join(makeDataDir(t), 'copy')
  const backup = await runLogCli(['backup', copy, '--data-dir', server.dataDir])
  const during = acknowledged.length - before.length
  writing = false
  await Promise.all(writers)
  t.equal(backup.code, 0, backup.stderr)
  t.match(backup.stdout, `restore by starting with DATA_DIR=${copy}`)
  t.ok(during > 0, `writes went on while the backup ran (${during})`)
  t.equal(await server.stop(), 0)

  const verify = await runLogCli(['verify', '--data-dir', copy])
  t.equal(verify.code, 0, verify.stdout)

  const restored = await startTestServer(t, { dataDir: copy, adminToken: server.adminToken })
  const names = new Set((await listFeatures(restored, P)).body.features.map((f: { name: string }) => f.name))
  t.same(before.filter((name) => !names.has(name)), [], 'no write acknowledged before the backup is missing')
  await restored.stop()
})

t.test('backup refuses a target directory that is not empty', async (t) => {
  const server = await startTestServer(t)
  const result = await runLogCli(['backup', server.dataDir, '--data-dir', server.dataDir])
  t.equal(result.code, 2)
  t.match(result.stderr, 'is not empty')
})
