import t from 'tap'
import * as v from 'valibot'
import { recordOfType, type CommandMeta, type EventDraft } from '../../src/domain/events.js'
import { decideInstance, evolveInstance, type InstanceCommand } from '../../src/domain/instance.js'
import { emptyInstance, type ApiToken, type InstanceState } from '../../src/domain/instance-state.js'
import { hashTokenSecret, maskTokenSecret, newTokenSecret, tokenSecret } from '../../src/domain/api-tokens.js'
import { limits } from '../../src/domain/limits.js'
import { createApiTokenSchema } from '../../src/schemas/api-tokens.js'
import { assertBadData, environment, errorOf, typesOf, valueOf } from './fixtures/scenario.js'

const random = 'a'.repeat(56)
const meta = (now = '2024-01-01T00:00:00.000Z'): CommandMeta => ({ now, actor: { name: 'admin', userId: 1 } })
const projects = new Set(['default', 'web', 'mobile'])
const world = { projectExists: (id: string) => projects.has(id) }

const tokenInput = (input: v.InferInput<typeof createApiTokenSchema>) => v.parse(createApiTokenSchema, input)

const instance = (): InstanceState => ({
  ...emptyInstance(),
  environments: new Map([
    ['development', environment('development')],
    ['production', environment('production', 'production')],
  ]),
})

class Tokens {
  state = instance()
  readonly events: EventDraft[] = []

  decide(command: InstanceCommand) {
    return decideInstance(this.state, command, { ...world, usedInProjects: () => [] })
  }

  ok(command: InstanceCommand): EventDraft[] {
    const events = valueOf(this.decide(command))
    this.state = events.reduce(evolveInstance, this.state)
    this.events.push(...events)
    return events
  }

  create(input: v.InferInput<typeof createApiTokenSchema>, secretPart = random): { token: ApiToken; events: EventDraft[]; secret: string } {
    const events = this.ok({ type: 'apiToken.create', input: tokenInput(input), random: secretPart, meta: meta() })
    const secret = newTokenSecret(tokenInput(input), secretPart)
    const token = this.state.apiTokens.get(hashTokenSecret(secret))
    if (!token) throw new Error('token not stored')
    return { token, events, secret }
  }
}

t.test('secret formats (SEMANTICS 7.1)', async (t) => {
  t.equal(tokenSecret('backend', ['web'], 'production', random), `web:production.${random}`, 'one project')
  t.equal(tokenSecret('client', ['*'], 'development', random), `*:development.${random}`, 'all projects')
  t.equal(tokenSecret('frontend', ['web', 'mobile'], 'development', random), `[]:development.${random}`, 'several projects')
  t.equal(tokenSecret('admin', ['*'], '*', random), `*:*.${random}`, 'admin')

  const tokens = new Tokens()
  t.equal(tokens.create({ tokenName: 'one', type: 'backend', environment: 'production', projects: ['web'] }, 'b'.repeat(56)).secret, `web:production.${'b'.repeat(56)}`)
  t.equal(tokens.create({ tokenName: 'all', type: 'client' }, 'c'.repeat(56)).secret, `*:development.${'c'.repeat(56)}`)
  t.equal(tokens.create({ tokenName: 'some', type: 'frontend', projects: ['web', 'mobile'] }, 'd'.repeat(56)).secret, `[]:development.${'d'.repeat(56)}`)
  t.equal(tokens.create({ tokenName: 'admin', type: 'admin' }, 'e'.repeat(56)).secret, `*:*.${'e'.repeat(56)}`)
  t.equal(tokens.create({ tokenName: 'given', type: 'client', secret: 'default:development.unleash-insecure-api-token' }).secret, 'default:development.unleash-insecure-api-token', 'an init token keeps its secret')
})

t.test('create', async (t) => {
  t.test('defaults: environment development, all projects', async (t) => {
    const { token, events } = new Tokens().create({ tokenName: 'sdk', type: 'backend' })
    t.same(typesOf(events), ['api-token-created'])
    t.match(token, { tokenName: 'sdk', type: 'backend', environment: 'development', projects: ['*'], expiresAt: null, createdAt: '2024-01-01T00:00:00.000Z' })
    t.match(events[0], { project: '*', environment: 'development' })
  })

  t.test('a list containing * collapses to ["*"]', async (t) => {
    t.same(new Tokens().create({ tokenName: 'sdk', type: 'backend', projects: ['web', '*'] }).token.projects, ['*'])
  })

  t.test('the singular project is ignored: all projects', async (t) => {
    t.same(new Tokens().create({ tokenName: 'sdk', type: 'backend', project: 'web' }).token.projects, ['*'])
  })

  t.test('several projects: the event project is the joined list', async (t) => {
    const { token, events } = new Tokens().create({ tokenName: 'sdk', type: 'backend', projects: ['web', 'mobile'] })
    t.same(token.projects, ['web', 'mobile'])
    t.equal(events[0].project, 'web,mobile')
    t.equal(recordOfType(events, 'api-token-created').data.project, 'web,mobile')
  })

  t.test('the type is read in any case (schema)', async (t) => {
    t.equal(tokenInput({ tokenName: 'x', type: 'Backend' }).type, 'backend')
    t.notOk(v.safeParse(createApiTokenSchema, { tokenName: 'x', type: 'god' }).success)
  })

  t.test('client and backend tokens cannot be scoped to all environments', async (t) => {
    const tokens = new Tokens()
    for (const type of ['client', 'backend'] as const) {
      const error = errorOf(tokens.decide({ type: 'apiToken.create', input: tokenInput({ tokenName: 'x', type, environment: '*' }), random, meta: meta() }))
      assertBadData(t, error, 'Client token cannot be scoped to all environments')
    }
  })

  t.test('frontend tokens cannot be scoped to all environments', async (t) => {
    const error = errorOf(new Tokens().decide({ type: 'apiToken.create', input: tokenInput({ tokenName: 'x', type: 'frontend', environment: '*' }), random, meta: meta() }))
    assertBadData(t, error, 'Frontend token cannot be scoped to all environments')
  })

  t.test('an unknown environment is a 400', async (t) => {
    const error = errorOf(new Tokens().decide({ type: 'apiToken.create', input: tokenInput({ tokenName: 'x', type: 'backend', environment: 'mars' }), random, meta: meta() }))
    assertBadData(t, error, 'Environment=mars does not exist')
  })

  t.test('an unknown project is a 400', async (t) => {
    const error = errorOf(new Tokens().decide({ type: 'apiToken.create', input: tokenInput({ tokenName: 'x', type: 'backend', projects: ['web', 'nope'] }), random, meta: meta() }))
    assertBadData(t, error, 'Project=nope does not exist')
  })

  t.test('more than 2000 tokens is refused', async (t) => {
    const tokens = new Tokens()
    const many = new Map<string, ApiToken>()
    for (let i = 0; i < limits.apiTokens; i++) {
      many.set(`s${i}`, { secretHash: `s${i}`, maskedSecret: `s${i}`, tokenName: `t${i}`, type: 'client', environment: 'development', projects: ['*'], expiresAt: null, createdAt: '' })
    }
    tokens.state = { ...tokens.state, apiTokens: many }
    t.equal(errorOf(tokens.decide({ type: 'apiToken.create', input: tokenInput({ tokenName: 'x', type: 'backend' }), random, meta: meta() })).kind, 'ExceedsLimitError')
  })

  t.test('an expiry is stored as an ISO date-time', async (t) => {
    const { token } = new Tokens().create({ tokenName: 'sdk', type: 'backend', expiresAt: '2030-01-01T01:00:00+01:00' })
    t.equal(token.expiresAt, '2030-01-01T00:00:00.000Z')
  })
})

t.test('update and delete', async (t) => {
  t.test('update sets the expiry with new and old', async (t) => {
    const tokens = new Tokens()
    const { token } = tokens.create({ tokenName: 'sdk', type: 'backend', projects: ['web'] })
    const events = tokens.ok({ type: 'apiToken.update', secretHash: token.secretHash, expiresAt: '2030-01-01T00:00:00.000Z', meta: meta() })
    t.same(typesOf(events), ['api-token-updated'])
    t.match(events[0], { project: 'web', environment: 'development', data: { expiresAt: '2030-01-01T00:00:00.000Z' }, preData: { expiresAt: null } })
    t.equal(tokens.state.apiTokens.get(token.secretHash)?.expiresAt, '2030-01-01T00:00:00.000Z')
  })

  t.test('updating an unknown token is a no-op', async (t) => {
    const tokens = new Tokens()
    const before = tokens.state
    t.same(tokens.ok({ type: 'apiToken.update', secretHash: 'nope', expiresAt: '2030-01-01T00:00:00.000Z', meta: meta() }), [])
    t.equal(tokens.state, before)
  })

  t.test('delete emits api-token-deleted with the token as preData; an unknown secret is a no-op', async (t) => {
    const tokens = new Tokens()
    const { token } = tokens.create({ tokenName: 'sdk', type: 'frontend' })
    const events = tokens.ok({ type: 'apiToken.delete', secretHash: token.secretHash, meta: meta() })
    t.same(typesOf(events), ['api-token-deleted'])
    t.match(events[0].preData, { tokenName: 'sdk', type: 'frontend' })
    t.notOk(tokens.state.apiTokens.has(token.secretHash))
    t.same(tokens.ok({ type: 'apiToken.delete', secretHash: token.secretHash, meta: meta() }), [])
  })
})

t.test('events never carry the secret in data or preData', async (t) => {
  const tokens = new Tokens()
  const a = tokens.create({ tokenName: 'a', type: 'backend', projects: ['web'] }, 'f'.repeat(56))
  const b = tokens.create({ tokenName: 'b', type: 'frontend', projects: ['web', 'mobile'] }, '0'.repeat(56))
  const c = tokens.create({ tokenName: 'c', type: 'admin' }, '1'.repeat(56))
  const d = tokens.create({ tokenName: 'd', type: 'client', secret: 'default:development.my-init-secret' })
  tokens.ok({ type: 'apiToken.update', secretHash: a.token.secretHash, expiresAt: '2030-01-01T00:00:00.000Z', meta: meta() })
  tokens.ok({ type: 'apiToken.update', secretHash: d.token.secretHash, expiresAt: '2031-01-01T00:00:00.000Z', meta: meta() })
  for (const { token } of [a, b, c, d]) tokens.ok({ type: 'apiToken.delete', secretHash: token.secretHash, meta: meta() })
  t.equal(tokens.events.length, 10)
  for (const event of tokens.events) {
    // hidden included: what the log and snapshots hold must not let anyone use a token.
    const stored = JSON.stringify(event)
    for (const { token, secret } of [a, b, c, d]) {
      t.notOk(stored.includes(secret), `${event.type} does not hold ${token.tokenName}'s secret`)
      t.notOk(stored.includes(secret.split('.').pop()!), `${event.type} does not hold ${token.tokenName}'s random part`)
    }
    t.notOk('secret' in (event.data ?? {}), `${event.type} data has no secret field`)
    t.notOk('secret' in (event.preData ?? {}), `${event.type} preData has no secret field`)
    t.match(event.hidden && 'secretHash' in event.hidden ? event.hidden.secretHash : undefined, /^[0-9a-f]{64}$/, `${event.type} keeps the secret's SHA-256 for replay`)
  }
})

t.test('a listing shows the scope and the start of the random part', async (t) => {
  t.equal(maskTokenSecret(`web:production.${'ab'.repeat(28)}`), 'web:production.abababab…')
  t.equal(maskTokenSecret('default:development.short'), 'default:development.sh…')
})

t.test('events of logs written before hashing (plain hidden.secret) replay to hashed tokens', async (t) => {
  const secret = `web:development.${'c'.repeat(56)}`
  const old = { type: 'api-token-created', project: 'web', environment: 'development', createdAt: '2024-01-01T00:00:00.000Z', createdBy: 'admin', createdByUserId: 1,
    data: { tokenName: 'legacy', type: 'client', environment: 'development', project: 'web', projects: ['web'], expiresAt: null, createdAt: '2024-01-01T00:00:00.000Z', alias: null },
    hidden: { secret } } as unknown as EventDraft
  const state = evolveInstance(instance(), old)
  const token = state.apiTokens.get(hashTokenSecret(secret))
  t.match(token, { tokenName: 'legacy', maskedSecret: 'web:development.cccccccc…' })
  t.notOk(JSON.stringify([...state.apiTokens.values()]).includes('c'.repeat(56)), 'state holds no plain secret')
})

t.test('replaying the token events rebuilds the tokens', async (t) => {
  const tokens = new Tokens()
  const a = tokens.create({ tokenName: 'a', type: 'backend', projects: ['web'] }, 'f'.repeat(56)).token
  tokens.create({ tokenName: 'b', type: 'frontend', projects: ['web', 'mobile'] }, '0'.repeat(56))
  tokens.ok({ type: 'apiToken.update', secretHash: a.secretHash, expiresAt: '2030-01-01T00:00:00.000Z', meta: meta() })
  const replayed = structuredClone(tokens.events).reduce(evolveInstance, instance())
  t.same(replayed.apiTokens, tokens.state.apiTokens)
})
