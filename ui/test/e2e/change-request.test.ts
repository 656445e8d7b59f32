import t from 'tap'
import { adminPassword, requireChromium, signIn, startUi } from './browser.js'

// Two people in two browser contexts: the author's toggle in a change-request environment becomes a
// change request; the reviewer sees its diff, approves and applies it.
t.test('an author proposes a toggle as a change request; a reviewer approves and applies it', async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  const password = 'Review-pass-2024!'
  await ui.api('POST', '/api/admin/user-admin', { username: 'author', name: 'Ada Author', password, rootRole: 2 })
  await ui.api('POST', '/api/admin/user-admin', { username: 'reviewer', name: 'Rey Reviewer', password, rootRole: 2 })
  await ui.api('POST', '/api/admin/projects', { id: 'payments', name: 'Payments' })
  await ui.api('POST', '/api/admin/projects/payments/features', { name: 'instant-refunds' })
  await ui.api('PUT', '/api/admin/projects/payments/environments/production/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 1 })

  const author = await ui.newPage()
  await signIn(author.page, 'author', password)
  await author.page.goto('/#/projects/payments')
  await author.page.getByRole('switch', { name: 'instant-refunds in production' }).click()
  const ask = author.page.getByRole('dialog', { name: 'Enable instant-refunds in production?' })
  t.match(await ask.textContent(), 'production requires change requests', 'the toggle asks before it becomes a change request')
  await ask.getByRole('button', { name: 'Add to draft' }).click()
  await author.page.getByRole('heading', { name: /Change request #1/ }).waitFor()
  t.equal(await author.page.locator('[data-state]').textContent(), 'Draft', 'the toggle opened a draft change request')
  await author.page.getByRole('button', { name: 'Submit for review' }).click()
  await author.page.locator('[data-state="In review"]').waitFor()
  t.equal(await author.page.getByRole('button', { name: 'Approve' }).count(), 0, 'the author is not offered to approve their own request')
  t.ok(await author.page.getByRole('note').filter({ hasText: 'You cannot approve your own change request' }).isVisible(), 'and is told why')
  await ui.screenshot(author.page, 'change-request-1-author-in-review')
  const before = await ui.api<{ environments: { name: string; enabled: boolean }[] }>('GET', '/api/admin/projects/payments/features/instant-refunds')
  t.equal(before.environments.find((e) => e.name === 'production')?.enabled, false, 'nothing changed in production yet')

  const reviewer = await ui.newPage()
  await signIn(reviewer.page, 'reviewer', password)
  await reviewer.page.goto('/#/projects/payments/change-requests')
  await reviewer.page.getByRole('link', { name: 'Change request #1' }).click()
  const change = reviewer.page.getByRole('article', { name: 'Change updateEnabled' })
  await change.getByRole('cell', { name: 'enabled' }).waitFor()
  t.equal(await change.locator('del').textContent(), 'false', 'the diff shows enabled before: false')
  t.equal(await change.locator('ins').textContent(), 'true', 'the diff shows enabled after: true')
  await reviewer.page.getByRole('button', { name: 'Approve' }).click()
  await reviewer.page.locator('[data-state="Approved"]').waitFor()
  await reviewer.page.getByRole('button', { name: 'Apply changes' }).click()
  await reviewer.page.locator('[data-state="Applied"]').waitFor()
  await ui.screenshot(reviewer.page, 'change-request-2-reviewer-applied')
  const applied = reviewer.page.getByRole('article', { name: 'Change updateEnabled' })
  await applied.locator('del').waitFor()
  t.equal(await applied.locator('del').textContent(), 'false', 'after apply, the Before column still shows enabled: false (what the request replaced)')
  t.equal(await applied.locator('ins').textContent(), 'true', 'and After shows true')

  const after = await ui.api<{ environments: { name: string; enabled: boolean }[] }>('GET', '/api/admin/projects/payments/features/instant-refunds')
  t.equal(after.environments.find((e) => e.name === 'production')?.enabled, true, 'the applied request enabled the flag in production')
  // The author's open page follows without a reload.
  await author.page.locator('[data-state="Applied"]').waitFor()
  t.pass("the author's page shows Applied without a reload")
  t.same([...author.errors, ...reviewer.errors], [], 'the pages threw no uncaught errors')
})

// A toggle in a change-request environment asks first and Cancel leaves everything as it was; a
// strategy change names its segments in the diff.
t.test("cancelling a toggle's change request changes nothing; a change request's diff names segments", async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  const password = 'Review-pass-2024!'
  await ui.api('POST', '/api/admin/user-admin', { username: 'author', name: 'Ada Author', password, rootRole: 2 })
  await ui.api('POST', '/api/admin/projects', { id: 'payments', name: 'Payments' })
  await ui.api('POST', '/api/admin/projects/payments/features', { name: 'instant-refunds' })
  const segment = await ui.api<{ id: number }>('POST', '/api/admin/segments', { name: 'beta-users', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }] })
  await ui.api('PUT', '/api/admin/projects/payments/environments/production/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 1 })
  const { page, errors } = await ui.newPage()
  await signIn(page, 'author', password)
  await page.goto('/#/projects/payments/flags/instant-refunds')
  await page.getByRole('switch', { name: 'instant-refunds in production' }).click()
  await page.getByRole('dialog', { name: 'Enable instant-refunds in production?' }).getByRole('button', { name: 'Cancel' }).click()
  await page.getByRole('dialog').waitFor({ state: 'detached' })
  const requests = await ui.api<unknown[]>('GET', '/api/admin/projects/payments/change-requests')
  t.same(requests, [], 'no change request was made')

  await page.getByRole('region', { name: 'Environment production' }).getByRole('button', { name: 'Add strategy' }).click()
  const dialog = page.getByRole('dialog', { name: 'Add strategy' })
  await dialog.getByLabel('Segment beta-users').check()
  await dialog.getByRole('button', { name: 'Save strategy' }).click()
  await page.getByRole('heading', { name: /Change request #1/ }).waitFor()
  const change = page.getByRole('article', { name: 'Change addStrategy' })
  const row = change.locator('tr', { has: page.locator('code', { hasText: /^segments$/ }) })
  // The diff shows #id until the segment list has loaded; wait for the name, then say what is shown.
  await row.locator('ins', { hasText: /^beta-users$/ }).waitFor().catch(() => undefined)
  t.equal(await row.locator('ins').textContent(), 'beta-users', `the diff names segment ${segment.id} beta-users`)
  t.same(errors, [], 'the page threw no uncaught errors')
})

// Applied requests keep their Before column: the strategy and the segment as they were, though both
// have changed since; while open, the same page sets a segment change against the segment as it is.
t.test("an applied request's diff shows the strategy and the segment it replaced", async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  await ui.api('POST', '/api/admin/projects', { id: 'payments', name: 'Payments' })
  await ui.api('POST', '/api/admin/projects/payments/features', { name: 'instant-refunds' })
  const strategy = await ui.api<{ id: string }>('POST', '/api/admin/projects/payments/features/instant-refunds/environments/production/strategies', {
    name: 'flexibleRollout',
    parameters: { rollout: '25', stickiness: 'default', groupId: 'instant-refunds' },
  })
  const segment = await ui.api<{ id: number }>('POST', '/api/admin/segments', { name: 'beta-users', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }] })
  await ui.api('PUT', '/api/admin/projects/payments/environments/production/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 1 })
  const cr = await ui.api<{ id: number }>('POST', '/api/admin/projects/payments/environments/production/change-requests', [
    { feature: 'instant-refunds', action: 'updateStrategy', payload: { id: strategy.id, name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: 'instant-refunds' } } },
    { action: 'updateSegment', payload: { id: segment.id, name: 'beta-users', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u2'] }] } },
  ])
  const path = `/api/admin/projects/payments/change-requests/${cr.id}`
  const { page, errors } = await ui.newPage()
  await signIn(page, 'admin', adminPassword)
  const rolloutRow = () => page.getByRole('article', { name: 'Change updateStrategy' }).locator('tr', { has: page.locator('code', { hasText: /^parameters\.rollout$/ }) })
  const valuesRow = () => page.getByRole('article', { name: 'Change updateSegment' }).locator('tr', { has: page.locator('code', { hasText: /values$/ }) })
  await page.goto(`/#/projects/payments/change-requests/${cr.id}`)
  await valuesRow().locator('del').waitFor()
  t.equal(await valuesRow().locator('del').textContent(), 'u1', 'open: the segment change is set against the segment as it is')
  t.equal(await rolloutRow().locator('del').textContent(), '25', 'open: the strategy change is set against the strategy as it is')

  for (const state of ['In review', 'Approved', 'Applied']) await ui.api('PUT', `${path}/state`, { state })
  await page.locator('[data-state="Applied"]').waitFor()
  // Both have moved on since the request was applied.
  await ui.api('PUT', `/api/admin/projects/payments/features/instant-refunds/environments/production/strategies/${strategy.id}`, {
    name: 'flexibleRollout',
    parameters: { rollout: '75', stickiness: 'default', groupId: 'instant-refunds' },
  })
  await ui.api('PUT', `/api/admin/segments/${segment.id}`, { name: 'beta-users', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u3'] }] })
  await page.reload()
  await page.locator('[data-state="Applied"]').waitFor()
  await rolloutRow().locator('del').waitFor()
  t.equal(await rolloutRow().locator('del').textContent(), '25', 'applied: Before is the rollout the request replaced')
  t.equal(await rolloutRow().locator('ins').textContent(), '50', 'and After the one it set')
  t.equal(await valuesRow().locator('del').textContent(), 'u1', 'applied: Before is the segment the request replaced')
  t.equal(await valuesRow().locator('ins').textContent(), 'u2', 'and After the one it set')
  t.equal(await page.getByRole('cell', { name: 'snapshot', exact: false }).count(), 0, "Unleash's payload.snapshot is not shown as a field of the change")
  t.same(errors, [], 'the page threw no uncaught errors')
})
