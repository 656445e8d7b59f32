// The few admin calls benchmarks need to build their data, over HTTP like any user.
export class AdminApi {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  async request(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { authorization: this.token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`)
    return text.length > 0 ? JSON.parse(text) : undefined
  }

  createFeature(project: string, feature: unknown) {
    return this.request('POST', `/api/admin/projects/${encodeURIComponent(project)}/features`, feature)
  }

  addStrategy(project: string, feature: string, environment: string, strategy: unknown) {
    return this.request('POST', `${this.environmentPath(project, feature, environment)}/strategies`, strategy)
  }

  enable(project: string, feature: string, environment: string) {
    return this.request('POST', `${this.environmentPath(project, feature, environment)}/on`)
  }

  private environmentPath(project: string, feature: string, environment: string) {
    return `/api/admin/projects/${encodeURIComponent(project)}/features/${encodeURIComponent(feature)}/environments/${encodeURIComponent(environment)}`
  }
}

// Runs fn over items with at most `limit` in flight, in order of start; rejects on the first failure.
export const forEachLimited = async <T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> => {
  let next = 0
  const lane = async () => {
    while (next < items.length) {
      const i = next++
      await fn(items[i], i)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane))
}
