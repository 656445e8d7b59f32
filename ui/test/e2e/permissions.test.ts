import t from 'tap'
import { requireChromium, signIn, startUi } from './browser.js'

// A viewer sees the flags but not the buttons the API would refuse them; the API refuses them too.
t.test('a user without permission does not see the buttons the API would refuse', async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  const password = 'Viewer-pass-2024!'
  await ui.api('POST', '/api/admin/user-admin', { username: 'viewer', name: 'Vic Viewer', password, rootRole: 3 })
  await ui.api('POST', '/api/admin/projects/default/features', { name: 'dark-mode' })
  await ui.api('POST', '/api/admin/projects/default/features/dark-mode/environments/development/strategies', {
    name: 'flexibleRollout',
    parameters: { rollout: '100', stickiness: 'default', groupId: 'dark-mode' },
  })

  const { page, errors } = await ui.newPage()
  await signIn(page, 'viewer', password)
  await page.goto('/#/projects/default')
  await page.getByRole('link', { name: 'dark-mode' }).waitFor()
  t.equal(await page.getByRole('button', { name: 'New flag' }).count(), 0, 'no New flag button')
  t.ok(await page.getByRole('switch', { name: 'dark-mode in development' }).isDisabled(), 'the environment switch is disabled')
  await page.getByRole('link', { name: 'Projects' }).first().click()
  await page.getByRole('link', { name: 'Default' }).waitFor()
  t.equal(await page.getByRole('button', { name: 'New project' }).count(), 0, 'no New project button')
  for (const name of ['Event log', 'Users', 'API tokens', 'Signup links']) {
    t.equal(await page.getByRole('link', { name, exact: true }).count(), 0, `no ${name} link (its list is refused to a viewer)`)
  }

  await page.goto('/#/projects/default/flags/dark-mode')
  await page.getByRole('heading', { name: 'dark-mode' }).waitFor()
  await page.getByText('100% rollout').waitFor()
  for (const name of ['Add strategy', 'Edit', 'Delete', 'Archive flag', 'Mark stale', 'Add tag', 'Add dependency']) {
    t.equal(await page.getByRole('button', { name, exact: true }).count(), 0, `no ${name} button`)
  }
  await ui.screenshot(page, 'permissions-1-viewer-flag')

  // What the UI hides, the API refuses to this session.
  const toggle = await page.request.post('/api/admin/projects/default/features/dark-mode/environments/development/on')
  t.equal(toggle.status(), 403, 'the API refuses the viewer a toggle')
  const create = await page.request.post('/api/admin/projects/default/features', { data: { name: 'sneaky' } })
  t.equal(create.status(), 403, 'the API refuses the viewer a new flag')

  // The open page follows a change made elsewhere without a reload.
  await ui.api('POST', '/api/admin/projects/default/features/dark-mode/environments/development/on')
  await page.waitForSelector('[role=switch][aria-label="dark-mode in development"][aria-checked=true]', { timeout: 30_000 })
  t.pass('the switch turned on without a reload after the API enabled the flag')
  t.same(errors, [], 'the page threw no uncaught errors')
})
