// The `creates` load: single flag creations (POST /api/admin/projects/:project/features), each connection
// creating its own new flags one after another, every one a durable write of a new name. The names
// carry a run number (each call of requestsFor's first connection starts a new run), the connection and
// a counter the load generator fills in at each send (run-load.ts `sequence`).
import type { RequestSpec } from './run-load.js'

export const createPlaceholder = '########'

export interface CreatesOptions {
  adminToken: string
  project?: string
  // Prefix of the flags' names (unique per benchmark run).
  prefix?: string
}

export const createsRequests = (options: CreatesOptions): ((connection: number) => RequestSpec[]) => {
  const project = options.project ?? 'default'
  const prefix = options.prefix ?? `bench-create-${Date.now().toString(36)}`
  let run = 0
  return (connection) => {
    if (connection === 0) run++
    const name = `${prefix}-r${run}-c${connection}-${createPlaceholder}`
    return [
      {
        method: 'POST',
        path: `/api/admin/projects/${encodeURIComponent(project)}/features`,
        headers: { Authorization: options.adminToken, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name, type: 'release', description: 'created by the creates benchmark' }),
        sequence: createPlaceholder,
      },
    ]
  }
}
