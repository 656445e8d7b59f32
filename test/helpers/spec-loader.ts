// Loads a file of @unleash/client-specification into a running server through the admin API only,
// and works out, in code, which of its cases the admin API cannot express (and why).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { RE2JS } from 're2js'
import semver from 'semver'
import { api, type ApiResult, type ServerRef } from './admin-api.js'

// ---------------------------------------------------------------- spec shapes

export interface SpecConstraint {
  contextName: string
  operator: string
  values?: string[]
  value?: string
  inverted?: boolean
  caseInsensitive?: boolean
}

export interface SpecOverride {
  contextName: string
  values: string[]
}

export interface SpecVariant {
  name: string
  weight: number
  weightType?: string
  stickiness?: string
  payload?: { type: string; value: string }
  overrides?: SpecOverride[]
}

export interface SpecStrategy {
  name: string
  parameters?: Record<string, unknown>
  constraints?: SpecConstraint[]
  segments?: number[]
  variants?: SpecVariant[]
  disabled?: boolean
}

export interface SpecDependency {
  feature: string
  enabled?: boolean
  variants?: string[]
}

export interface SpecFeature {
  name: string
  type?: string
  project?: string
  description?: string | null
  impressionData?: boolean
  enabled: boolean
  strategies?: SpecStrategy[] | null
  variants?: SpecVariant[]
  dependencies?: SpecDependency[]
}

export interface SpecSegment {
  id: number
  name?: string
  constraints: SpecConstraint[]
}

export interface SpecContext {
  appName?: string
  environment?: string
  userId?: string
  sessionId?: string
  remoteAddress?: string
  currentTime?: string
  properties?: Record<string, string | null>
  [key: string]: unknown
}

export interface ExpectedVariant {
  name: string
  enabled: boolean
  payload?: { type: string; value: string }
  feature_enabled: boolean
}

export interface SpecCase<R> {
  description: string
  context: SpecContext
  toggleName: string
  expectedResult: R
}

export interface Spec {
  name: string
  state: { version?: number; features?: SpecFeature[]; segments?: SpecSegment[]; events?: unknown[] }
  tests?: SpecCase<boolean>[]
  variantTests?: SpecCase<ExpectedVariant>[]
}

const require = createRequire(import.meta.url)
export const specDir = path.dirname(require.resolve('@unleash/client-specification/specifications/index.json'))
export const specFiles: string[] = JSON.parse(readFileSync(path.join(specDir, 'index.json'), 'utf8'))
export const loadSpec = (file: string): Spec => JSON.parse(readFileSync(path.join(specDir, file), 'utf8'))

// ---------------------------------------------------------------- what is invalid by nature
// These are the rules of the admin API's contract (SEMANTICS 2.4, 3.4, 4.2, 11.1), with the operators the
// SDKs evaluate (IN_CIDR, inverted REGEX, SEMVER_GTE/LTE) accepted. They are decided here, before loading,
// so that a refusal the server should not make shows up as a failure, never as a silently listed case.

const multiValueOperators = ['IN', 'NOT_IN', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'STR_CONTAINS', 'IN_CIDR']
const numberOperators = ['NUM_EQ', 'NUM_GT', 'NUM_GTE', 'NUM_LT', 'NUM_LTE']
const dateOperators = ['DATE_AFTER', 'DATE_BEFORE']
const semverOperators = ['SEMVER_EQ', 'SEMVER_GT', 'SEMVER_LT', 'SEMVER_GTE', 'SEMVER_LTE']
export const sdkOperators = new Set([...multiValueOperators, ...numberOperators, ...dateOperators, ...semverOperators, 'REGEX'])

export const isUrlFriendly = (name: string) => name.length >= 1 && name.length <= 100 && encodeURIComponent(name) === name && name !== '.' && name !== '..'

const constraintProblem = (c: SpecConstraint): string | undefined => {
  const op = c.operator
  if (!sdkOperators.has(op)) return `unknown operator ${op}`
  for (const value of c.values ?? []) {
    if (typeof value !== 'string' || value.length < 1 || value.length > 100) return `a ${op} value ${JSON.stringify(value)} is not 1 to 100 characters`
  }
  if (multiValueOperators.includes(op)) return undefined
  const value = c.value
  if (value === undefined || value === '') return `${op} without a value`
  if (numberOperators.includes(op) && Number.isNaN(Number(value))) return `${op} value "${value}" is not a number`
  if (dateOperators.includes(op) && Number.isNaN(Date.parse(value))) return `${op} value "${value}" is not a date`
  if (semverOperators.includes(op) && (!semver.valid(value) || value.startsWith('v'))) {
    return `${op} value "${value}" is not a strict semver version (Unleash refuses it too; SDKs evaluate it to false)`
  }
  if (op === 'REGEX') {
    try {
      RE2JS.compile(value, c.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0)
    } catch {
      return `REGEX "${value}" does not compile as RE2 (Unleash refuses it too; SDKs evaluate it to false)`
    }
  }
  return undefined
}

const variantProblem = (v: SpecVariant): string | undefined => {
  if (!isUrlFriendly(v.name)) return `variant name "${v.name}" is not URL-safe`
  if (!Number.isInteger(v.weight) || v.weight < 0 || v.weight > 1000) return `variant weight ${v.weight} is not an integer 0..1000`
  if (v.payload && !['json', 'csv', 'string', 'number'].includes(v.payload.type)) return `variant payload type "${v.payload.type}" is unknown`
  return undefined
}

const segmentProblem = (segment: SpecSegment): string | undefined => {
  for (const c of segment.constraints ?? []) {
    const problem = constraintProblem(c)
    if (problem) return `segment ${segment.id}: ${problem}`
  }
  return undefined
}

const strategyProblem = (s: SpecStrategy, loadableSegments: Set<number>, allSegments: Map<number, string | undefined>): string | undefined => {
  for (const c of s.constraints ?? []) {
    const problem = constraintProblem(c)
    if (problem) return `strategy ${s.name}: ${problem}`
  }
  for (const id of s.segments ?? []) {
    if (!allSegments.has(id)) return `strategy ${s.name} references segment id ${id}, which the state does not define`
    if (!loadableSegments.has(id)) return `strategy ${s.name} references segment ${id}, which cannot be loaded (${allSegments.get(id)})`
  }
  if ((s.segments ?? []).length > 5) return `strategy ${s.name} has more than 5 segments`
  for (const v of s.variants ?? []) {
    const problem = variantProblem(v)
    if (problem) return `strategy ${s.name}: ${problem}`
  }
  return undefined
}

export interface Analysis {
  // Segments that the admin API must refuse, with the reason.
  refusedSegments: Map<number, string>
  // Flags whose every case is listed, with the reason (decided before loading).
  listedFlags: Map<string, string>
  // Strategies (flag → indexes) that the admin API must refuse.
  refusedStrategies: Map<string, Map<number, string>>
  // Dependency links to store, and links the admin API must refuse once the others are stored.
  links: { child: string; dependency: SpecDependency }[]
  refusedLinks: { child: string; dependency: SpecDependency; reason: string }[]
  // Flags with several parents: each link is accepted, but only the last is kept.
  replacedLinks: { child: string; dependencies: SpecDependency[] }[]
  // Flag → reason: only its variant cases are listed, because the variants the admin API stores
  // (storedVariantsOf) select differently from the spec's.
  listedVariantFlags: Map<string, string>
}

// What the admin API stores for a list of variants (SEMANTICS 3, as Unleash): sorted by name, the
// weight left after the "fix" ones shared evenly among the others (the first ones get the remainder),
// a strategy variant's stickiness "default" when none is given.
export const storedVariantsOf = (variants: readonly SpecVariant[]): SpecVariant[] => {
  const sorted = [...variants].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const fixedTotal = sorted.filter((v) => v.weightType === 'fix').reduce((sum, v) => sum + v.weight, 0)
  const variable = sorted.filter((v) => v.weightType !== 'fix')
  const share = variable.length > 0 ? Math.floor((1000 - fixedTotal) / variable.length) : 0
  let remainder = variable.length > 0 ? (1000 - fixedTotal) % variable.length : 0
  return sorted.map((v) => {
    const weight = v.weightType === 'fix' ? v.weight : share + (remainder-- > 0 ? 1 : 0)
    return { ...v, weight, stickiness: v.stickiness || 'default' }
  })
}

export const analyse = (spec: Spec): Analysis => {
  const features = spec.state.features ?? []
  const byName = new Map(features.map((f) => [f.name, f]))
  const allSegments = new Map<number, string | undefined>()
  const refusedSegments = new Map<number, string>()
  for (const segment of spec.state.segments ?? []) {
    const problem = segmentProblem(segment)
    allSegments.set(segment.id, problem)
    if (problem) refusedSegments.set(segment.id, problem)
  }
  const loadableSegments = new Set([...allSegments.keys()].filter((id) => !refusedSegments.has(id)))
  const listedFlags = new Map<string, string>()
  const refusedStrategies = new Map<string, Map<number, string>>()
  const projectOf = (f: SpecFeature) => f.project ?? 'default'

  for (const feature of features) {
    if (!isUrlFriendly(feature.name)) {
      listedFlags.set(feature.name, `flag name "${feature.name}" is not URL-safe (encodeURIComponent changes it), so the admin API cannot create it`)
      continue
    }
    if (!Array.isArray(feature.strategies)) {
      listedFlags.set(feature.name, 'its strategies are not a list, which the admin API cannot store')
      continue
    }
    const refused = new Map<number, string>()
    ;(feature.strategies ?? []).forEach((s, i) => {
      const problem = strategyProblem(s, loadableSegments, allSegments)
      if (problem) refused.set(i, problem)
    })
    if (refused.size > 0) {
      refusedStrategies.set(feature.name, refused)
      listedFlags.set(feature.name, `${[...refused.values()].join('; ')}: the admin API refuses that strategy`)
      continue
    }
    for (const v of feature.variants ?? []) {
      const problem = variantProblem(v)
      if (problem) {
        listedFlags.set(feature.name, `${problem}: the admin API refuses it`)
        break
      }
    }
  }

  // Dependencies: Unleash keeps one parent per flag and no chains (SEMANTICS 4.2).
  const links: Analysis['links'] = []
  const refusedLinks: Analysis['refusedLinks'] = []
  const replacedLinks: Analysis['replacedLinks'] = []
  for (const feature of features) {
    const dependencies = feature.dependencies ?? []
    if (dependencies.length === 0 || listedFlags.has(feature.name)) continue
    if (dependencies.length > 1) {
      listedFlags.set(feature.name, `it has ${dependencies.length} parents; the admin API keeps one parent per flag (adding one replaces the other, as in Unleash)`)
      const storable = dependencies.every((d) => d.feature !== feature.name && byName.has(d.feature) && (byName.get(d.feature)!.dependencies ?? []).length === 0)
      if (storable) replacedLinks.push({ child: feature.name, dependencies })
      continue
    }
    const dependency = dependencies[0]
    const parent = byName.get(dependency.feature)
    let reason: string | undefined
    if (dependency.feature === feature.name) reason = 'it depends on itself, which the admin API refuses'
    else if (!parent) reason = `it depends on "${dependency.feature}", which the state does not define; the admin API refuses a dependency on a flag that does not exist`
    else if ((parent.dependencies ?? []).length > 0) {
      const cycle = (parent.dependencies ?? []).some((d) => d.feature === feature.name)
      reason = `it depends on "${parent.name}", which has its own dependency (a ${cycle ? 'cycle' : 'chain'}); the admin API refuses transitive dependencies`
    } else if (projectOf(parent) !== projectOf(feature)) reason = `its parent "${parent.name}" is in another project; the admin API refuses that`
    else if ((dependency.variants ?? []).some((v) => !isUrlFriendly(v))) reason = 'a dependency variant name is not URL-safe'
    if (reason) {
      listedFlags.set(feature.name, reason)
      // A chain link on a parent whose own link is stored must be refused by the server.
      if (parent && parent.name !== feature.name && (parent.dependencies ?? []).length === 1) refusedLinks.push({ child: feature.name, dependency, reason })
    } else links.push({ child: feature.name, dependency })
  }
  // A flag depending on a flag that is not loaded as specified is not either.
  for (let changed = true; changed; ) {
    changed = false
    for (const { child, dependency } of links) {
      if (!listedFlags.has(child) && listedFlags.has(dependency.feature)) {
        listedFlags.set(child, `it depends on "${dependency.feature}", which is listed (${listedFlags.get(dependency.feature)})`)
        changed = true
      }
    }
  }
  // Variants: compared with what the admin API will store, before anything is loaded.
  const listedVariantFlags = new Map<string, string>()
  for (const feature of features) {
    if (listedFlags.has(feature.name)) continue
    for (const [i, strategy] of (Array.isArray(feature.strategies) ? feature.strategies : []).entries()) {
      const variants = strategy.variants ?? []
      const strategyStickiness = asStringParameters(strategy.parameters).stickiness || 'default'
      const specStickiness = variants[0]?.stickiness || strategyStickiness
      const stored = storedVariantsOf(variants)
      const difference = variantDifference(variants, stored, specStickiness, stored[0]?.stickiness ?? 'default')
      if (difference && !listedVariantFlags.has(feature.name)) listedVariantFlags.set(feature.name, `strategy #${i} variants: ${difference}`)
    }
    const flagVariants = feature.variants ?? []
    const stored = storedVariantsOf(flagVariants)
    const difference = variantDifference(flagVariants, stored, flagVariants[0]?.stickiness || 'default', stored[0]?.stickiness ?? 'default')
    if (difference && !listedVariantFlags.has(feature.name)) listedVariantFlags.set(feature.name, `flag variants: ${difference}`)
  }
  // A child that depends on named variants of a parent whose variants are not the spec's.
  for (const { child, dependency } of links) {
    const parentDifference = listedVariantFlags.get(dependency.feature)
    if (!listedFlags.has(child) && dependency.enabled !== false && (dependency.variants ?? []).length > 0 && parentDifference) {
      listedFlags.set(child, `it depends on variants of "${dependency.feature}", whose ${parentDifference}`)
    }
  }
  return { refusedSegments, listedFlags, refusedStrategies, links: links.filter((l) => !listedFlags.has(l.child)), refusedLinks, replacedLinks, listedVariantFlags }
}

// ---------------------------------------------------------------- variants: is the stored selection the spec's?

const samePayload = (a: SpecVariant['payload'], b: SpecVariant['payload']) =>
  (a === undefined && b === undefined) || (a !== undefined && b !== undefined && a.type === b.type && a.value === b.value)

const sameOverrides = (a: SpecOverride[] | undefined, b: SpecOverride[] | undefined) => JSON.stringify(a ?? []) === JSON.stringify(b ?? [])

// undefined when an SDK selects the same variant from both lists for every context (SEMANTICS 3.1, 3.2);
// else why not. Weight normalisation is harmless only where one variant carries all the weight.
export const variantDifference = (spec: SpecVariant[], stored: SpecVariant[], specStickiness: string, storedStickiness: string): string | undefined => {
  const names = (list: SpecVariant[]) => list.map((v) => v.name)
  if (JSON.stringify([...names(spec)].sort()) !== JSON.stringify([...names(stored)].sort())) {
    return `the admin API stores the variants ${names(stored).join(', ') || '(none)'} where the spec has ${names(spec).join(', ') || '(none)'}`
  }
  if (spec.length === 0) return undefined
  const storedByName = new Map(stored.map((v) => [v.name, v]))
  for (const v of spec) {
    if (!samePayload(v.payload, storedByName.get(v.name)!.payload)) return `the stored payload of variant ${v.name} differs`
    if (!sameOverrides(v.overrides, storedByName.get(v.name)!.overrides)) return `the stored overrides of variant ${v.name} differ (strategy variants have no overrides in the admin API)`
  }
  const total = (list: SpecVariant[]) => list.reduce((sum, v) => sum + v.weight, 0)
  if (total(spec) <= 0 && total(stored) <= 0) return undefined
  const positive = (list: SpecVariant[]) => list.filter((v) => v.weight > 0).map((v) => v.name)
  const [specPositive, storedPositive] = [positive(spec), positive(stored)]
  if (specPositive.length === 1 && storedPositive.length === 1 && specPositive[0] === storedPositive[0]) return undefined
  const reasons: string[] = []
  if (spec.some((v) => v.weight !== storedByName.get(v.name)!.weight)) {
    reasons.push(
      `not expressible: the admin API normalises weights to a total of 1000 (as Unleash does): spec ${spec.map((v) => `${v.name}=${v.weight}`).join(' ')}, stored ${stored.map((v) => `${v.name}=${v.weight}`).join(' ')}`,
    )
  }
  if (names(spec).join('\u0000') !== names(stored).join('\u0000')) {
    reasons.push(`the admin API stores variants sorted by name (as Unleash does): ${names(stored).join(', ')} instead of ${names(spec).join(', ')}, which moves the hash buckets`)
  }
  if (specStickiness !== storedStickiness) {
    reasons.push(
      `the stored variant stickiness is "${storedStickiness}" where the spec's is "${specStickiness}" (the admin API defaults a strategy variant's stickiness to "default"; SDKs fall back to the strategy's)`,
    )
  }
  return reasons.length > 0 ? reasons.join('; ') : undefined
}

// ---------------------------------------------------------------- loading

export interface LoadStep {
  what: string
  expected: 'accepted' | 'refused'
  status: number
  text: string
  // The refusal reason, for expected refusals.
  reason?: string
}

export interface Loaded {
  analysis: Analysis
  steps: LoadStep[]
  // Facts about the stored state that justify a listing.
  checks: { what: string; ok: boolean; detail: string }[]
  // Flag → reason: all of its cases are listed.
  listedFlags: Map<string, string>
  // Flag → reason: only its variant cases are listed.
  listedVariantFlags: Map<string, string>
  // Flags created and compared with the spec after loading.
  loadedFlags: string[]
}

const environment = 'development'

const asStringParameters = (parameters: Record<string, unknown> | undefined) => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(parameters ?? {})) out[k] = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v)
  return out
}

const featurePath = (project: string, name: string) => `/api/admin/projects/${encodeURIComponent(project)}/features/${encodeURIComponent(name)}`

export const loadSpecState = async (server: ServerRef, spec: Spec): Promise<Loaded> => {
  const analysis = analyse(spec)
  const features = spec.state.features ?? []
  const steps: LoadStep[] = []
  const listedFlags = analysis.listedFlags
  const listedVariantFlags = analysis.listedVariantFlags
  const call = async (what: string, method: string, urlPath: string, body: unknown, refusal?: string): Promise<ApiResult> => {
    const res = await api(server, method, urlPath, body)
    steps.push({ what, expected: refusal ? 'refused' : 'accepted', status: res.status, text: res.text.slice(0, 500), ...(refusal ? { reason: refusal } : {}) })
    return res
  }
  const projectOf = (f: SpecFeature) => f.project ?? 'default'

  // Projects other than default.
  const projects = new Set(features.filter((f) => isUrlFriendly(f.name)).map(projectOf))
  for (const project of projects) {
    if (project !== 'default') await call(`create project ${project}`, 'POST', '/api/admin/projects', { id: project, name: project })
  }

  // Strategy types the server does not know yet (custom strategies: SDKs treat them as unknown → false).
  const known = new Set(((await api(server, 'GET', '/api/admin/strategies')).body?.strategies ?? []).map((s: { name: string }) => s.name))
  const usedTypes = new Set(features.filter((f) => isUrlFriendly(f.name)).flatMap((f) => (Array.isArray(f.strategies) ? f.strategies.map((s) => s.name) : [])))
  for (const name of usedTypes) {
    if (!known.has(name)) await call(`create strategy type ${name}`, 'POST', '/api/admin/strategies', { name, parameters: [] })
  }

  // Segments: spec ids → server ids.
  const segmentIds = new Map<number, number>()
  for (const segment of spec.state.segments ?? []) {
    const refusal = analysis.refusedSegments.get(segment.id)
    const res = await call(`create segment ${segment.id}`, 'POST', '/api/admin/segments', { name: segment.name ?? `spec-segment-${segment.id}`, constraints: segment.constraints }, refusal)
    if (res.status === 201) segmentIds.set(segment.id, res.body.id)
  }

  // Flags and their strategies, in the spec's order.
  const created: SpecFeature[] = []
  for (const feature of features) {
    const refusal = isUrlFriendly(feature.name) ? undefined : analysis.listedFlags.get(feature.name)
    const body: Record<string, unknown> = { name: feature.name }
    if (typeof feature.description === 'string') body.description = feature.description
    if (typeof feature.impressionData === 'boolean') body.impressionData = feature.impressionData
    if (feature.type !== undefined) body.type = feature.type
    const res = await call(`create flag ${feature.name}`, 'POST', `/api/admin/projects/${encodeURIComponent(projectOf(feature))}/features`, body, refusal)
    if (res.status !== 201) continue
    created.push(feature)
    const refusedHere = analysis.refusedStrategies.get(feature.name)
    for (const [i, strategy] of (Array.isArray(feature.strategies) ? feature.strategies : []).entries()) {
      await call(
        `add strategy #${i} (${strategy.name}) to ${feature.name}`,
        'POST',
        `${featurePath(projectOf(feature), feature.name)}/environments/${environment}/strategies`,
        {
          name: strategy.name,
          parameters: asStringParameters(strategy.parameters),
          constraints: strategy.constraints ?? [],
          // A segment that was not created is sent as an id no fresh server has.
          segments: (strategy.segments ?? []).map((id) => segmentIds.get(id) ?? 2_147_483_647),
          // The admin API requires both (INTERFACE 2.3, as Unleash 8.2): sent as the server used to default them.
          variants: (strategy.variants ?? []).map((v) => ({ ...v, weightType: v.weightType ?? 'variable', stickiness: v.stickiness || 'default' })),
          ...(strategy.disabled !== undefined ? { disabled: strategy.disabled } : {}),
        },
        refusedHere?.get(i),
      )
    }
    if ((feature.variants ?? []).length > 0) {
      await call(`set variants of ${feature.name}`, 'PUT', `${featurePath(projectOf(feature), feature.name)}/environments/${environment}/variants`, feature.variants)
    }
  }

  // Dependencies: the storable links, then the links the server must refuse.
  const byName = new Map(features.map((f) => [f.name, f]))
  for (const { child, dependency } of analysis.links) {
    await call(`add dependency ${child} → ${dependency.feature}`, 'POST', `${featurePath(projectOf(byName.get(child)!), child)}/dependencies`, dependency)
  }
  for (const { child, dependency, reason } of analysis.refusedLinks) {
    if (!created.some((f) => f.name === child) || !analysis.links.some((l) => l.child === dependency.feature)) continue
    await call(`add dependency ${child} → ${dependency.feature}`, 'POST', `${featurePath(projectOf(byName.get(child)!), child)}/dependencies`, dependency, reason)
  }

  // Several parents: each accepted, one kept (why such flags are listed).
  const checks: Loaded['checks'] = []
  for (const { child, dependencies } of analysis.replacedLinks) {
    if (!created.some((f) => f.name === child)) continue
    const path = featurePath(projectOf(byName.get(child)!), child)
    for (const dependency of dependencies) await call(`add dependency ${child} → ${dependency.feature}`, 'POST', `${path}/dependencies`, dependency)
    const stored = ((await api(server, 'GET', path)).body?.dependencies ?? []) as SpecDependency[]
    checks.push({
      what: `${child}: the admin API kept one of its ${dependencies.length} parents`,
      ok: stored.length === 1 && stored[0].feature === dependencies[dependencies.length - 1].feature,
      detail: JSON.stringify(stored),
    })
  }

  // Enabling (a flag with no strategy gets Unleash's default flexibleRollout 100 %).
  for (const feature of created) {
    if (feature.enabled) await call(`enable ${feature.name}`, 'POST', `${featurePath(projectOf(feature), feature.name)}/environments/${environment}/on`, undefined)
  }

  // What was stored, checked against what the analysis predicted from the spec: a difference is a
  // failure of the server, never a reason to list a case.
  const sameVariants = (a: SpecVariant[], b: SpecVariant[]) =>
    JSON.stringify(a.map((v) => [v.name, v.weight, v.stickiness, v.payload ?? null])) === JSON.stringify(b.map((v) => [v.name, v.weight, v.stickiness || 'default', v.payload ?? null]))
  for (const feature of created) {
    if (listedFlags.has(feature.name)) continue
    const res = await api(server, 'GET', featurePath(projectOf(feature), feature.name))
    const env = (res.body?.environments ?? []).find((e: { name: string }) => e.name === environment)
    checks.push({ what: `${feature.name}: the server returns its ${environment} environment`, ok: env !== undefined, detail: String(res.status) })
    if (!env) continue
    const storedStrategies: { name: string; parameters: Record<string, string>; variants: SpecVariant[] }[] = env.strategies
    for (const [i, s] of (Array.isArray(feature.strategies) ? feature.strategies : []).entries()) {
      const stored = storedStrategies[i]
      if (!stored || stored.name !== s.name) continue // reported by the test as a load failure
      const want = asStringParameters(s.parameters)
      checks.push({
        what: `${feature.name}: strategy #${i} parameters are stored as sent`,
        ok: JSON.stringify(Object.entries(stored.parameters).sort()) === JSON.stringify(Object.entries(want).sort()),
        detail: JSON.stringify(stored.parameters),
      })
      checks.push({
        what: `${feature.name}: strategy #${i} variants are stored as predicted (sorted, weights normalised)`,
        ok: sameVariants(storedVariantsOf(s.variants ?? []), stored.variants ?? []),
        detail: JSON.stringify(stored.variants),
      })
    }
    checks.push({
      what: `${feature.name}: flag variants are stored as predicted (sorted, weights normalised)`,
      ok: sameVariants(storedVariantsOf(feature.variants ?? []), env.variants ?? []),
      detail: JSON.stringify(env.variants),
    })
  }
  return { analysis, steps, checks, listedFlags, listedVariantFlags, loadedFlags: created.map((f) => f.name) }
}
