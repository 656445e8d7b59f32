import t from 'tap'
import { adminPassword, requireChromium, screenshotDir, startUi } from './browser.js'
import { recordCalls, startUnleashUiProxy, unleashUiBuild, unleashUiVersion, type UiCall } from './unleash-ui.js'

// Unleash's own admin UI (unleash-server@8.2.0's frontend/build) in front of this server, through a
// proxy as someone would run it, on a person's main jobs: sign in, the projects and project `default`,
// a new flag switched on in development with a gradual rollout for `userId IN alice, bob` and a
// variant, then segments, API tokens, users, the event log and the playground. It fails listing every
// API call that answered 400 or more (or never answered) and every page that crashed.

// Routes another branch is building; until it is merged their 404s are listed like any other.
const builtElsewhere = ['/api/admin/search/features', '/api/admin/search/events']

// React's "an error during concurrent rendering, recovered by rendering synchronously": Unleash 8.2's
// strategy form raises it when a strategy is saved, against Unleash itself too. React recovered, and
// the UI's error boundary saw nothing (a real crash also posts /api/admin/record-ui-error).
const recoveredByReact = /Minified React error #520;/

const pathOf = (url: string) => new URL(url, 'http://ui').pathname

const describeFailure = (call: UiCall) => {
  const elsewhere = builtElsewhere.includes(pathOf(call.url)) ? ' (the search API: another branch, not merged here yet)' : ''
  return `${call.method} ${call.url.slice(0, 200)} -> ${call.status === 0 ? `no answer (${call.failure})` : call.status}${elsewhere}`
}

// GET /api/admin/projects/default/features/ui-flag?x=1 -> GET /api/admin/projects/default/features/:flag
const routeOf = (call: UiCall, flag: string) => `${call.method} ${pathOf(call.url).split(flag).join(':flag')}`

t.test(`Unleash ${unleashUiVersion}'s admin UI in front of this server: a flag's journey, no failing call, no crash`, async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const build = await unleashUiBuild()
  if ('missing' in build) {
    const message = `UNLEASH'S ADMIN UI IS NOT AT HAND: ${build.missing}. The Unleash UI test DID NOT RUN.`
    const bar = '!'.repeat(100)
    process.stderr.write(`\n${bar}\n!! ${message}\n${bar}\n\n`)
    t.comment(message)
    void t.skip(message, () => {})
    return
  }
  if (build.fetched) t.comment(`fetched unleash-server@${unleashUiVersion}'s frontend/build into ${build.dir}`)
  const ui = await startUi(t, chromium)
  const proxy = await startUnleashUiProxy(build.dir, ui.baseUrl)
  t.teardown(() => proxy.close())

  const context = await ui.browser.newContext({ baseURL: proxy.url, viewport: { width: 1400, height: 1000 } })
  t.teardown(() => context.close())
  // Fonts and avatars come from the internet: not part of this, and not to wait for.
  await context.route((url) => url.origin !== proxy.url, (route) => route.abort())
  const page = await context.newPage()
  page.setDefaultTimeout(30_000)
  // Once a flag has a strategy, Unleash's UI may show a one-time tip on their order ("Decide the order
  // evaluation"): a modal popover that hides the rest of the page from role queries until it is dismissed
  // (a click on "Add strategy" once waited 30 s for it). Dismissed whenever it shows before an action.
  await page.addLocatorHandler(page.getByRole('button', { name: 'Ok, got it!' }), (button) => button.click())
  const recorder = recordCalls(page, proxy.url)
  const step = async (name: string, run: () => Promise<void>) => {
    try {
      await run()
    } catch (error) {
      await page.screenshot({ path: `${screenshotDir}/unleash-ui-failed-${name}.png`, fullPage: true }).catch(() => undefined)
      throw new Error(`step "${name}": ${(error as Error).message.split('\n')[0]}`)
    }
  }
  const flag = 'ui-journey'

  await step('sign in', async () => {
    await page.goto('/')
    await page.getByLabel('Email').fill('admin')
    await page.getByLabel('Password', { exact: true }).fill(adminPassword)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(/\/personal$/)
    recorder.signedIn()
  })

  await step('projects', async () => {
    await page.getByRole('link', { name: 'Projects' }).click()
    await page.getByRole('link', { name: /Default/ }).first().click()
    await page.getByRole('heading', { name: 'Default', level: 1 }).waitFor()
    await page.getByRole('heading', { name: /^Feature flags \(\d+\)$/ }).waitFor()
    // The flag table writes its state into the URL once its calls are in; a flag created before that
    // is navigated away from.
    await recorder.quiet()
  })

  await step('create a flag', async () => {
    await page.getByTestId('NAVIGATE_TO_CREATE_FEATURE').last().click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel('feature flag name').fill(flag)
    await dialog.getByRole('button', { name: 'Create feature flag' }).click()
    const heading = page.getByRole('heading', { name: flag, level: 1 })
    // Unleash 8.2's dialog sometimes loses its own navigation to the new flag (seen against Unleash
    // itself): the flag was created, and a person opens it.
    await heading.waitFor({ timeout: 5_000 }).catch(async () => {
      t.comment('the create dialog did not open the new flag; opening it by its address')
      await page.goto(`/projects/default/features/${flag}`)
      await heading.waitFor()
    })
  })

  await step('enable it in development', async () => {
    const development = page.getByRole('switch', { name: 'development', exact: true })
    await development.click()
    await page.getByRole('switch', { name: 'development', exact: true, checked: true }).waitFor()
  })

  await step('add a gradual rollout with a constraint and a variant', async () => {
    // The page opens the environment by itself once it has strategies, or not, depending on timing.
    await recorder.quiet()
    const header = page.getByRole('button', { name: /^Environment development/ })
    if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click()
    await page.getByRole('region').getByRole('button', { name: 'Add strategy' }).click()
    const choices = page.getByRole('dialog')
    const gradualRollout = choices.locator('div').filter({ has: page.getByText('Gradual rollout', { exact: true }) }).filter({ has: page.getByRole('button', { name: 'Configure' }) })
    await gradualRollout.last().getByRole('button', { name: 'Configure' }).click()
    await page.getByRole('tab', { name: /Targeting/ }).click()
    await page.getByRole('button', { name: 'Add constraint' }).click()
    await page.getByRole('combobox', { name: 'Context Field' }).click()
    await page.getByRole('option', { name: 'userId', exact: true }).click()
    await page.getByRole('button', { name: 'Add values' }).click()
    const values = page.getByRole('textbox', { name: 'Constraint Value' })
    await values.fill('alice, bob')
    await page.getByRole('button', { name: 'Add', exact: true }).click()
    await values.press('Escape')
    await page.getByRole('tab', { name: /Variants/ }).click()
    await page.getByRole('button', { name: 'Add variant' }).click()
    await page.getByRole('textbox', { name: 'Variant name' }).fill('blue')
    await page.getByRole('textbox', { name: 'Value' }).fill('#00f')
    await page.getByRole('button', { name: 'Save strategy' }).click()
    await page.getByRole('heading', { name: /^Constraint userId IN/ }).waitFor()
  })

  const env = await ui.api<{ enabled: boolean; strategies: { name: string; constraints: unknown[]; variants: { name: string; payload?: unknown }[] }[] }>(
    'GET',
    `/api/admin/projects/default/features/${flag}/environments/development`,
  )
  t.equal(env.enabled, true, 'the flag is on in development')
  t.match(
    env.strategies.find((s) => s.constraints.length > 0),
    { name: 'flexibleRollout', constraints: [{ contextName: 'userId', operator: 'IN', values: ['alice', 'bob'] }], variants: [{ name: 'blue', payload: { type: 'string', value: '#00f' } }] },
    'the UI saved the gradual rollout with its constraint and variant',
  )

  await step('segments', async () => {
    // The Configure group may already be open; a click that lands while it unfolds can be lost on a
    // loaded machine, so the link is clicked again until the page changes.
    const segments = page.getByRole('link', { name: 'Segments' })
    if (!(await segments.isVisible())) await page.getByRole('button', { name: 'Configure' }).click()
    await segments.click()
    await page.waitForURL(/\/segments$/, { timeout: 5_000 }).catch(() => segments.click())
    await page.getByRole('heading', { name: /^Segments \(\d+\)$/ }).waitFor()
  })

  await step('API tokens', async () => {
    await page.getByRole('link', { name: 'Admin settings' }).click()
    await page.getByRole('button', { name: 'User config' }).click()
    await page.getByRole('button', { name: 'Access control' }).click()
    await page.getByRole('link', { name: 'API access' }).click()
    await page.getByRole('heading', { name: /^API access \(\d+\)$/ }).waitFor()
  })

  await step('users', async () => {
    await page.getByRole('link', { name: 'Users' }).click()
    await page.getByRole('heading', { name: /^Users \(\d+\)$/ }).waitFor()
    await page.getByRole('cell', { name: 'admin' }).first().waitFor()
  })

  await step('event log', async () => {
    await page.getByRole('link', { name: 'Event log' }).click()
    await page.getByRole('heading', { name: /^Event log \(\d+\)$/ }).waitFor()
  })

  await step('playground', async () => {
    await page.getByRole('link', { name: 'Back to Unleash' }).click()
    await page.getByRole('link', { name: 'Playground' }).click()
    await page.getByRole('combobox', { name: 'Context field' }).click()
    await page.getByRole('option', { name: 'userId', exact: true }).click()
    await page.getByRole('textbox', { name: 'Value' }).fill('alice')
    await page.getByRole('button', { name: 'Add', exact: true }).click()
    await page.getByRole('button', { name: 'Try configuration' }).click()
    await page.getByRole('row', { name: new RegExp(`^${flag} default`) }).waitFor()
  })
  await recorder.quiet()
  await ui.screenshot(page, 'unleash-ui-playground')

  const byRoute = new Map<string, Set<number>>()
  for (const call of recorder.calls) byRoute.set(routeOf(call, flag), (byRoute.get(routeOf(call, flag)) ?? new Set()).add(call.status))
  t.comment(`the UI's calls:\n${[...byRoute].sort().map(([route, statuses]) => `  ${route} ${[...statuses].sort().join(',')}`).join('\n')}`)
  // Before sign-in the UI asks who is signed in; Unleash answers those with 401 too.
  const failed = recorder.calls.filter((c) => (c.status === 0 || c.status >= 400) && !(c.beforeSignIn && c.status === 401))
  t.same([...new Set(failed.map(describeFailure))], [], 'no call of the UI failed')
  const recovered = recorder.crashes.filter((c) => recoveredByReact.test(c))
  if (recovered.length > 0) t.comment(`React recovered from ${recovered.length} rendering error(s) (#520), as it does against Unleash 8.2 itself`)
  t.same(recorder.crashes.filter((c) => !recoveredByReact.test(c)), [], 'no page crashed')
})
