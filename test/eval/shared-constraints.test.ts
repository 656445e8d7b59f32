import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import t from 'tap'
import { compileConstraint, constraintHash, sharedConstraintTests } from '../../src/eval/operators.js'
import type { EvalConstraint } from '../../src/eval/types.js'

// One test per distinct constraint (operators.ts, compileConstraint): equal constraints share it, any
// field that changes the answer keeps them apart, and a test nothing holds any more is forgotten.

const country = (): EvalConstraint => ({ contextName: 'country', operator: 'IN', values: ['no', 'se'] })

t.test('equal constraints compiled apart share one test', async (t) => {
  const first = compileConstraint(country())
  const second = compileConstraint(country())
  t.equal(first, second, 'the same function')
  t.equal(first({ properties: { country: 'se' } }), true)
  t.equal(first({ properties: { country: 'dk' } }), false)
})

t.test('a constraint differing in any field that changes the answer gets a test of its own', async (t) => {
  const base = compileConstraint({ contextName: 'plan', operator: 'STR_STARTS_WITH', values: ['Pro'] })
  const variants: [string, EvalConstraint][] = [
    ['another field', { contextName: 'tier', operator: 'STR_STARTS_WITH', values: ['Pro'] }],
    ['another operator', { contextName: 'plan', operator: 'STR_ENDS_WITH', values: ['Pro'] }],
    ['inverted', { contextName: 'plan', operator: 'STR_STARTS_WITH', values: ['Pro'], inverted: true }],
    ['case-insensitive', { contextName: 'plan', operator: 'STR_STARTS_WITH', values: ['Pro'], caseInsensitive: true }],
    ['other values', { contextName: 'plan', operator: 'STR_STARTS_WITH', values: ['Pro', 'Team'] }],
  ]
  for (const [what, constraint] of variants) t.not(compileConstraint(constraint), base, what)
  const context = { properties: { plan: 'pro-annual' } }
  t.equal(base(context), false, 'case-sensitive: no')
  t.equal(compileConstraint(variants[3][1])(context), true, 'case-insensitive: yes')
  t.equal(compileConstraint(variants[2][1])(context), true, 'inverted: yes')
})

t.test('a value that is absent is not the text "0", nor a missing values list an empty one', async (t) => {
  const absent = compileConstraint({ contextName: 'age', operator: 'NUM_EQ' })
  const zero = compileConstraint({ contextName: 'age', operator: 'NUM_EQ', value: '0' })
  t.not(absent, zero)
  t.equal(absent({ properties: { age: '0' } }), false, 'no value: NaN equals nothing')
  t.equal(zero({ properties: { age: '0' } }), true)
})

t.test('constraints that are not plain texts are compiled each time; long lists are shared', async (t) => {
  const numbers = { contextName: 'age', operator: 'IN', values: [1, 2] as unknown as string[] }
  t.not(compileConstraint(numbers), compileConstraint(numbers), 'values that are not texts')
  const long = () => ({ contextName: 'userId', operator: 'IN', values: Array.from({ length: 100 }, (_, i) => `user-${i}`) })
  t.equal(compileConstraint(long()), compileConstraint(long()), 'a list of 100 values')
  t.equal(compileConstraint(long())({ userId: 'user-42' }), true)
})

t.test('values that run into each other are different lists', async (t) => {
  t.not(compileConstraint({ contextName: 'app', operator: 'IN', values: ['ab', 'c'] }), compileConstraint({ contextName: 'app', operator: 'IN', values: ['a', 'bc'] }))
  t.not(compileConstraint({ contextName: 'app', operator: 'STR_CONTAINS', value: 'x', values: [] }), compileConstraint({ contextName: 'app', operator: 'STR_CONTAINS', values: ['x'] }))
})

t.test('a constraint whose hash another one holds gets a test of its own, with its own answers', async (t) => {
  // Found by trying tenant-0, tenant-1, ... until two hashes met.
  const first = { contextName: 'tenant', operator: 'IN', values: ['tenant-250907'] }
  const second = { contextName: 'tenant', operator: 'IN', values: ['tenant-1013968'] }
  t.equal(constraintHash(first), constraintHash(second), 'the two hashes are equal')
  const firstTest = compileConstraint(first)
  const secondTest = compileConstraint(second)
  t.not(secondTest, firstTest)
  t.equal(firstTest({ properties: { tenant: 'tenant-250907' } }), true)
  t.equal(firstTest({ properties: { tenant: 'tenant-1013968' } }), false)
  t.equal(secondTest({ properties: { tenant: 'tenant-1013968' } }), true)
  t.equal(secondTest({ properties: { tenant: 'tenant-250907' } }), false)
  t.equal(compileConstraint({ ...first, values: ['tenant-250907'] }), firstTest, 'the first still shares its test')
})

t.test('a test no compiled flag holds is forgotten', async (t) => {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  // Collects, giving the registry's callbacks their turn, until `done` (at most 50 rounds).
  const collect = async (done: () => boolean) => {
    for (let i = 0; i < 50 && !done(); i++) {
      gc()
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
  // The tests earlier subtests dropped go first.
  await collect(() => sharedConstraintTests() === 0)
  const before = sharedConstraintTests()
  let held: unknown = compileConstraint({ contextName: 'appName', operator: 'IN', values: ['forgotten-app', 'other-app'] })
  t.equal(sharedConstraintTests(), before + 1, 'kept while held')
  held = undefined
  await collect(() => sharedConstraintTests() === before)
  t.equal(held, undefined)
  t.equal(sharedConstraintTests(), before, 'gone once collected')
})
