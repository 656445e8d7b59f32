import { randomBytes } from 'node:crypto'
import http from 'node:http'
import type { Test } from 'tap'
import { InMemStorageProvider, Unleash, type UnleashConfig } from 'unleash-client'

export interface SdkOptions extends Partial<UnleashConfig> {
  // Wait for the first successful fetch (default true).
  synchronized?: boolean
}

// The real Node SDK against a test server, destroyed at the end of `t`. Its storage is in memory,
// so no backup file from an earlier run can stand in for the server's answer.
export const startSdk = async (t: Test, baseUrl: string, token: string, options: SdkOptions = {}): Promise<Unleash> => {
  const { synchronized = true, ...config } = options
  // The SDK's own agent keeps idle sockets for 10 s, which would hold the test process open.
  // Without keep-alive there is nothing to close at teardown.
  const agent = new http.Agent({ keepAlive: false })
  const sdk = new Unleash({
    httpOptions: { agent: () => agent },
    url: `${baseUrl}/api`,
    appName: `it-${randomBytes(4).toString('hex')}`,
    customHeaders: { Authorization: token },
    refreshInterval: 150,
    disableMetrics: true,
    storageProvider: new InMemStorageProvider(),
    skipInstanceCountWarning: true,
    ...config,
  })
  const errors: unknown[] = []
  sdk.on('error', (error) => errors.push(error))
  sdk.on('warn', () => {})
  t.teardown(() => {
    sdk.destroy()
    // destroy() strips the repository's listeners, but a fetch already under way still ends in an
    // 'error' event once the server is gone; unheard, that event would crash the test process.
    const repository = (sdk as unknown as { repository?: { on(event: string, listener: () => void): void } }).repository
    repository?.on('error', () => {})
  })
  if (synchronized) await waitForEvent(sdk, 'synchronized', 30_000, () => `SDK errors: ${errors.map(String).join('; ')}`)
  return sdk
}

export const waitForEvent = <T = unknown>(emitter: Unleash, event: string, timeoutMs = 30_000, explain: () => string = () => ''): Promise<T> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      emitter.off(event, onEvent)
      reject(new Error(`no "${event}" event within ${timeoutMs} ms ${explain()}`))
    }, timeoutMs)
    const onEvent = (payload: T) => {
      clearTimeout(timer)
      resolve(payload)
    }
    emitter.once(event, onEvent)
  })

// Resolves with the time it took once `check` holds after a 'changed' event (checked on every one).
export const untilChanged = (sdk: Unleash, check: () => boolean, timeoutMs = 3000): Promise<number> => {
  const started = Date.now()
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sdk.off('changed', onChanged)
      reject(new Error(`the SDK did not see the change within ${timeoutMs} ms`))
    }, timeoutMs)
    const onChanged = () => {
      if (!check()) return
      clearTimeout(timer)
      sdk.off('changed', onChanged)
      resolve(Date.now() - started)
    }
    sdk.on('changed', onChanged)
  })
}
