import { createHash } from 'node:crypto'
import type { Evaluator } from '../eval/evaluator.js'
import type { EvalContext } from '../eval/types.js'

// What the answers need of Evaluators (evaluators.ts).
export interface EvaluatorSource {
  revision(): number
  for(environment: string): Evaluator
}

export interface FrontendScope {
  environment: string
  // ['*'] for every project.
  projects: readonly string[]
}

export interface FrontendAnswer {
  body: Buffer
  etag: string
}

interface Cached extends FrontendAnswer {
  // The scope's part of the key and the whole key: `${scope}\u0000${key}`.
  scope: string
  key: string
  // The key as the caller gave it, in the scope's map.
  ownKey: string
  // Date.now() from which the answer may be wrong (a DATE_* constraint's date was reached).
  validUntil: number
}

const defaultMaxBytes = 16 * 2 ** 20

// An answer's body for a context: the frontend API's toggles by default; the OFREP bulk evaluation too.
export type RenderAnswer = (evaluator: Evaluator, context: EvalContext, inScope: (project: string) => boolean, scope: FrontendScope) => string
const togglesBody: RenderAnswer = (evaluator, context, inScope) => `{"toggles":${evaluator.enabledTogglesJson(context, inScope)}}`
const costOf = (entry: Cached) => entry.body.length + 2 * entry.key.length + 64

// The frontend API's answers (SEMANTICS 5.8): the toggles JSON of a scope and a context (or another body,
// `render`), remembered for
// contexts that repeat. A remembered answer is exact: the key names the scope and the whole request
// context, the cache is emptied when the flags change (the revision moves), an answer is dropped when
// the clock reaches a date of a DATE_* constraint it was evaluated against, and one whose evaluation
// drew a random number is never kept. Least recently used answers go
// first once the bodies and keys held pass `maxBytes`.
export class FrontendAnswers {
  // Every answer by its whole key, least recently used first; and by scope, then the caller's key, for the
  // lookups: a request's key is looked up as it came, without joining it to its scope's first.
  private readonly cache = new Map<string, Cached>()
  private readonly byScope = new Map<string, Map<string, Cached>>()
  // The scope objects (principals) the callers pass are kept, each with its part of the key.
  private readonly scopeKeys = new WeakMap<FrontendScope, string>()
  private newest: Cached | undefined
  private bytes = 0
  private revision = -1

  constructor(
    private readonly evaluators: EvaluatorSource,
    private readonly maxBytes = defaultMaxBytes,
    private readonly render: RenderAnswer = togglesBody,
  ) {}

  get size(): number {
    return this.cache.size
  }

  // `key`: a string that determines `context()` (for the same scope), or undefined when the request's
  // context is not its own to repeat (a random session id). `context` is only built on a miss.
  answer(scope: FrontendScope, key: string | undefined, context: () => EvalContext): FrontendAnswer {
    const scopeKey = this.scopeKeyOf(scope)
    if (key !== undefined) {
      const hit = this.cached(scope, key)
      if (hit !== undefined) return hit
    }
    const evaluator = this.evaluators.for(scope.environment)
    const all = scope.projects.includes('*')
    const inScope = all ? () => true : (project: string) => scope.projects.includes(project)
    const ctx = context()
    const observed = evaluator.observe(() => this.render(evaluator, ctx, inScope, scope))
    const body = Buffer.from(observed.value)
    const answer: Cached = {
      scope: scopeKey,
      key: key === undefined ? '' : `${scopeKey}\u0000${key}`,
      ownKey: key ?? '',
      body,
      etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
      validUntil: observed.steadyUntil,
    }
    if (key !== undefined && !observed.random) this.remember(answer)
    return answer
  }

  // The answer remembered for `key` (as answer() was given it) in the scope, if it still holds.
  cached(scope: FrontendScope, key: string): FrontendAnswer | undefined {
    const hit = this.byScope.get(this.scopeKeyOf(scope))?.get(key)
    if (hit === undefined) return undefined
    if (hit.validUntil !== Number.POSITIVE_INFINITY && Date.now() >= hit.validUntil) {
      this.forget(hit)
      return undefined
    }
    // The most recently used goes last; it is often the last already (one client polling).
    if (hit !== this.newest) {
      this.cache.delete(hit.key)
      this.cache.set(hit.key, hit)
      this.newest = hit
    }
    return hit
  }

  // From a timer: the answers go once the flags changed (the revision moved), although no request came to
  // find them stale (a frontend or OFREP answer of 50,000 flags is several MB). How many went.
  dropStale(): number {
    const dropped = this.cache.size
    return this.emptyIfStale() ? dropped : 0
  }

  // Empties the cache when the flags changed; whether they did.
  private emptyIfStale(): boolean {
    const revision = this.evaluators.revision()
    if (revision === this.revision) return false
    this.cache.clear()
    this.byScope.clear()
    this.newest = undefined
    this.bytes = 0
    this.revision = revision
    return true
  }

  private scopeKeyOf(scope: FrontendScope): string {
    this.emptyIfStale()
    let scopeKey = this.scopeKeys.get(scope)
    if (scopeKey === undefined) this.scopeKeys.set(scope, (scopeKey = `${scope.environment}\u0000${scope.projects.join('\u0001')}`))
    return scopeKey
  }

  private forget(entry: Cached): void {
    this.cache.delete(entry.key)
    const inScope = this.byScope.get(entry.scope)
    inScope?.delete(entry.ownKey)
    if (inScope?.size === 0) this.byScope.delete(entry.scope)
    if (this.newest === entry) this.newest = undefined
    this.bytes -= costOf(entry)
  }

  private remember(answer: Cached): void {
    const cost = costOf(answer)
    if (cost > this.maxBytes || Date.now() >= answer.validUntil) return
    this.cache.set(answer.key, answer)
    let inScope = this.byScope.get(answer.scope)
    if (inScope === undefined) this.byScope.set(answer.scope, (inScope = new Map()))
    inScope.set(answer.ownKey, answer)
    this.newest = answer
    this.bytes += cost
    for (const entry of this.cache.values()) {
      if (this.bytes <= this.maxBytes) break
      this.forget(entry)
    }
  }
}
