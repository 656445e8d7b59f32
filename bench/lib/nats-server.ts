import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import os from 'node:os'
import path from 'node:path'

// Debian installs it in /usr/sbin, which is not on every PATH.
const candidates = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server']

export const natsServerBinary = (): string | undefined => {
  const found = candidates.find((candidate) => existsSync(candidate))
  if (found) return found
  const which = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' })
  return which.status === 0 ? which.stdout.trim() || undefined : undefined
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

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

export interface NatsServer {
  url: string
  // On the same port and store directory: the streams it held are there again.
  start(): Promise<void>
  stop(): Promise<void>
  // Stops it and removes its store.
  destroy(): Promise<void>
}

// A JetStream-enabled nats-server on a free loopback port with a store of its own.
export const startNatsServer = async (binary: string): Promise<NatsServer> => {
  const port = await freePort()
  const storeDir = mkdtempSync(path.join(os.tmpdir(), 'nats-'))
  let child: ChildProcess | undefined
  const start = async () => {
    let output = ''
    const running = spawn(binary, ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] })
    child = running
    running.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    running.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const deadline = Date.now() + 10_000
    while (!(await accepts(port))) {
      if (Date.now() > deadline || running.exitCode !== null) throw new Error(`nats-server did not listen on ${port}; output:\n${output}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
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
  return {
    url: `nats://127.0.0.1:${port}`,
    start,
    stop,
    destroy: async () => {
      await stop()
      rmSync(storeDir, { recursive: true, force: true })
    },
  }
}
