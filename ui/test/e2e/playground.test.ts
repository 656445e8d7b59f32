import t from 'tap'
import { startSdk } from '../../../test/helpers/sdk.js'
import { adminPassword, requireChromium, signIn, startUi } from './browser.js'

// The playground's answer for a context is the SDK's answer for the same context.
t.test('the playground shows the same answer as the SDK for each context', async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  await ui.api('POST', '/api/admin/projects/default/features', { name: 'half-rollout' })
  await ui.api('POST', '/api/admin/projects/default/features/half-rollout/environments/development/strategies', {
    name: 'flexibleRollout',
    parameters: { rollout: '50', stickiness: 'userId', groupId: 'half-rollout' },
    constraints: [{ contextName: 'userId', operator: 'NOT_IN', values: ['blocked'] }],
  })
  await ui.api('POST', '/api/admin/projects/default/features/half-rollout/environments/development/on')
  const token = await ui.api<{ secret: string }>('POST', '/api/admin/api-tokens', { tokenName: 'sdk', type: 'client', environment: 'development' })
  const sdk = await startSdk(t, ui.baseUrl, token.secret, { appName: 'playground-test' })

  const { page, errors } = await ui.newPage()
  await signIn(page, 'admin', adminPassword)
  await page.getByRole('link', { name: 'Playground' }).click()
  await page.getByRole('textbox', { name: 'appName' }).fill('playground-test')
  const users = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'blocked']
  const seen = new Set<boolean>()
  for (const userId of users) {
    await page.getByRole('textbox', { name: 'userId' }).fill(userId)
    await page.getByRole('button', { name: 'Evaluate' }).click()
    // The results name the context they answer, so an earlier answer is never read for this one.
    await page.getByRole('heading', { name: new RegExp(`appName=playground-test, userId=${userId}$`) }).waitFor()
    const cell = page.locator('tr[data-flag="half-rollout"] [data-testid="result"] .verdict')
    const expected = sdk.isEnabled('half-rollout', { userId })
    seen.add(expected)
    t.equal(await cell.textContent(), String(expected), `userId ${userId}: the playground says ${expected}, as the SDK does`)
  }
  t.same([...seen].sort(), [false, true], 'the contexts cover both answers')
  await page.getByText('Why').first().click()
  await page.getByText('userId NOT_IN blocked').first().waitFor()
  await ui.screenshot(page, 'playground-1-explained')
  t.same(errors, [], 'the page threw no uncaught errors')
})
