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
}

const defaultMaxBytes = 32 * 2 ** 20

// The frontend API's answers (SEMANTICS 5.8): the toggles JSON of a scope and a context, remembered for
// contexts that repeat. A remembered answer is exact: the key names the scope and the whole request
// context, the cache is emptied when the flags change (the revision moves), and an answer whose
// evaluation drew a random number or read the clock is never kept. Least recently used answers go
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
        this.cache.delete(fullKey)
        this.cache.set(fullKey, hit)
        return hit
      }
    }
    const evaluator = this.evaluators.for(scope.environment)
    const all = scope.projects.includes('*')
    const inScope = all ? () => true : (project: string) => scope.projects.includes(project)
    const readsBefore = evaluator.nondeterministicReads()
    const body = Buffer.from(`{"toggles":${evaluator.enabledTogglesJson(context(), inScope)}}`)
    const answer: Cached = { key: fullKey ?? '', body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` }
    if (fullKey !== undefined && evaluator.nondeterministicReads() === readsBefore) this.remember(fullKey, answer)
    return answer
  }

  private remember(key: string, answer: Cached): void {
    const cost = answer.body.length + 2 * key.length + 64
    if (cost > this.maxBytes) return
    this.cache.set(key, answer)
    this.bytes += cost
    for (const [oldest, entry] of this.cache) {
      if (this.bytes <= this.maxBytes) break
      this.cache.delete(oldest)
      this.bytes -= entry.body.length + 2 * entry.key.length + 64
    }
  }
}
