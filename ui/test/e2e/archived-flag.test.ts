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
