import t from 'tap'
import { likePrefixMatcher } from '../../src/domain/like-prefix.js'

t.test('a LIKE prefix matches as SQL LIKE "<prefix>%" does', async (t) => {
  const cases: [string, string, boolean][] = [
    ['new', 'new-checkout', true],
    ['new', 'renew', false],
    ['n_w', 'now-1', true],
    ['n_w', 'nw', false],
    ['a%c', 'abbbc-tail', true],
    ['a%c', 'abbb', false],
    ['%check', 'new-checkout', true],
    ['a%b%c', 'a-c-b-c', true],
    ['a%b%c', 'a-c-b', false],
    ['100\\%', '100%-sure', true],
    ['100\\%', '1000', false],
    ['x\\_y', 'x_y', true],
    ['x\\_y', 'xzy', false],
    ['', 'anything', true],
  ]
  for (const [prefix, name, expected] of cases) t.equal(likePrefixMatcher(prefix)(name), expected, `${JSON.stringify(prefix)} vs ${JSON.stringify(name)}`)
})

t.test('a pattern that makes a backtracking matcher explode answers at once', async (t) => {
  const prefix = '%a'.repeat(25) + '%b'
  const names = Array.from({ length: 30 }, (_, i) => 'a'.repeat(78) + String(i + 1))
  // Backtracking would take hours here; the bound is relative to a plain prefix matched just before, so
  // that a busy machine slows both alike.
  const timed = (pattern: string) => {
    const started = performance.now()
    const found = names.filter(likePrefixMatcher(pattern))
    return { found, ms: performance.now() - started }
  }
  const plain = timed('a')
  const hostile = timed(prefix)
  t.same(hostile.found, [])
  t.ok(hostile.ms < 1000 + 50 * plain.ms, `in ${hostile.ms.toFixed(1)} ms (a plain prefix: ${plain.ms.toFixed(1)} ms)`)
})
