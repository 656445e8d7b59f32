import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import t from 'tap'
import { requireChromium, startUi } from './browser.js'

// OpenFeature's browser provider for OFREP (@openfeature/ofrep-web-provider, with @openfeature/web-sdk) in
// Chromium, bundled as an application would: the bulk evaluation, its ETag on each poll, and a toggle
// picked up by a poll.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')

t.test('the OFREP web provider evaluates in bulk, polls with its ETag and picks up a toggle', async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const bundle = await build({
    stdin: { contents: "export { OpenFeature } from '@openfeature/web-sdk'\nexport { OFREPWebProvider } from '@openfeature/ofrep-web-provider'\n", resolveDir: repoRoot, loader: 'js' },
    bundle: true,
    format: 'iife',
    globalName: 'OFREP',
    platform: 'browser',
    write: false,
  })
  const ui = await startUi(t, chromium)
  const token = (await ui.api<{ secret: string }>('POST', '/api/admin/api-tokens', { tokenName: 'web', type: 'frontend', environment: 'development', projects: ['default'] })).secret
  const flag = (name: string, strategy: Record<string, unknown>) => ui.api('POST', `/api/admin/projects/default/features/${name}/environments/development/strategies`, strategy)
  await ui.api('POST', '/api/admin/projects/default/features', { name: 'web-banner' })
  await flag('web-banner', { name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['alice'] }] })
  await ui.api('POST', '/api/admin/projects/default/features/web-banner/environments/development/on')
  await ui.api('POST', '/api/admin/projects/default/features', { name: 'web-theme' })
  await flag('web-theme', { name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: 'web-theme' }, variants: [{ name: 'dark', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'dark' } }] })
  await ui.api('POST', '/api/admin/projects/default/features/web-theme/environments/development/on')

  const { page, errors } = await ui.newPage()
  const bulk: number[] = []
  page.on('response', (response) => {
    if (response.url().endsWith('/ofrep/v1/evaluate/flags')) bulk.push(response.status())
  })
  await page.goto('/health')
  await page.addScriptTag({ content: bundle.outputFiles[0].text })
  const first = await page.evaluate(async (token) => {
    const { OpenFeature, OFREPWebProvider } = (globalThis as any).OFREP
    await OpenFeature.setContext({ targetingKey: 'alice', sessionId: 'tab-1' })
    await OpenFeature.setProviderAndWait(new OFREPWebProvider({ baseUrl: location.origin, headers: [['Authorization', token]], pollInterval: 200 }))
    const client = OpenFeature.getClient()
    ;(globalThis as any).ofClient = client
    return { banner: client.getBooleanDetails('web-banner', false), theme: client.getStringDetails('web-theme', 'light'), missing: client.getBooleanDetails('web-nothing', true) }
  }, token)
  t.match(first.banner, { value: true, reason: 'TARGETING_MATCH' }, 'a boolean flag, targeted by targetingKey')
  t.match(first.theme, { value: 'dark', variant: 'dark' }, "a variant's string payload")
  t.match(first.missing, { value: true, errorCode: 'FLAG_NOT_FOUND' }, 'an unknown flag: the default')

  await page.waitForResponse((response) => response.url().endsWith('/ofrep/v1/evaluate/flags') && response.status() === 304)
  t.ok(bulk.includes(304), 'a poll with nothing changed is answered 304 (the provider sent the ETag)')
  await ui.api('POST', '/api/admin/projects/default/features/web-banner/environments/development/off')
  await page.waitForFunction(() => (globalThis as any).ofClient.getBooleanValue('web-banner', true) === false)
  t.match(await page.evaluate(() => (globalThis as any).ofClient.getBooleanDetails('web-banner', true)), { value: false, reason: 'DISABLED' }, 'the toggle is picked up by a poll')
  t.same(errors, [], 'the page threw no uncaught errors')
})
