import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'

// Debian installs it in /usr/sbin, which is not on every PATH.
const candidates = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server']

export const natsServerBinary = (): string | undefined => {
  const found = candidates.find((candidate) => existsSync(candidate))
  if (found) return found
  const which = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' })
  return which.status === 0 ? which.stdout.trim() || undefined : undefined
}

// Outside CI a missing nats-server skips the test, loudly; in CI (.ci/run installs it) it fails.
export const requireNatsServer = (t: Test): string | undefined => {
  const binary = natsServerBinary()
  if (binary) return binary
  const message = 'nats-server is not installed: the read-replica tests DID NOT RUN (apt-get install nats-server; .ci/run installs it)'
  if (process.env.CI) {
    t.fail(message)
    return undefined
  }
  console.error(`\n${'!'.repeat(100)}\n${message}\n${'!'.repeat(100)}\n`)
  t.pass(message, { skip: message })
  return undefined
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

export interface NatsServer {
  url: string
  stop(): Promise<void>
  // On the same port and store directory: the streams it held are there again.
  start(): Promise<void>
}

const waitForPort = async (port: number, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        resolve(true)
      })
      socket.once('error', () => resolve(false))
    })
    if (open) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`nats-server did not listen on ${port} within ${timeoutMs} ms`)
}

// A JetStream-enabled nats-server on a free loopback port with its own store, stopped at teardown.
export const startNatsServer = async (t: Test, binary: string): Promise<NatsServer> => {
  const port = await freePort()
  const storeDir = mkdtempSync(path.join(os.tmpdir(), 'nats-it-'))
  let child: ChildProcess | undefined
  let output = ''
  const start = async () => {
    child = spawn(binary, ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    await waitForPort(port, 10_000).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; output:\n${output}`)
    })
  }
  const stop = async () => {
    const running = child
    child = undefined
    if (!running || running.exitCode !== null) return
    const exited = new Promise((resolve) => running.once('exit', resolve))
    running.kill('SIGTERM')
    const timer = setTimeout(() => running.kill('SIGKILL'), 5000)
    await exited
    clearTimeout(timer)
  }
  await start()
  t.teardown(async () => {
    await stop()
    rmSync(storeDir, { recursive: true, force: true })
  })
  return { url: `nats://127.0.0.1:${port}`, stop, start }
}
