import t from 'tap'
import { adminPassword, requireChromium, signIn, startUi } from './browser.js'

// The strategy editor explains itself: readable names, OR between strategies and AND between
// constraints, a warning for strategies no one reaches and for a save that changes a live
// environment, a number box beside the slider, labels in words, and the API command for what is shown.
t.test('the strategy editor explains what the strategies do', async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  await ui.api('POST', '/api/admin/projects/default/features', { name: 'new-checkout' })
  const strategies = '/api/admin/projects/default/features/new-checkout/environments/development/strategies'
  const first = await ui.api<{ id: string }>('POST', strategies, { name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: 'new-checkout' } })
  await ui.api('POST', strategies, { name: 'default', parameters: {}, constraints: [] })
  await ui.api('POST', '/api/admin/projects/default/features/new-checkout/environments/development/on')
  const { page, errors } = await ui.newPage()
  await signIn(page, 'admin', adminPassword)
  await page.goto('/#/projects/default/flags/new-checkout')
  const development = page.getByRole('region', { name: 'Environment development' })
  await development.getByText('Gradual rollout', { exact: true }).waitFor()
  t.equal(await development.getByText('flexibleRollout', { exact: true }).count(), 0, 'the strategy is named "Gradual rollout", not flexibleRollout')
  t.ok(await development.getByText('Standard', { exact: true }).isVisible(), 'and the default strategy "Standard"')
  t.equal(await development.locator('.joiner', { hasText: 'OR' }).count(), 1, 'OR stands between the two strategies')
  const warning = development.getByRole('status').filter({ hasText: 'never applies' })
  t.ok(await warning.isVisible(), 'a 100 % rollout above another strategy warns that the one below never applies')

  await development.getByRole('button', { name: 'Edit', exact: true }).first().click()
  const dialog = page.getByRole('dialog', { name: 'Edit strategy Gradual rollout' })
  await dialog.waitFor()
  t.ok(await dialog.getByRole('status').filter({ hasText: 'The flag is on in development' }).isVisible(), 'saving into an environment that is on is announced')
  await dialog.getByLabel('Rollout percentage').fill('40')
  t.equal(await dialog.getByLabel('Rollout', { exact: true }).inputValue(), '40', 'the number box moves the slider')
  await dialog.getByRole('button', { name: 'Add constraint' }).click()
  await dialog.getByRole('button', { name: 'Add constraint' }).click()
  const one = dialog.getByRole('group', { name: 'Constraint 1' })
  t.ok(await one.getByLabel('Context field').isVisible(), 'a constraint labels its fields in words ("Context field", not "Context field 1")')
  t.equal(await dialog.locator('.joiner', { hasText: 'AND' }).count(), 1, 'AND stands between the two constraints')
  const fits = await one.getByLabel('Values', { exact: true }).evaluate((input: HTMLInputElement) => {
    const context = document.createElement('canvas').getContext('2d')!
    context.font = getComputedStyle(input).font
    return { text: context.measureText(input.placeholder).width, box: input.clientWidth }
  })
  t.ok(fits.text <= fits.box, `the values input fits its placeholder (${Math.round(fits.text)} px of text in ${fits.box} px)`)
  await one.getByLabel('Values', { exact: true }).fill('alice')
  await one.getByLabel('Values', { exact: true }).press('Enter')
  await dialog.getByRole('button', { name: 'Remove constraint 2' }).click()
  await dialog.getByText('API command').click()
  const command = (await dialog.locator('.api-command code').textContent()) ?? ''
  t.match(command, `curl --location --request PUT '${ui.baseUrl}${strategies}/${first.id}'`, 'the API command is the PUT of this strategy')
  t.match(command, '"rollout": "40"', 'with the rollout on screen')
  t.match(command, '"values": [\n        "alice"\n      ]', 'and the constraint on screen')
  await dialog.getByRole('button', { name: 'Save strategy' }).click()
  await development.getByText('40% rollout').waitFor()
  t.equal(await warning.count(), 0, 'at 40 % with a constraint the warning is gone')
  t.same(errors, [], 'the page threw no uncaught errors')
})
