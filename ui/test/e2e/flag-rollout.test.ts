import t from 'tap'
import { startSdk } from '../../../test/helpers/sdk.js'
import { adminPassword, requireChromium, signIn, startUi } from './browser.js'

// The daily path, all through the UI: sign in, a segment, a project, a flag, a flexibleRollout
// strategy with a constraint and the segment, enabled in development; then a real unleash-client
// sees the flag on for a matching context and off for another.
t.test('a flag built in the UI is on for a matching SDK context and off for another', async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  const { page, errors } = await ui.newPage()
  await signIn(page, 'admin', adminPassword)
  await ui.screenshot(page, 'flag-rollout-1-signed-in')

  // A segment: userId in u1, u2.
  await page.getByRole('link', { name: 'Segments' }).click()
  await page.getByRole('button', { name: 'New segment' }).click()
  await page.getByLabel('Segment name').fill('beta-users')
  await page.getByRole('button', { name: 'Add constraint' }).click()
  const segmentConstraint = page.getByRole('group', { name: 'Constraint 1' })
  await segmentConstraint.getByLabel('Context field').selectOption('userId')
  await segmentConstraint.getByLabel('Operator').selectOption('IN')
  await segmentConstraint.getByLabel('Values', { exact: true }).fill('u1, u2')
  await segmentConstraint.getByLabel('Values', { exact: true }).press('Enter')
  await page.getByRole('button', { name: 'Save segment' }).click()
  await page.getByRole('cell', { name: 'userId IN u1, u2' }).waitFor()

  // A project and a flag.
  await page.getByRole('link', { name: 'Projects' }).click()
  await page.getByRole('button', { name: 'New project' }).click()
  await page.getByLabel('Project id').fill('web')
  await page.getByLabel('Name').fill('Web shop')
  await page.getByRole('button', { name: 'Create project' }).click()
  await page.getByRole('heading', { name: 'Web shop' }).waitFor()
  await page.getByRole('button', { name: 'New flag' }).click()
  await page.getByLabel('Flag name').fill('new-checkout')
  await page.getByRole('button', { name: 'Create flag' }).click()
  await page.getByRole('heading', { name: 'new-checkout' }).waitFor()

  // A flexibleRollout strategy in development: 100 %, appName IN shop, segment beta-users.
  const development = page.getByRole('region', { name: 'Environment development' })
  await development.getByRole('button', { name: 'Add strategy' }).click()
  const dialog = page.getByRole('dialog', { name: 'Add strategy' })
  t.equal(await dialog.getByLabel('Strategy').inputValue(), 'flexibleRollout', 'the editor starts with a gradual rollout')
  await dialog.getByLabel('Rollout percentage').fill('100')
  t.equal(await dialog.getByLabel('Group id').inputValue(), 'new-checkout', 'the group id defaults to the flag name')
  await dialog.getByRole('button', { name: 'Add constraint' }).click()
  const constraint = dialog.getByRole('group', { name: 'Constraint 1' })
  await constraint.getByLabel('Context field').selectOption('appName')
  await constraint.getByLabel('Values', { exact: true }).fill('shop')
  await constraint.getByLabel('Values', { exact: true }).press('Enter')
  await dialog.getByLabel('Segment beta-users').check()
  await ui.screenshot(page, 'flag-rollout-2-strategy-editor')
  await dialog.getByRole('button', { name: 'Save strategy' }).click()
  await dialog.waitFor({ state: 'detached' })
  await development.getByText('appName IN shop').waitFor()
  await development.getByText('segment beta-users').waitFor()

  // Enable it in development.
  const devSwitch = development.getByRole('switch', { name: 'new-checkout in development' })
  await devSwitch.click()
  await page.waitForSelector('section[aria-label="Environment development"] [role=switch][aria-checked=true]')
  await ui.screenshot(page, 'flag-rollout-3-enabled')

  // A client token from the UI, shown once.
  await page.getByRole('link', { name: 'API tokens' }).click()
  await page.getByRole('button', { name: 'New API token' }).click()
  await page.getByLabel('Token name').fill('shop-backend')
  await page.getByRole('button', { name: 'Create API token' }).click()
  const secret = (await page.getByTestId('secret').textContent()) ?? ''
  t.match(secret, /^\*:development\./, 'the secret is shown once after creating a client token')
  await ui.screenshot(page, 'flag-rollout-4-token-secret')

  const sdk = await startSdk(t, ui.baseUrl, secret, { appName: 'shop' })
  t.equal(sdk.isEnabled('new-checkout', { userId: 'u1' }), true, 'on for userId u1 (in the segment) in app shop')
  t.equal(sdk.isEnabled('new-checkout', { userId: 'u9' }), false, 'off for userId u9 (outside the segment)')
  t.same(errors, [], 'the page threw no uncaught errors')
})
