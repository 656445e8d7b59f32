import { idList } from './id-list.js'
import { bucketOf, hashPrefix, normalizedValue, STRATEGY_SEED } from './hash.js'
import { always, dottedQuad, ipv4Network, isInIpv4Network, networkAddress, never, parseAddress4, valueOf, type ContextTest } from './operators.js'
import type { EvalContext } from './types.js'

export interface StrategyEnvironment {
  hostname: string
  random: () => number
}

type StrategyCompiler = (parameters: Record<string, string>, env: StrategyEnvironment) => ContextTest

// Unleash: the server sends parameters as strings (objects as JSON, null as
// ""), so the SDK's `Number(x)` and `split` see exactly these.
// Parameters that are all strings already (as the server keeps them) are used as they are.
export const stringParameters = (parameters: Record<string, unknown> | undefined): Record<string, string> => {
  if (parameters && Object.values(parameters).every((value) => typeof value === 'string')) return parameters as Record<string, string>
  const result: Record<string, string> = {}
  if (!parameters) return result
  for (const [key, value] of Object.entries(parameters)) {
    if (value === undefined) continue
    result[key] = value === null ? '' : typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value)
  }
  return result
}

const list = (value: string | undefined): string[] => (value ? value.split(/\s*,\s*/) : [])

// `percentage > 0 && normalized <= percentage`; normalized lies in 1..100.
const rolloutOf = (value: string | undefined): 'none' | 'all' | number => {
  const percentage = Number(value)
  if (!(percentage > 0)) return 'none'
  return percentage >= 100 ? 'all' : percentage
}

const gradualRollout =
  (idOf: (ctx: EvalContext) => unknown): StrategyCompiler =>
  (parameters) => {
    const rollout = rolloutOf(parameters.percentage)
    if (rollout === 'none') return never
    if (rollout === 'all') return (ctx) => !!idOf(ctx)
    const { state, before, head, headLength } = hashPrefix(`${parameters.groupId || ''}:`, STRATEGY_SEED)
    return (ctx) => {
      const id = idOf(ctx)
      return !!id && bucketOf(state, before, head, headLength, typeof id === 'string' ? id : `${id}`, 100) <= rollout
    }
  }

// The SDK's random stickiness: an id drawn per evaluation.
const randomStickyId = (random: () => number): string => `${Math.round(random() * 10000) + 1}`

// The id a flexibleRollout buckets: by its stickiness ('default': userId, sessionId, then a random id).
const stickyId = (ctx: EvalContext, stickiness: string, random: () => number): unknown =>
  stickiness === 'default' ? ctx.userId || ctx.sessionId || randomStickyId(random) : stickiness === 'random' ? randomStickyId(random) : valueOf(ctx, stickiness)

// Each rule below is one closure over what it reads, made by a function of its own: a closure keeps its
// creator's whole context, so one function making them all kept every rule's variables and helper closures
// (issue 26: three closures and a context of ten slots for each flexibleRollout strategy).
const presentRule = (field: string): ContextTest => (ctx) => !!valueOf(ctx, field)

const groupRule = (groupId: string, rollout: number, stickiness: string, random: () => number): ContextTest => {
  // The prefix's hash state, with the usual stickiness read in the same closure: an evaluation reaches one
  // function and its context (issue 26: most of an evaluation is cache misses).
  const { state, before, head, headLength } = hashPrefix(`${groupId}:`, STRATEGY_SEED)
  if (stickiness === 'default') {
    return (ctx) => {
      const id = ctx.userId || ctx.sessionId || randomStickyId(random)
      return bucketOf(state, before, head, headLength, typeof id === 'string' ? id : `${id}`, 100) <= rollout
    }
  }
  return (ctx) => {
    const id = stickyId(ctx, stickiness, random)
    return !!id && bucketOf(state, before, head, headLength, typeof id === 'string' ? id : `${id}`, 100) <= rollout
  }
}

// Unleash: SDK flexible-rollout-strategy.ts falls back to context.featureToggle without a groupId.
const featureRule = (rollout: number, stickiness: string, random: () => number): ContextTest => (ctx) => {
  const id = stickyId(ctx, stickiness, random)
  return !!id && normalizedValue(`${ctx.featureToggle || ''}:${id}`, 100, STRATEGY_SEED) <= rollout
}

const flexibleRollout: StrategyCompiler = (parameters, { random }) => {
  const rollout = rolloutOf(parameters.rollout)
  if (rollout === 'none') return never
  const stickiness = parameters.stickiness || 'default'
  if (rollout === 'all') return stickiness === 'default' || stickiness === 'random' ? always : presentRule(stickiness)
  return parameters.groupId ? groupRule(parameters.groupId, rollout, stickiness, random) : featureRule(rollout, stickiness, random)
}

// flexibleRollout's usual shape: a groupId, a rollout above 0 (100 for all), and the default stickiness or a
// context field's. Its numbers go into the flag's own object (compile.ts), so that evaluating it reaches no
// closure and no context of one (issue 26: most of an evaluation is cache misses).
export interface PlainRollout {
  rollout: number
  // '' for the default stickiness (userId, sessionId, then a random id: the rule's), else the context field.
  stickiness: string
  state: number
  before: number
  head: number
  headLength: number
}

export const plainRollout = (name: string, parameters: Record<string, string>): PlainRollout | undefined => {
  const stickiness = parameters.stickiness || 'default'
  if (name !== 'flexibleRollout' || stickiness === 'random' || !parameters.groupId) return undefined
  const rollout = rolloutOf(parameters.rollout)
  if (rollout === 'none') return undefined
  const { state, before, head, headLength } = hashPrefix(`${parameters.groupId}:`, STRATEGY_SEED)
  return { rollout: rollout === 'all' ? 100 : rollout, stickiness: stickiness === 'default' ? '' : stickiness, state, before, head, headLength }
}

const gradualRolloutRandom: StrategyCompiler = (parameters, { random }) => {
  const percentage = Number(parameters.percentage)
  if (!(percentage >= 1)) return never
  if (percentage >= 100) return always
  return () => percentage >= Math.floor(random() * 100) + 1
}

// One function for every list, so that the lists' test calls one target.
const userIdOf = (ctx: EvalContext): unknown => ctx.userId

const userWithId: StrategyCompiler = (parameters) => {
  return idList(parameters.userIds, userIdOf) ?? never
}

const remoteAddress: StrategyCompiler = (parameters) => {
  if (!parameters.IPs) return never
  const entries = list(parameters.IPs)
  const networks = entries.map(ipv4Network).filter((n) => n !== undefined)
  return (ctx) => {
    const remote = ctx.remoteAddress
    for (const entry of entries) if (entry === remote) return true
    if (networks.length === 0) return false
    const value = (remote as string) || ''
    // ip-address refuses it by throwing, which costs microseconds (the playground meets it in every context without one).
    if (value === '') return false
    const quad = dottedQuad(value)
    if (quad >= 0) {
      for (const network of networks) if (isInIpv4Network(quad, network)) return true
      return false
    }
    const address = parseAddress4(value)
    if (address === undefined) return false
    for (const network of networks) if (address.isInSubnet(networkAddress(network))) return true
    return false
  }
}

const applicationHostname: StrategyCompiler = (parameters, { hostname }) =>
  list(parameters.hostNames?.toLowerCase()).includes(hostname) ? always : never

const builtIn: Record<string, StrategyCompiler> = {
  default: () => always,
  userWithId,
  gradualRolloutUserId: gradualRollout((ctx) => ctx.userId),
  gradualRolloutSessionId: gradualRollout((ctx) => ctx.sessionId),
  gradualRolloutRandom,
  remoteAddress,
  applicationHostname,
  flexibleRollout,
}

// undefined: a strategy this evaluator does not know, false for SDKs.
export const compileStrategyRule = (
  name: string,
  parameters: Record<string, string>,
  env: StrategyEnvironment,
): ContextTest | undefined => (Object.hasOwn(builtIn, name) ? builtIn[name](parameters, env) : undefined)
