import t from 'tap'
import { adminPassword, requireChromium, signIn, startUi } from './browser.js'

// A change made in the UI shows in the flag's history as a field-by-field diff.
t.test("a flag's history shows the diff of its last change", async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  await ui.api('POST', '/api/admin/projects/default/features', { name: 'search-v2' })
  await ui.api('POST', '/api/admin/projects/default/features/search-v2/environments/development/strategies', {
    name: 'flexibleRollout',
    parameters: { rollout: '30', stickiness: 'default', groupId: 'search-v2' },
  })
  const { page, errors } = await ui.newPage()
  await signIn(page, 'admin', adminPassword)
  await page.goto('/#/projects/default/flags/search-v2')
  const development = page.getByRole('region', { name: 'Environment development' })
  await development.getByRole('button', { name: 'Edit' }).click()
  const dialog = page.getByRole('dialog')
  await dialog.getByLabel('Rollout percentage').fill('60')
  await dialog.getByRole('button', { name: 'Save strategy' }).click()
  await development.getByText('60% rollout').waitFor()

  const latest = page.locator('.history li').first()
  await page.waitForFunction(() => document.querySelector('.history li')?.getAttribute('data-event-type') === 'feature-strategy-update')
  await latest.locator('summary').click()
  const row = latest.locator('tr', { has: page.locator('code', { hasText: /^parameters\.rollout$/ }) })
  t.equal(await row.locator('del').textContent(), '30', 'the diff shows the rollout before: 30')
  t.equal(await row.locator('ins').textContent(), '60', 'the diff shows the rollout after: 60')
  t.equal(await latest.locator('tbody tr').count(), 1, 'only the changed field is listed')
  await ui.screenshot(page, 'history-1-diff')
  t.same(errors, [], 'the page threw no uncaught errors')
})
