import t from 'tap'
import { adminPassword, requireChromium, signIn, startUi } from './browser.js'

// An archived flag is a 404 at its own path (as in Unleash 8.2): its page finds it in the project's
// archive, says so, and can revive it.
t.test("an archived flag's page shows it archived and revives it", async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  await ui.api('POST', '/api/admin/projects/default/features', { name: 'old-banner', description: 'the summer banner' })
  await ui.api('DELETE', '/api/admin/projects/default/features/old-banner')
  const { page, errors } = await ui.newPage()
  await signIn(page, 'admin', adminPassword)
  await page.goto('/#/projects/default/flags/old-banner')
  await page.locator('.flag-head .badge', { hasText: 'archived' }).waitFor()
  t.ok(await page.getByRole('paragraph').filter({ hasText: 'the summer banner' }).isVisible(), 'its description is shown')
  t.equal(await page.locator('.error, [role="alert"]').count(), 0, 'no error banner for the 404')
  await ui.screenshot(page, 'archived-flag-1')
  await page.getByRole('button', { name: 'Revive flag' }).click()
  await page.getByRole('region', { name: 'Environment development' }).waitFor()
  t.equal(await page.locator('.flag-head .badge', { hasText: 'archived' }).count(), 0, 'revived: the flag page again')
  t.same(errors, [], 'the page threw no uncaught errors')
})

// The whole round through the UI: archive from the flag page, find it in the project's Archived tab,
// revive it there; archive another from the list and delete it from the archive across projects.
t.test('a flag archived in the UI is listed in the archive, revived from there, and another deleted', async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  await ui.api('POST', '/api/admin/projects/default/features', { name: 'dark-mode' })
  await ui.api('POST', '/api/admin/projects/default/features', { name: 'old-search' })
  const { page, errors } = await ui.newPage()
  await signIn(page, 'admin', adminPassword)
  await page.goto('/#/projects/default/flags/dark-mode')
  await page.getByRole('button', { name: 'Archive flag' }).click()
  const ask = page.getByRole('dialog', { name: 'Archive dark-mode?' })
  await ask.getByRole('button', { name: 'Archive flag' }).click()
  await page.locator('.flag-head .badge', { hasText: 'archived' }).waitFor()
  t.equal(await page.getByRole('switch').count(), 0, "the archived flag's page has no switches")
  t.equal(await page.getByRole('button', { name: /Add strategy|Mark stale|Archive flag/ }).count(), 0, 'nor Add strategy, Mark stale or Archive flag')

  await page.getByRole('link', { name: 'default' }).click()
  await page.getByRole('link', { name: 'Archived' }).click()
  const row = page.locator('tr[data-flag="dark-mode"]')
  await row.waitFor()
  await row.getByRole('button', { name: 'Revive dark-mode' }).click()
  await page.getByText('No archived flags in this project.', { exact: false }).waitFor()
  await page.getByRole('link', { name: 'Flags' }).click()
  await page.getByRole('link', { name: 'dark-mode' }).waitFor()
  const revived = await ui.api<{ archived: boolean }>('GET', '/api/admin/projects/default/features/dark-mode')
  t.equal(revived.archived, false, 'the flag is revived')

  await page.getByRole('checkbox', { name: 'Select old-search' }).check()
  await page.getByRole('button', { name: 'Archive selected' }).click()
  await page.getByRole('dialog', { name: 'Archive old-search?' }).getByRole('button', { name: 'Archive' }).click()
  await page.getByRole('link', { name: 'Archive', exact: true }).click()
  await page.locator('tr[data-flag="old-search"]').getByRole('cell', { name: 'default' }).waitFor()
  await page.getByRole('button', { name: 'Delete old-search' }).click()
  await page.getByRole('dialog', { name: 'Delete old-search?' }).getByRole('button', { name: 'Delete flag' }).click()
  await page.getByText('No archived flags.').waitFor()
  const archive = await ui.api<{ features: { name: string }[] }>('GET', '/api/admin/archive/features')
  t.same(archive.features.map((f) => f.name), [], 'the deleted flag is gone from the archive')
  t.same(errors, [], 'the page threw no uncaught errors')
})
