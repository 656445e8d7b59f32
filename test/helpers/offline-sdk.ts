import { InMemStorageProvider, Unleash } from 'unleash-client'

// The real Node SDK evaluating in process: bootstrapped with a client payload, never polling a server.
export const startOfflineSdk = async (appName: string, features: unknown[], segments: unknown[]): Promise<Unleash> => {
  const sdk = new Unleash({
    appName,
    url: 'http://127.0.0.1:9/api',
    refreshInterval: 0,
    disableMetrics: true,
    disableAutoStart: true,
    skipInstanceCountWarning: true,
    storageProvider: new InMemStorageProvider(),
    bootstrap: { data: features as never, segments: segments as never },
  })
  sdk.on('error', () => {})
  sdk.on('warn', () => {})
  // Not events.once: a feature with null strategies makes the SDK emit 'error', which would reject it.
  const ready = new Promise((resolve) => sdk.once('ready', resolve))
  await sdk.start()
  await ready
  return sdk
}
