import t, { type Test } from 'tap'
import { FailureWindow, LoginThrottle } from '../../src/sign-in/login-throttle.js'

const clock = (start = 1_000_000) => {
  const c = { now: start, read: () => c.now }
  return c
}

t.test('past the limit a key waits until its oldest failure is a minute old', async (t) => {
  const c = clock()
  const window = new FailureWindow(3, c.read)
  window.failed('alice')
  c.now += 10_000
  window.failed('alice')
  window.failed('alice')
  t.equal(window.retryAfterSeconds('alice'), 50, 'the first failure leaves the window in 50 s')
  t.equal(window.retryAfterSeconds('bob'), 0, 'other keys are not held back')
  c.now += 50_000
  t.equal(window.retryAfterSeconds('alice'), 0, 'allowed again once it has')
  window.forgiveOne('alice')
  window.failed('alice')
  t.equal(window.retryAfterSeconds('alice'), 0, 'a forgiven failure does not count')
  window.forgive('alice')
  t.equal(window.retryAfterSeconds('alice'), 0)
})

// Guesses at one account from address A, with limits 3 per account and address, 5 per address.
const guessed = (t: Test, c: ReturnType<typeof clock>) => {
  const throttle = new LoginThrottle({ perAccount: 3, perAddress: 5 }, c.read)
  for (let i = 0; i < 3; i++) t.equal(throttle.attempt('user:1', 'A'), 0, `guess ${i + 1} is let through`)
  return throttle
}

t.test('a guesser throttles the account at its own address only', async (t) => {
  const c = clock()
  const throttle = guessed(t, c)
  t.equal(throttle.attempt('user:1', 'A'), 60, 'the fourth guess from A waits for the first to age')
  t.equal(throttle.attempt('user:1', 'B'), 0, 'the owner at B is let through')
  throttle.succeeded('user:1', 'B')
  c.now += 30_000
  t.equal(throttle.attempt('user:1', 'A'), 30, 'a refused attempt does not extend the wait')
  c.now += 30_000
  t.equal(throttle.attempt('user:1', 'A'), 0, 'a minute after the first guess, one more')
})

t.test('one address trying many accounts meets the per-address limit', async (t) => {
  const c = clock()
  const throttle = new LoginThrottle({ perAccount: 3, perAddress: 5 }, c.read)
  for (let i = 0; i < 5; i++) t.equal(throttle.attempt(`name:user${i}`, 'A'), 0)
  t.equal(throttle.attempt('name:fresh', 'A'), 60, 'a sixth account from A waits')
  t.equal(throttle.attempt('name:fresh', 'B'), 0, 'from B it does not')
})

t.test('an attempt counts while its password is checked; a right one is taken back and clears the account there', async (t) => {
  const c = clock()
  const throttle = new LoginThrottle({ perAccount: 3, perAddress: 5 }, c.read)
  const inFlight = [1, 2, 3, 4].map(() => throttle.attempt('user:1', 'A'))
  t.same(inFlight, [0, 0, 0, 60], 'four sent side by side: the fourth is refused before any answer')
  throttle.succeeded('user:1', 'A')
  t.equal(throttle.attempt('user:1', 'A'), 0, 'after a success the account starts afresh at A')
  throttle.attempt('name:other', 'A')
  t.equal(throttle.attempt('name:last', 'A'), 0, "the address's count lost the successful attempt: 5 failures, not 6")
  t.equal(throttle.attempt('name:more', 'A'), 60)
})
