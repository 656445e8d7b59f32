import t from 'tap'
import { LoginThrottle } from '../../src/read/login-throttle.js'

t.test('past the limit a key waits until its oldest failure is a minute old', async (t) => {
  let now = 1_000_000
  const throttle = new LoginThrottle(3, () => now)
  throttle.failed('alice')
  now += 10_000
  throttle.failed('alice')
  throttle.failed('alice')
  t.equal(throttle.retryAfterSeconds('alice'), 50, 'the first failure leaves the window in 50 s')
  t.equal(throttle.retryAfterSeconds('bob'), 0, 'other keys are not held back')
  now += 50_000
  t.equal(throttle.retryAfterSeconds('alice'), 0, 'allowed again once it has')
})
