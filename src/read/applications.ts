// Registrations from SDKs, kept in memory like metrics: they are not state changes worth a log entry.
export interface Registration {
  appName: string
  instanceId: string
  sdkVersion: string | null
  strategies: string[]
  environment: string
  started: string
  lastSeen: string
  remoteAddress: string
}

const maxInstances = 10_000

export class Applications {
  private readonly instances = new Map<string, Registration>()

  register(registration: Registration): void {
    const key = `${registration.appName}\u0000${registration.instanceId}\u0000${registration.environment}`
    if (!this.instances.has(key) && this.instances.size >= maxInstances) {
      this.instances.delete(this.instances.keys().next().value!)
    }
    this.instances.set(key, registration)
  }

  // An instance heard from through its metrics (SEMANTICS 5.7: metrics register the instance): its last
  // sighting moves, and one not registered yet is listed with what the metrics say.
  seen(sighting: Pick<Registration, 'appName' | 'instanceId' | 'environment' | 'lastSeen' | 'remoteAddress'> & { sdkVersion?: string | null }): void {
    const key = `${sighting.appName}\u0000${sighting.instanceId}\u0000${sighting.environment}`
    const known = this.instances.get(key)
    if (known) {
      this.instances.set(key, { ...known, lastSeen: sighting.lastSeen, remoteAddress: sighting.remoteAddress, sdkVersion: known.sdkVersion ?? sighting.sdkVersion ?? null })
      return
    }
    this.register({ ...sighting, sdkVersion: sighting.sdkVersion ?? null, strategies: [], started: sighting.lastSeen })
  }

  list() {
    const byApp = new Map<string, Registration[]>()
    for (const r of this.instances.values()) byApp.set(r.appName, [...(byApp.get(r.appName) ?? []), r])
    return [...byApp].map(([appName, instances]) => ({
      appName,
      strategies: [...new Set(instances.flatMap((i) => i.strategies))],
      instances: instances.map(({ appName: _a, ...rest }) => rest),
    }))
  }
}
