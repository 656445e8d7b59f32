import t from 'tap'
import { adminPassword, requireChromium, signIn, startUi } from './browser.js'

interface Project {
  id: string
  name: string
  description: string | null
  featureLimit: number | null
  featureNaming: { pattern: string | null }
  environments: { environment: string; defaultStrategy: { name: string; parameters: Record<string, string> } }[]
}

// Project settings: rename and describe it, a flag limit and naming pattern, the environments it uses
// and a default strategy, and delete it (refused while flags remain, as Unleash answers 409).
t.test("a project's settings rename it, set limits, environments and a default strategy, and delete it", async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  await ui.api('POST', '/api/admin/projects', { id: 'web', name: 'Web' })
  await ui.api('POST', '/api/admin/projects/web/features', { name: 'web-banner' })
  const project = async () => (await ui.api<{ projects: Project[] }>('GET', '/api/admin/projects')).projects.find((p) => p.id === 'web')
  const { page, errors } = await ui.newPage()
  await signIn(page, 'admin', adminPassword)
  await page.goto('/#/projects/web/settings')

  const general = page.getByRole('region', { name: 'General' })
  await general.getByLabel('Project name').fill('Web shop')
  await general.getByLabel('Description').fill('The shop front')
  await general.getByLabel('Flag limit (empty for none)').fill('5')
  await general.getByLabel(/^Pattern/).fill('^web-.+$')
  await general.getByRole('button', { name: 'Save settings' }).click()
  await general.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
  await page.getByRole('heading', { name: 'Web shop' }).waitFor()
  await general.getByLabel('Example').fill('web-checkout')
  await general.getByLabel('Explanation shown when creating a flag').fill('Start with web-')
  const put = page.waitForResponse((res) => res.request().method() === 'PUT' && res.url().endsWith('/api/admin/projects/web'))
  await general.getByRole('button', { name: 'Save settings' }).click()
  t.equal((await put).status(), 200, 'the naming example and explanation are saved')
  await page.getByRole('link', { name: 'Flags' }).click()
  await page.getByRole('button', { name: 'New flag' }).click()
  const create = page.getByRole('dialog', { name: 'Create flag' })
  t.match(await create.getByRole('note').textContent(), 'Start with web-: ^web-.+$ (for example web-checkout)', 'creating a flag shows the naming pattern')
  await page.keyboard.press('Escape')
  await page.getByRole('link', { name: 'Settings' }).click()
  const saved = await project()
  t.same([saved?.name, saved?.description, saved?.featureLimit, saved?.featureNaming.pattern], ['Web shop', 'The shop front', 5, '^web-.+$'], 'name, description, flag limit and naming pattern are saved')

  const environments = page.getByRole('region', { name: 'Environments and default strategies' })
  await environments.getByRole('switch', { name: 'Web shop uses production' }).click()
  await page.waitForSelector('[role=switch][aria-label="Web shop uses production"][aria-checked=false]')
  t.same((await project())?.environments.map((e) => e.environment), ['development'], 'production is no longer used by the project')
  await environments.getByRole('button', { name: 'Edit default strategy in development' }).click()
  const dialog = page.getByRole('dialog', { name: 'Default strategy in development' })
  await dialog.getByLabel('Rollout percentage').fill('50')
  await dialog.getByRole('button', { name: 'Save strategy' }).click()
  await environments.getByRole('cell', { name: 'Gradual rollout 50%' }).waitFor()
  t.equal((await project())?.environments[0]?.defaultStrategy.parameters.rollout, '50', 'the default strategy in development rolls out to 50 %')

  const danger = page.getByRole('region', { name: 'Delete project' })
  await danger.getByRole('button', { name: 'Delete project' }).click()
  await page.getByRole('dialog', { name: 'Delete project Web shop?' }).getByRole('button', { name: 'Delete project' }).click()
  await danger.getByRole('alert').waitFor()
  t.ok(await project(), 'a project with flags is not deleted; the refusal is shown')
  await ui.api('DELETE', '/api/admin/projects/web/features/web-banner')
  await ui.api('DELETE', '/api/admin/archive/web-banner')
  await danger.getByRole('button', { name: 'Delete project' }).click()
  await page.getByRole('dialog', { name: 'Delete project Web shop?' }).getByRole('button', { name: 'Delete project' }).click()
  await page.waitForURL(/#\/projects$/)
  t.equal(await project(), undefined, 'without flags the project is deleted, and the page goes back to the projects')
  t.same(errors, [], 'the pages threw no uncaught errors')
})
