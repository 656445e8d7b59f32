import type { EventRecord } from '../domain/events.js'

export interface RevisionsState {
  segmentsRevision: number
  byScope: [string, number][]
}

// Which log position each part of the client payload reflects, per project and environment, so a
// change in one environment or project does not move the ETag every other SDK polls with.
export class ClientRevisions {
  private changes = 0
  private segmentsRevision: number
  // `${project}\u0000${environment}`, or `${project}\u0000` for changes to every environment of it.
  private readonly byScope = new Map<string, number>()
  private readonly projects = new Set<string>()

  constructor(private base = 0) {
    this.segmentsRevision = base
  }

  // Positions only, so that two processes holding the same log give the same ETags and meta.revisionId.
  snapshot(): RevisionsState {
    return { segmentsRevision: this.segmentsRevision, byScope: [...this.byScope] }
  }

  restore(state: unknown): void {
    const { segmentsRevision, byScope } = state as RevisionsState
    this.base = 0
    this.segmentsRevision = segmentsRevision
    this.byScope.clear()
    this.projects.clear()
    for (const [scope, id] of byScope) {
      this.byScope.set(scope, id)
      this.projects.add(scope.slice(0, scope.indexOf('\u0000')))
    }
    this.changes++
  }

  record(records: readonly EventRecord[], touchesPayload: (type: string) => boolean): void {
    for (const record of records) {
      if (!touchesPayload(record.type)) continue
      this.changes++
      if (record.type.startsWith('segment-')) {
        this.segmentsRevision = record.id
        continue
      }
      if (!record.project) continue
      this.projects.add(record.project)
      this.byScope.set(`${record.project}\u0000${record.environment ?? ''}`, record.id)
    }
  }

  // Bumps on every change that can touch any payload: a cheap test of whether a cached answer is still current.
  version(): number {
    return this.changes
  }

  segments(): number {
    return this.segmentsRevision
  }

  revisionFor(projects: readonly string[] | '*', environment: string): number {
    let revision = Math.max(this.base, this.segmentsRevision)
    for (const project of projects === '*' ? this.projects : projects) {
      revision = Math.max(revision, this.byScope.get(`${project}\u0000`) ?? 0, this.byScope.get(`${project}\u0000${environment}`) ?? 0)
    }
    return revision
  }
}
