import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { api, createApiToken, deleteApiToken, expectOk, getClientFeatures, listApiTokens, updateApiToken } from '../helpers/admin-api.js'
import { callAs, createPerson, startPeopleServer } from '../helpers/people.js'

// Unleash's root role ids.
const editorRole = 2

t.test('an Editor lists client tokens but never an admin token, and sees no whole secret', async (t) => {
  const server = await startPeopleServer(t)
  const client = expectOk(await createApiToken(server, { tokenName: 'sdk', type: 'client' }), 'client token').body.secret as string
  const admin = expectOk(await createApiToken(server, { tokenName: 'second-admin', type: 'admin' }), 'admin token').body.secret as string
  const editor = await createPerson(server, { username: 'ed', rootRole: editorRole })

  const listed = await callAs(server, editor.session, 'GET', '/api/admin/api-tokens')
  t.equal(listed.status, 200)
  const types = listed.body.tokens.map((token: { type: string }) => token.type)
  t.notOk(types.includes('admin'), 'no admin token is listed to an Editor')
  t.ok(types.includes('client'), 'client tokens are')
  t.notOk(listed.text.includes(client.split('.')[1]), 'no whole secret in the listing')
  t.notOk(listed.text.includes(admin.split('.')[1]))
  const byName = await callAs(server, editor.session, 'GET', '/api/admin/api-tokens/second-admin')
  t.same(byName.body.tokens, [], 'not by name either')

  const asAdmin = (await listApiTokens(server)).body.tokens
  t.ok(asAdmin.some((token: { tokenName: string }) => token.tokenName === 'second-admin'), 'an admin sees admin tokens')
  t.equal(asAdmin.find((token: { tokenName: string }) => token.tokenName === 'sdk').secret, `*:development.${client.split('.')[1].slice(0, 8)}…`, 'masked: scope and 8 characters')
})

t.test('a token is updated and deleted by its whole secret or by the masked form listed', async (t) => {
  const server = await startPeopleServer(t)
  const secret = expectOk(await createApiToken(server, { tokenName: 'masked', type: 'client' }), 'create').body.secret as string
  const masked = (await listApiTokens(server)).body.tokens.find((token: { tokenName: string }) => token.tokenName === 'masked').secret as string
  expectOk(await updateApiToken(server, masked, { expiresAt: '2999-01-01T00:00:00.000Z' }), 'update by the masked form')
  t.equal((await listApiTokens(server)).body.tokens.find((token: { tokenName: string }) => token.tokenName === 'masked').expiresAt, '2999-01-01T00:00:00.000Z')
  t.equal((await getClientFeatures(server, secret)).status, 200)
  expectOk(await deleteApiToken(server, secret), 'delete by the whole secret')
  t.equal((await getClientFeatures(server, secret)).status, 401, 'refused from the next request')
})

t.test('no secret is kept in the data directory, not even a deleted token\'s', async (t) => {
  const server = await startPeopleServer(t)
  const kept = expectOk(await createApiToken(server, { tokenName: 'kept', type: 'client' }), 'create').body.secret as string
  const deleted = expectOk(await createApiToken(server, { tokenName: 'gone', type: 'frontend' }), 'create').body.secret as string
  expectOk(await deleteApiToken(server, deleted), 'delete')
  await server.stop()
  const bytes = readdirSync(server.dataDir).map((file) => readFileSync(path.join(server.dataDir, file)))
  for (const secret of [kept, deleted, server.adminToken]) {
    const random = secret.split('.')[1]
    t.notOk(bytes.some((file) => file.includes(random)), `${secret.slice(0, 20)}… is in no file of the data directory`)
  }
  const again = await server.restart()
  t.equal((await getClientFeatures(again, kept)).status, 200, 'the kept token still works after a restart')
  t.equal((await api(again, 'GET', '/api/admin/projects')).status, 200, 'and the init admin token')
})

t.test('a token an SDK polled with shows when it was last seen; one never used shows null', async (t) => {
  const server = await startPeopleServer(t)
  const used = expectOk(await createApiToken(server, { tokenName: 'polled', type: 'client' }), 'create').body.secret as string
  expectOk(await createApiToken(server, { tokenName: 'idle', type: 'client' }), 'create')
  const before = Date.now()
  t.equal((await getClientFeatures(server, used)).status, 200)
  const tokens = (await listApiTokens(server)).body.tokens as { tokenName: string; seenAt: string | null }[]
  const seenAt = tokens.find((token) => token.tokenName === 'polled')!.seenAt
  t.type(seenAt, 'string', 'the polled token has a seenAt')
  t.ok(Date.parse(seenAt!) >= before - 1000 && Date.parse(seenAt!) <= Date.now(), `seen at the poll (${seenAt})`)
  t.equal(tokens.find((token) => token.tokenName === 'idle')!.seenAt, null, 'the idle one has none')
})
