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
  strategies: [{ name: 'default', constraints: [{ contextName: 'currentTime', operator: 'DATE_BEFORE', value: '2024-06-01T00:00:00.000Z' }] }],
}
const random: EvalFeature = { name: 'random', project: 'p', enabled: true, strategies: [{ name: 'gradualRolloutRandom', parameters: { percentage: '50' } }] }

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

t.test('no key, or a random draw, is not remembered; an answer read from the clock holds until the date it was evaluated against', async (t) => {
  const realNow = Date.now
  t.teardown(() => {
    Date.now = realNow
  })
  let now = Date.parse('2024-05-01T00:00:00.000Z')
  Date.now = () => now
  const { source, answers, ask, names } = setup([forUser('a', 'alice'), dated, random])
  ask(undefined, 'alice')
  ask(undefined, 'alice')
  t.equal(source.evaluations, 2, 'without a key every request is evaluated')
  const rolled = setup([random])
  rolled.ask('k', 'alice')
  rolled.ask('k', 'alice')
  t.equal(rolled.source.evaluations, 2, 'gradualRolloutRandom drew a number: evaluated again')
  t.equal(rolled.answers.size, 0)

  const withoutRandom = setup([forUser('a', 'alice'), dated])
  t.same(withoutRandom.names(withoutRandom.ask('alice', 'alice')), ['a', 'dated'])
  now = Date.parse('2024-05-31T23:59:59.999Z')
  t.same(withoutRandom.names(withoutRandom.ask('alice', 'alice')), ['a', 'dated'])
  t.equal(withoutRandom.source.evaluations, 1, 'kept until the date')
  now = Date.parse('2024-06-01T00:00:00.000Z')
  t.same(withoutRandom.names(withoutRandom.ask('alice', 'alice')), ['a'], 'at the date: evaluated again, and dated is off')
  t.equal(withoutRandom.source.evaluations, 2)
  t.equal(answers.size, 0, 'random is in the first set: nothing kept there')
  t.same(names(ask('alice', 'alice')).includes('a'), true)
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

t.test('the timer lets the remembered answers go once the flags changed, and keeps them while they hold', async (t) => {
  const { source, answers, ask } = setup([forUser('a', 'alice'), forUser('b', 'bob')])
  ask('alice', 'alice')
  ask('bob', 'bob')
  t.equal(answers.dropStale(), 0, 'the flags did not change: nothing goes')
  t.equal(answers.size, 2)
  source.revision++
  t.equal(answers.dropStale(), 2, 'both answers go without a request')
  t.equal(answers.size, 0)
  ask('alice', 'alice')
  t.equal(source.evaluations, 3, 'the next request evaluates again')
  t.equal(answers.dropStale(), 0)
  t.equal(answers.size, 1, 'and its answer is remembered')
})
