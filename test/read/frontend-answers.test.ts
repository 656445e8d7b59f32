import t from 'tap'
import { Evaluator } from '../../src/eval/evaluator.js'
import type { EvalFeature } from '../../src/eval/types.js'
import { FrontendAnswers } from '../../src/read/frontend-answers.js'

const forUser = (name: string, userId: string): EvalFeature => ({
  name,
  project: 'p',
  enabled: true,
  strategies: [{ name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: [userId] }] }],
})
const dated: EvalFeature = {
  name: 'dated',
  project: 'p',
  enabled: true,
  strategies: [{ name: 'default', constraints: [{ contextName: 'currentTime', operator: 'DATE_AFTER', value: '2020-01-01T00:00:00.000Z' }] }],
}

const setup = (features: EvalFeature[], maxBytes?: number) => {
  const evaluator = new Evaluator()
  evaluator.replaceAll(features, [])
  const source = { revision: 1, evaluations: 0 }
  const answers = new FrontendAnswers({ revision: () => source.revision, for: () => evaluator }, maxBytes)
  const scope = { environment: 'development', projects: ['*'] }
  const ask = (key: string | undefined, userId: string, extra: Record<string, unknown> = {}) =>
    answers.answer(scope, key, () => {
      source.evaluations++
      return { userId, sessionId: 's', ...extra }
    })
  const names = (answer: { body: Buffer }) => (JSON.parse(answer.body.toString()) as { toggles: { name: string }[] }).toggles.map((x) => x.name)
  return { evaluator, source, answers, ask, names }
}

t.test('a repeated context is answered from the cache, with the same bytes and ETag', async (t) => {
  const { source, answers, ask, names } = setup([forUser('a', 'alice'), forUser('b', 'bob')])
  const first = ask('alice', 'alice')
  t.same(names(first), ['a'])
  t.match(first.etag, /^"[A-Za-z0-9_-]{27}"$/)
  const again = ask('alice', 'alice')
  t.equal(again.body, first.body, 'the same Buffer')
  t.equal(again.etag, first.etag)
  t.equal(source.evaluations, 1, 'the context was built and evaluated once')
  t.same(names(ask('bob', 'bob')), ['b'], 'another key is another answer')
  t.equal(answers.size, 2)
})

t.test('a change of the flags (the revision moves) empties the cache', async (t) => {
  const { evaluator, source, ask, names } = setup([forUser('a', 'alice')])
  t.same(names(ask('alice', 'alice')), ['a'])
  evaluator.upsertFeature(forUser('a2', 'alice'))
  source.revision = 2
  t.same(names(ask('alice', 'alice')), ['a', 'a2'])
  t.equal(source.evaluations, 2)
})

t.test('no key, or an evaluation that read the clock, is not remembered', async (t) => {
  const { source, answers, ask, names } = setup([forUser('a', 'alice'), dated])
  ask(undefined, 'alice')
  ask(undefined, 'alice')
  t.equal(source.evaluations, 2, 'without a key every request is evaluated')
  t.same(names(ask('alice', 'alice')), ['a', 'dated'])
  ask('alice', 'alice')
  t.equal(source.evaluations, 4, 'dated read the clock: evaluated again')
  t.equal(answers.size, 0)
  ask('alice+time', 'alice', { currentTime: '2024-01-01T00:00:00.000Z' })
  ask('alice+time', 'alice', { currentTime: '2024-01-01T00:00:00.000Z' })
  t.equal(source.evaluations, 5, 'with currentTime the answer is kept')
})

t.test('the bytes held stay under the bound; the least recently used answer goes first', async (t) => {
  const features = Array.from({ length: 7 }, (_, i) => ({ name: `flag-${String(i).padStart(2, '0')}`, project: 'p', enabled: true, strategies: [] }))
  const { source, answers, ask } = setup(features, 2 * 1200)
  const size = ask('k0', 'u').body.length
  t.ok(size > 1000 && size < 1100, `one answer is ${size} B`)
  ask('k1', 'u')
  ask('k2', 'u')
  t.equal(answers.size, 2, 'two fit in 2,400 B with their keys: k0 went when k2 came')
  ask('k1', 'u')
  t.equal(source.evaluations, 3, 'k1 was still there')
  ask('k3', 'u')
  ask('k1', 'u')
  t.equal(source.evaluations, 4, 'k1, used recently, stayed when k3 came')
  ask('k2', 'u')
  t.equal(source.evaluations, 5, 'k2 went')
})
