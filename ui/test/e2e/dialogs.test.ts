import type { Locator, Page } from 'playwright-core'
import t from 'tap'
import { adminPassword, requireChromium, signIn, startUi } from './browser.js'

// Which element has focus, described well enough to compare: its tag, its accessible text and whether
// it is inside an open dialog.
const focused = (page: Page) =>
  page.evaluate(() => {
    const e = document.activeElement as HTMLElement | null
    return { tag: e?.tagName.toLowerCase(), text: (e?.textContent ?? '').trim(), inDialog: !!e?.closest('dialog[open]'), first: !!e && e === e.closest('dialog')?.querySelector('.dialog-body :is(input, select, textarea, button)') }
  })

// Every dialog the pages open: titled after what it does, focus moves to its first field, Escape closes
// it, focus returns to the button that opened it.
t.test('each dialog takes focus, is named for what it does, closes on Escape and gives focus back', async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  await ui.api('POST', '/api/admin/projects/default/features', { name: 'dark-mode' })
  await ui.api('POST', '/api/admin/projects/default/features/dark-mode/environments/development/strategies', { name: 'default', parameters: {}, constraints: [] })
  const { page, errors } = await ui.newPage()
  await signIn(page, 'admin', adminPassword)

  const check = async (where: string, opener: Locator, title: string | RegExp) => {
    const openerText = ((await opener.textContent()) ?? '').trim()
    await opener.focus()
    await opener.press('Enter')
    const dialog = page.getByRole('dialog', { name: title })
    await dialog.waitFor()
    const inside = await focused(page)
    t.ok(inside.inDialog && inside.first, `${where}: "${String(title)}" opens with focus on its first field (${inside.tag})`)
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    const after = await focused(page)
    t.equal(after.text, openerText, `${where}: Escape closes it and focus returns to "${openerText}"`)
  }

  await page.goto('/#/projects')
  await check('projects', page.getByRole('button', { name: 'New project' }), 'Create project')
  await page.goto('/#/projects/default')
  await check('project', page.getByRole('button', { name: 'New flag' }), 'Create flag')
  await page.getByRole('checkbox', { name: 'Select dark-mode' }).check()
  await check('project', page.getByRole('button', { name: 'Archive selected' }), 'Archive dark-mode?')
  await page.goto('/#/projects/default/flags/dark-mode')
  const development = page.getByRole('region', { name: 'Environment development' })
  await check('flag', development.getByRole('button', { name: 'Add strategy' }), 'Add strategy')
  await check('flag', development.getByRole('button', { name: 'Edit', exact: true }), /^Edit strategy/)
  await check('flag', development.getByRole('button', { name: 'Delete', exact: true }), /^Delete strategy/)
  await check('flag', page.getByRole('button', { name: 'Archive flag' }), 'Archive dark-mode?')
  const sections = [
    ['segments', 'New segment'],
    ['context-fields', 'New context field'],
    ['strategy-types', 'New strategy type'],
    ['tag-types', 'New tag type'],
    ['environments', 'New environment'],
    ['api-tokens', 'New API token'],
    ['users', 'New user'],
    ['groups', 'New group'],
    ['roles', 'New role'],
    ['signup-links', 'New signup link'],
  ]
  for (const [section, title] of sections) {
    await page.goto(`/#/admin/${section}`)
    await check(section, page.getByRole('button', { name: title }), title)
  }

  // The backdrop closes a dialog; a dialog open when the page changes does not follow to the next page.
  await page.goto('/#/admin/segments')
  await page.getByRole('button', { name: 'New segment' }).click()
  await page.getByRole('dialog', { name: 'New segment' }).waitFor()
  await page.mouse.click(5, 5)
  await page.getByRole('dialog').waitFor({ state: 'detached' })
  t.pass('a click on the backdrop closes the dialog')
  await page.getByRole('button', { name: 'New segment' }).click()
  await page.getByRole('dialog', { name: 'New segment' }).waitFor()
  await page.evaluate(() => (location.hash = '#/admin/context-fields'))
  await page.getByRole('button', { name: 'New context field' }).waitFor()
  t.equal(await page.getByRole('dialog').count(), 0, 'after moving to Context fields no dialog is open')
  t.same(errors, [], 'the pages threw no uncaught errors')
})
