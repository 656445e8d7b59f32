import type { Test } from 'tap'
import { natsServerBinary, startNatsServer as startNats, type NatsServer } from '../../bench/lib/nats-server.js'

export type { NatsServer }

// Outside CI a missing nats-server skips the test, loudly; in CI (.ci/run installs it) it fails.
export const requireNatsServer = (t: Test): string | undefined => {
  const binary = natsServerBinary()
  if (binary) return binary
  const message = 'nats-server is not installed: the read-replica tests DID NOT RUN (apt-get install nats-server; .ci/run installs it)'
  if (process.env.CI || process.env.NATS_TESTS_REQUIRE_SERVER) {
    t.fail(message)
    return undefined
  }
  console.error(`\n${'!'.repeat(100)}\n${message}\n${'!'.repeat(100)}\n`)
  t.pass(message, { skip: message })
  return undefined
}

// Stopped, and its store removed, at the end of `t`.
export const startNatsServer = async (t: Test, binary: string): Promise<NatsServer> => {
  const server = await startNats(binary)
  t.teardown(() => server.destroy())
  return server
}
