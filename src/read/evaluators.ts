import type { Segment } from '../domain/instance-state.js'
import type { Feature, ProjectState } from '../domain/project-state.js'
import { orderedStrategies } from '../domain/strategies.js'
import { Evaluator } from '../eval/evaluator.js'
import type { EvalFeature } from '../eval/types.js'

export interface EvaluatorsSource {
  projects(): ReadonlyMap<string, ProjectState>
  segments(): ReadonlyMap<number, Segment>
  revision(): number
}

const none: never[] = []

// The compiled evaluator keeps what it is given: the flag's own lists where they already are what it needs.
// (The evaluator only reads the list, so the flag's own readonly one serves.)
const inOrder = <S extends { id: string; sortOrder: number }>(strategies: readonly S[]): S[] => {
  const ordered = orderedStrategies(strategies)
  return ordered.every((s, i) => s === strategies[i]) ? (strategies as S[]) : ordered
}

// Disabled strategies are kept: the playground explains them; evaluate() skips them as SDKs never see them.
export const evalFeature = (feature: Feature, environment: string): EvalFeature => {
  const env = feature.environments.get(environment)
  return {
    name: feature.name,
    project: feature.project,
    enabled: env?.enabled ?? false,
    strategies: inOrder(env?.strategies ?? none),
    variants: env?.variants ?? none,
    dependencies: feature.dependencies.every((d) => d.enabled)
      ? feature.dependencies
      : feature.dependencies.map((d) => (d.enabled ? d : { feature: d.feature, enabled: false })),
    impressionData: feature.impressionData,
  }
}

interface Synced {
  evaluator: Evaluator
  revision: number
  segments: ReadonlyMap<number, Segment> | undefined
}

// One evaluator per environment, brought up to date on first use after a change: only flags whose
// (immutable) state object changed are recompiled.
export class Evaluators {
  private readonly byEnvironment = new Map<string, Synced>()
  // Flags compiled so far: a test's proof that a change to one flag recompiles that flag alone.
  readonly counters = { flagsCompiled: 0 }

  constructor(private readonly source: EvaluatorsSource) {}

  // Moves whenever anything an evaluation reads may have changed.
  revision(): number {
    return this.source.revision()
  }

  for(environment: string): Evaluator {
    let synced = this.byEnvironment.get(environment)
    if (!synced) {
      synced = { evaluator: new Evaluator(), revision: -1, segments: undefined }
      this.byEnvironment.set(environment, synced)
    }
    const revision = this.source.revision()
    if (synced.revision !== revision) this.sync(synced, environment, revision)
    return synced.evaluator
  }

  private sync(synced: Synced, environment: string, revision: number): void {
    const segments = this.source.segments()
    if (segments !== synced.segments) {
      synced.evaluator.setSegments([...segments.values()])
      synced.segments = segments
    }
    let present = 0
    for (const project of this.source.projects().values()) {
      for (const feature of project.features.values()) {
        if (feature.archived) continue
        present++
        if (synced.evaluator.originOf(feature.name) === feature) continue
        synced.evaluator.upsertFeature(evalFeature(feature, environment), feature)
        this.counters.flagsCompiled++
      }
    }
    // Every flag present is compiled now, so only a count above theirs means some compiled flag is gone: the
    // walk by name that finds it is made then alone (at 50,000 flags it is a few ms after each write).
    if (synced.evaluator.size > present) this.removeGone(synced)
    synced.revision = revision
  }

  private removeGone(synced: Synced): void {
    const present = new Set<string>()
    for (const project of this.source.projects().values()) {
      for (const feature of project.features.values()) if (!feature.archived) present.add(feature.name)
    }
    for (const name of synced.evaluator.featureNames()) if (!present.has(name)) synced.evaluator.removeFeature(name)
  }
}
