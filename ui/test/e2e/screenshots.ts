// Screenshots for a note, run by hand (not part of the suite: its name does not end in .test.ts, and
// without SHOTS, as when `npx tap ui/test` names the folder, it skips):
//   SHOTS=after npx tap ui/test/e2e/screenshots.ts
// writes docs/screenshots/<SHOTS>-{flag,strategy-editor,archive}-{1440,390}.png: a flag with two
// strategies (one a gradual rollout with a constraint), its strategy editor open, and the project's
// archive (the project page, where there is no archive view); and <SHOTS>-cr-applied.png: an applied
// change request (enable, a rollout from 25 % to 50 %, new variants) at 1440 px.
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { adminPassword, requireChromium, signIn, startUi } from './browser.js'

const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/screenshots')
const prefix = process.env.SHOTS ?? ''

t.test('screenshots of the flag page, the strategy editor and the archive', { skip: prefix ? false : 'set SHOTS=before or SHOTS=after to write screenshots' }, async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  mkdirSync(out, { recursive: true })
  await ui.api('POST', '/api/admin/projects/default/features', { name: 'new-checkout', description: 'The one-page checkout' })
  const strategies = '/api/admin/projects/default/features/new-checkout/environments/development/strategies'
  await ui.api('POST', strategies, {
    name: 'flexibleRollout',
    parameters: { rollout: '25', stickiness: 'default', groupId: 'new-checkout' },
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['alice', 'bob'] }],
  })
  await ui.api('POST', strategies, { name: 'default', parameters: {}, constraints: [] })
  await ui.api('POST', '/api/admin/projects/default/features/new-checkout/environments/development/on')
  for (const name of ['summer-banner', 'old-search']) {
    await ui.api('POST', '/api/admin/projects/default/features', { name })
    await ui.api('DELETE', `/api/admin/projects/default/features/${name}`)
  }
  const { page } = await ui.newPage()
  await signIn(page, 'admin', adminPassword)
  const shot = (name: string, width: number) => page.screenshot({ path: path.join(out, `${prefix}-${name}-${width}.png`), fullPage: true })
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 })
    await page.goto('/#/projects/default/flags/new-checkout')
    await page.getByRole('region', { name: 'Environment development' }).getByText(/25%/).first().waitFor()
    await shot('flag', width)
    await page.getByRole('region', { name: 'Environment development' }).getByRole('button', { name: 'Edit' }).first().click()
    await page.getByRole('dialog').waitFor()
    await shot('strategy-editor', width)
    await page.keyboard.press('Escape')
    await page.goto('/#/projects/default')
    const archiveTab = page.getByRole('link', { name: 'Archived' })
    if (await archiveTab.count()) {
      await archiveTab.click()
      await page.getByText('summer-banner').first().waitFor()
    } else {
      await page.getByRole('link', { name: 'new-checkout' }).waitFor()
    }
    await shot('archive', width)
  }
  t.pass(`wrote ${prefix}-*.png into ${out}`)
})

t.test('screenshot of an applied change request', { skip: prefix ? false : 'set SHOTS=before or SHOTS=after to write screenshots' }, async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  mkdirSync(out, { recursive: true })
  const flag = '/api/admin/projects/default/features/new-checkout'
  await ui.api('POST', '/api/admin/projects/default/features', { name: 'new-checkout', description: 'The one-page checkout' })
  const rollout = await ui.api<{ id: string }>('POST', `${flag}/environments/production/strategies`, {
    name: 'flexibleRollout',
    parameters: { rollout: '25', stickiness: 'default', groupId: 'new-checkout' },
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['alice', 'bob'] }],
  })
  await ui.api('PUT', `${flag}/environments/production/variants`, [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' }])
  await ui.api('PUT', '/api/admin/projects/default/environments/production/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 1 })
  const cr = await ui.api<{ id: number }>('POST', '/api/admin/projects/default/environments/production/change-requests', [
    { feature: 'new-checkout', action: 'updateEnabled', payload: { enabled: true } },
    {
      feature: 'new-checkout',
      action: 'updateStrategy',
      payload: { id: rollout.id, name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: 'new-checkout' }, constraints: [{ contextName: 'userId', operator: 'IN', values: ['alice', 'bob'] }] },
    },
    { feature: 'new-checkout', action: 'patchVariant', payload: { variants: [{ name: 'green', weight: 1000, weightType: 'variable', stickiness: 'default' }] } },
  ])
  for (const state of ['In review', 'Approved', 'Applied']) await ui.api('PUT', `/api/admin/projects/default/change-requests/${cr.id}/state`, { state })
  const { page } = await ui.newPage()
  await signIn(page, 'admin', adminPassword)
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(`/#/projects/default/change-requests/${cr.id}`)
  await page.locator('[data-state="Applied"]').waitFor()
  await page.getByRole('article', { name: 'Change patchVariant' }).locator('ins').first().waitFor()
  await page.screenshot({ path: path.join(out, `${prefix}-cr-applied.png`), fullPage: true })
  t.pass(`wrote ${prefix}-cr-applied.png into ${out}`)
})
