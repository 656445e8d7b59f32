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
  key: string
  // Date.now() from which the answer may be wrong (a DATE_* constraint's date was reached).
  validUntil: number
}

const defaultMaxBytes = 16 * 2 ** 20
const costOf = (entry: Cached) => entry.body.length + 2 * entry.key.length + 64

// The frontend API's answers (SEMANTICS 5.8): the toggles JSON of a scope and a context, remembered for
// contexts that repeat. A remembered answer is exact: the key names the scope and the whole request
// context, the cache is emptied when the flags change (the revision moves), an answer is dropped when
// the clock reaches a date of a DATE_* constraint it was evaluated against, and one whose evaluation
// drew a random number is never kept. Least recently used answers go
// first once the bodies and keys held pass `maxBytes`.
export class FrontendAnswers {
  private readonly cache = new Map<string, Cached>()
  private bytes = 0
  private revision = -1

  constructor(
    private readonly evaluators: EvaluatorSource,
    private readonly maxBytes = defaultMaxBytes,
  ) {}

  get size(): number {
    return this.cache.size
  }

  // `key`: a string that determines `context()` (for the same scope), or undefined when the request's
  // context is not its own to repeat (a random session id). `context` is only built on a miss.
  answer(scope: FrontendScope, key: string | undefined, context: () => EvalContext): FrontendAnswer {
    const revision = this.evaluators.revision()
    if (revision !== this.revision) {
      this.cache.clear()
      this.bytes = 0
      this.revision = revision
    }
    const fullKey = key === undefined ? undefined : `${scope.environment}\u0000${scope.projects.join('\u0001')}\u0000${key}`
    if (fullKey !== undefined) {
      const hit = this.cache.get(fullKey)
      if (hit !== undefined) {
        this.forget(hit)
        if (Date.now() < hit.validUntil) {
          this.cache.set(fullKey, hit)
          this.bytes += costOf(hit)
          return hit
        }
      }
    }
    const evaluator = this.evaluators.for(scope.environment)
    const all = scope.projects.includes('*')
    const inScope = all ? () => true : (project: string) => scope.projects.includes(project)
    const ctx = context()
    const observed = evaluator.observe(() => evaluator.enabledTogglesJson(ctx, inScope))
    const body = Buffer.from(`{"toggles":${observed.value}}`)
    const answer: Cached = { key: fullKey ?? '', body, etag: `"${createHash('sha1').update(body).digest('base64url')}"`, validUntil: observed.steadyUntil }
    if (fullKey !== undefined && !observed.random) this.remember(answer)
    return answer
  }

  private forget(entry: Cached): void {
    this.cache.delete(entry.key)
    this.bytes -= costOf(entry)
  }

  private remember(answer: Cached): void {
    const cost = costOf(answer)
    if (cost > this.maxBytes || Date.now() >= answer.validUntil) return
    this.cache.set(answer.key, answer)
    this.bytes += cost
    for (const entry of this.cache.values()) {
      if (this.bytes <= this.maxBytes) break
      this.forget(entry)
    }
  }
}
