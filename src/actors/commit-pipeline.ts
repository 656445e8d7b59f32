import type { EventRecord } from '../domain/events.js'

// commitSeconds: from the append to the durable commit (undefined for records committed elsewhere: a replica's).
export type CommitStep = (records: EventRecord[], commitSeconds?: number) => void

// Every committed record goes through these steps, in this order, once, in log-id order; the actors
// that own the records already hold them as committed state. Why this order:
// - revisions: the client revision (the ETag SDKs poll with) moves first: every read model below
//   that serves SDKs labels what it serves with it;
// - deltas: the delta API's changes since a revision, which needs that revision;
// - streams: pushes those deltas to open SDK streams, so it comes after both;
// - insights: the project overview's figures (writer only);
// - search: the admin flag search's index (read models for people, after those for SDKs: a flag
//   search is never what an SDK waits for);
// - snapshots: counts records and writes a snapshot set when due; the set holds the read models
//   above (revisions, insights) at this record, so it must come after them;
// - replication: tells the NATS publisher there is more to send (writer only): replicas hear of a
//   record only once this process has applied it everywhere;
// - listeners: whatever else asked to hear commits (metrics), in the order they asked.
export const commitStepOrder = ['revisions', 'deltas', 'streams', 'insights', 'search', 'snapshots', 'replication', 'listeners'] as const

export type CommitStepName = (typeof commitStepOrder)[number]

export class CommitPipeline {
  private readonly steps: { name: CommitStepName; run: CommitStep }[] = []
  private readonly listeners: CommitStep[] = []
  private position: number

  // A writer or a replica uses the steps it has; each runs where commitStepOrder puts it.
  constructor(steps: Partial<Record<Exclude<CommitStepName, 'listeners'>, CommitStep>>, lastId = 0) {
    for (const name of commitStepOrder) {
      if (name === 'listeners') this.steps.push({ name, run: (records, seconds) => this.listeners.forEach((listener) => listener(records, seconds)) })
      else if (steps[name]) this.steps.push({ name, run: steps[name] })
    }
    this.position = lastId
  }

  // The steps this pipeline runs, in order.
  get names(): CommitStepName[] {
    return this.steps.map((step) => step.name)
  }

  // The id of the last record that went through.
  get lastId(): number {
    return this.position
  }

  listen(listener: CommitStep): void {
    this.listeners.push(listener)
  }

  // A replica that restored a snapshot starts again from its position.
  restart(lastId: number): void {
    this.position = lastId
  }

  run(records: EventRecord[], commitSeconds?: number): void {
    if (records.length === 0) return
    if (records[0].id !== this.position + 1) {
      throw new Error(`commit pipeline: records ${records[0].id}..${records[records.length - 1].id} arrived after ${this.position}: commits must be reported in log order`)
    }
    this.position = records[records.length - 1].id
    for (const step of this.steps) step.run(records, commitSeconds)
  }
}
