import t from 'tap'
import { adminPassword, requireChromium, signIn, startUi } from './browser.js'

// Keyboard only, on a phone-width screen: sign in, open the menu, reach a flag and toggle it.
t.test('at phone width, by keyboard alone, a user signs in, opens the menu and toggles a flag', async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  await ui.api('POST', '/api/admin/projects/default/features', { name: 'mobile-flag' })
  const { page, errors } = await ui.newPage()
  await page.setViewportSize({ width: 390, height: 844 })
  await page.goto('/')
  await page.getByLabel('Username or email').focus()
  await page.keyboard.type('admin')
  await page.keyboard.press('Tab')
  await page.keyboard.type(adminPassword)
  await page.keyboard.press('Enter')
  const menu = page.getByRole('button', { name: 'Menu' })
  await menu.waitFor()
  t.equal(await page.getByRole('navigation', { name: 'Main' }).isVisible(), false, 'the navigation is folded away at phone width')
  await menu.focus()
  await page.keyboard.press('Enter')
  t.equal(await menu.getAttribute('aria-expanded'), 'true', 'the menu button says it is expanded')
  await page.getByRole('link', { name: 'Projects' }).focus()
  await page.keyboard.press('Enter')
  await page.getByRole('link', { name: 'Default' }).focus()
  await page.keyboard.press('Enter')
  const toggle = page.getByRole('switch', { name: 'mobile-flag in development' })
  await toggle.focus()
  await page.keyboard.press('Space')
  await page.waitForSelector('[role=switch][aria-label="mobile-flag in development"][aria-checked=true]')
  const width = await page.evaluate(() => document.documentElement.scrollWidth)
  t.ok(width <= 390, `the page does not scroll sideways at 390 px (scrollWidth ${width})`)
  await ui.screenshot(page, 'responsive-1-phone-project')
  const flag = await ui.api<{ environments: { name: string; enabled: boolean }[] }>('GET', '/api/admin/projects/default/features/mobile-flag')
  t.equal(flag.environments.find((e) => e.name === 'development')?.enabled, true, 'the keyboard toggle enabled the flag')
  t.same(errors, [], 'the page threw no uncaught errors')
})

// Every page at 390 px, with content on it: nothing may scroll sideways (wide tables scroll inside
// their own box). A failure names the elements that stick out.
t.test('at 390 px no page scrolls sideways', async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  await ui.api('POST', '/api/admin/projects', { id: 'web', name: 'Web shop with a long name', description: 'Everything the shop front serves to its visitors' })
  await ui.api('POST', '/api/admin/projects/web/features', { name: 'a-rather-long-flag-name-for-the-checkout', description: 'The one-page checkout' })
  const strategies = '/api/admin/projects/web/features/a-rather-long-flag-name-for-the-checkout/environments/development/strategies'
  await ui.api('POST', strategies, {
    name: 'flexibleRollout',
    parameters: { rollout: '25', stickiness: 'default', groupId: 'a-rather-long-flag-name-for-the-checkout' },
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['alice@example.com', 'bob@example.com', 'carol@example.com'] }],
  })
  await ui.api('POST', strategies, { name: 'default', parameters: {}, constraints: [] })
  await ui.api('POST', '/api/admin/projects/web/features', { name: 'archived-banner' })
  await ui.api('DELETE', '/api/admin/projects/web/features/archived-banner')
  await ui.api('POST', '/api/admin/segments', { name: 'beta-users', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1', 'u2'] }] })
  await ui.api('PUT', '/api/admin/projects/web/environments/production/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 1 })
  const cr = await ui.api<{ id: number }>('POST', '/api/admin/projects/web/environments/production/change-requests', {
    feature: 'a-rather-long-flag-name-for-the-checkout',
    action: 'updateEnabled',
    payload: { enabled: true },
  })
  const { page, errors } = await ui.newPage()
  await page.setViewportSize({ width: 390, height: 844 })
  await signIn(page, 'admin', adminPassword)
  const pages = [
    '#/projects',
    '#/projects/web',
    '#/projects/web/archive',
    '#/projects/web/change-requests',
    '#/projects/web/access',
    '#/projects/web/settings',
    '#/projects/web/flags/a-rather-long-flag-name-for-the-checkout',
    '#/projects/web/flags/archived-banner',
    `#/projects/web/change-requests/${cr.id}`,
    '#/archive',
    '#/playground',
    '#/events',
    ...['segments', 'context-fields', 'strategy-types', 'tag-types', 'environments', 'api-tokens', 'users', 'groups', 'roles', 'signup-links'].map((s) => `#/admin/${s}`),
  ]
  for (const hash of pages) {
    await page.goto(`/${hash}`)
    await page.locator('main.content').waitFor()
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'))
    const { scrollWidth, innerWidth, wide } = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      wide: [...document.querySelectorAll<HTMLElement>('body *')]
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5 && !e.parentElement?.closest('.table-wrap'))
        .slice(0, 5)
        .map((e) => `${e.tagName.toLowerCase()}.${e.className} (right ${Math.round(e.getBoundingClientRect().right)})`),
    }))
    t.ok(scrollWidth <= innerWidth, `${hash}: scrollWidth ${scrollWidth} ≤ innerWidth ${innerWidth}${wide.length ? `; too wide: ${wide.join(', ')}` : ''}`)
  }
  await page.goto('/#/projects/web')
  await page.getByRole('switch', { name: 'a-rather-long-flag-name-for-the-checkout in production' }).waitFor()
  const box = await page.getByRole('switch', { name: 'a-rather-long-flag-name-for-the-checkout in production' }).boundingBox()
  t.ok(box && box.x + box.width <= 390, `the production switch is on screen in the flag list (right edge ${box && Math.round(box.x + box.width)})`)
  t.same(errors, [], 'the pages threw no uncaught errors')
})
