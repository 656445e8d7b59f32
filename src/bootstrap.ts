import type { Dispatcher } from './actors/dispatch.js'
import { hashTokenSecret, newTokenSecret } from './domain/api-tokens.js'
import type { Registry } from './actors/registry.js'
import { randomBytes } from 'node:crypto'
import { randomSecretPart } from './api/api-tokens.routes.js'
import { hashPassword } from './api/passwords.js'
import { initTokenScope, type Config, type InitTokenScope } from './config.js'
import type { CommandMeta } from './domain/events.js'
import type { ApiTokenType } from './domain/instance-state.js'

const systemMeta = (): CommandMeta => ({ now: new Date().toISOString(), actor: { name: 'unleash_system_user', userId: -1337 } })

// Client and frontend entries were checked against the prefix form when the config was read.
const scopeOf = (secret: string, type: ApiTokenType): InitTokenScope =>
  type === 'admin' ? { projects: ['*'], environment: '*' } : initTokenScope(secret)!

export interface BootstrapResult {
  createdAdminToken?: string
  createdAdminPassword?: string
}

// Unleash's first start creates an admin user; its password comes from the environment or is printed once.
const createAdminUser = async (config: Config, registry: Registry, dispatcher: Dispatcher): Promise<string | undefined> => {
  if (registry.committedInstance.people.users.size > 0) return undefined
  const password = config.defaultAdminPassword ?? `${randomBytes(12).toString('base64url')}aA1!`
  await dispatcher.toInstance({
    type: 'user.create',
    input: { username: config.defaultAdminUsername, rootRole: 1, name: 'Admin' },
    passwordHash: await hashPassword(password),
    meta: systemMeta(),
  })
  return config.defaultAdminPassword ? undefined : password
}

// First start: Unleash's fresh install (two environments, the default project), then the init tokens.
export const bootstrap = async (config: Config, registry: Registry, dispatcher: Dispatcher): Promise<BootstrapResult> => {
  const instance = registry.committedInstance
  const isFresh = instance.environments.size === 0 && registry.committedProjects.size === 0
  if (isFresh) {
    await dispatcher.toInstance({ type: 'environment.create', input: { name: 'development', type: 'development', enabled: true, sortOrder: 2 }, meta: systemMeta() })
    await dispatcher.toInstance({ type: 'environment.create', input: { name: 'production', type: 'production', enabled: true, sortOrder: 3 }, meta: systemMeta() })
    await dispatcher.toProject('default', {
      type: 'project.create',
      id: 'default',
      input: { name: 'Default', description: 'Default project' },
      meta: systemMeta(),
    })
  }
  const wanted: [string, ApiTokenType][] = [
    ...config.initAdminTokens.map((s): [string, ApiTokenType] => [s, 'admin']),
    ...config.initClientTokens.map((s): [string, ApiTokenType] => [s, 'client']),
    ...config.initFrontendTokens.map((s): [string, ApiTokenType] => [s, 'frontend']),
  ]
  for (const [secret, type] of wanted) {
    if (registry.committedInstance.apiTokens.has(hashTokenSecret(secret))) continue
    const scope = scopeOf(secret, type)
    await dispatcher.toInstance({
      type: 'apiToken.create',
      input: { tokenName: `init-${type}-token`, type, secret, environment: scope.environment, projects: scope.projects },
      random: randomSecretPart(),
      meta: systemMeta(),
    })
  }
  const createdAdminPassword = await createAdminUser(config, registry, dispatcher)
  const hasAdmin = [...registry.committedInstance.apiTokens.values()].some((t) => t.type === 'admin')
  if (hasAdmin) return { createdAdminPassword }
  const input = { tokenName: 'admin', type: 'admin' } as const
  const random = randomSecretPart()
  await dispatcher.toInstance({ type: 'apiToken.create', input, random, meta: systemMeta() })
  return { createdAdminToken: newTokenSecret(input, random), createdAdminPassword }
}
