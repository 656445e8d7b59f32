import type { Environment } from '../domain/instance-state.js'
import type { Feature, LifecycleStage } from '../domain/project-state.js'
import type { TextTable } from './seen-times.js'

type MetricStage = 'pre-live' | 'live'

// The lifecycle stages that metrics drive (SEMANTICS 11.6), kept like lastSeenAt: in memory, written
// to a side table on a timer, never as events (a metrics post must not cost a log write). A stage is
// recorded once per life of the flag: an entry older than the flag's latest `initial` (revived, or
// deleted and created again) is replaced by the next one.
export class LifecycleStages {
  private readonly entered = new Map<string, string>()
  private readonly dirty = new Set<string>()

  constructor(private readonly table: TextTable) {
    for (const { key, value } of table.getRange()) this.entered.set(key, value)
  }

  private static key(feature: string, stage: MetricStage) {
    return `${feature}\u0000${stage}`
  }

  private record(feature: string, stage: MetricStage, at: string, lifeStartedAt: string): void {
    const key = LifecycleStages.key(feature, stage)
    const current = this.entered.get(key)
    if (current !== undefined && current >= lifeStartedAt) return
    this.entered.set(key, at)
    this.dirty.add(key)
  }

  // Metrics for a flag arrived from a known environment; `isLive` when it is a production-type one
  // where the flag is on.
  observe(feature: string, isLive: boolean, at: string, lifeStartedAt: string): void {
    this.record(feature, 'pre-live', at, lifeStartedAt)
    if (isLive) this.record(feature, 'live', at, lifeStartedAt)
  }

  // SEMANTICS 11.6: pre-live on metrics from a known environment; live on metrics from a
  // production-type one where the flag is on. Archived flags stay archived.
  observeMetrics(feature: Feature, environment: Environment | undefined, at: string): void {
    if (!environment || feature.archived) return
    const isLive = environment.type === 'production' && feature.environments.get(environment.name)?.enabled === true
    const lifeStartedAt = feature.lifecycle.filter((l) => l.stage === 'initial').map((l) => l.enteredStageAt).sort().pop() ?? feature.createdAt
    this.observe(feature.name, isLive, at, lifeStartedAt)
  }

  of(feature: string): LifecycleStage[] {
    const stages: LifecycleStage[] = []
    for (const stage of ['pre-live', 'live'] as const) {
      const at = this.entered.get(LifecycleStages.key(feature, stage))
      if (at !== undefined) stages.push({ stage, enteredStageAt: at })
    }
    return stages
  }

  async flush(): Promise<void> {
    if (this.dirty.size === 0) return
    const keys = [...this.dirty]
    this.dirty.clear()
    await this.table.transaction(() => {
      for (const key of keys) this.table.put(key, this.entered.get(key)!)
    })
  }
}
