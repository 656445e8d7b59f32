import t from 'tap'
import { adminPassword, requireChromium, signIn, startUi } from './browser.js'

// A new project says what to do first; a new flag shows how to connect an SDK to this server until one
// reports using it.
t.test('an empty project offers its first flag; a flag without SDK traffic shows how to connect one', async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  await ui.api('POST', '/api/admin/projects', { id: 'web', name: 'Web shop' })
  const { page, errors } = await ui.newPage()
  await signIn(page, 'admin', adminPassword)
  await page.goto('/#/projects/web')
  await page.getByRole('heading', { name: 'Create your first flag' }).waitFor()
  await page.getByRole('button', { name: 'Create your first flag' }).click()
  const dialog = page.getByRole('dialog', { name: 'Create flag' })
  await dialog.getByLabel('Flag name').fill('new-checkout')
  await dialog.getByRole('button', { name: 'Create flag' }).click()

  const connect = page.getByRole('region', { name: 'Connect an SDK' })
  await connect.waitFor()
  const snippet = (await connect.locator('pre').first().textContent()) ?? ''
  t.match(snippet, `url: '${ui.baseUrl}/api/'`, "the snippet points at this server's URL")
  t.match(snippet, "isEnabled('new-checkout')", 'and asks for this flag')
  await connect.getByRole('link', { name: 'Create a client token' }).click()
  await page.getByRole('button', { name: 'New API token' }).waitFor()
  t.pass('the token link leads to the API tokens page')

  const token = await ui.api<{ secret: string }>('POST', '/api/admin/api-tokens', { tokenName: 'shop', type: 'client', environment: 'development', projects: ['*'] })
  const now = new Date().toISOString()
  const res = await fetch(`${ui.baseUrl}/api/client/metrics`, {
    method: 'POST',
    headers: { authorization: token.secret, 'content-type': 'application/json' },
    body: JSON.stringify({ appName: 'shop', instanceId: 'i1', bucket: { start: now, stop: now, toggles: { 'new-checkout': { yes: 1, no: 0 } } } }),
  })
  t.ok(res.ok, `the SDK's metrics are accepted (${res.status})`)
  await page.goto('/#/projects/web/flags/new-checkout')
  await page.getByRole('region', { name: 'Environment development' }).waitFor()
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'))
  t.equal(await connect.count(), 0, 'once an SDK has used the flag, the connection help is gone')
  t.same(errors, [], 'the pages threw no uncaught errors')
})
