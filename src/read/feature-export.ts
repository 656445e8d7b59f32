import type { FeatureExport } from '../domain/event-data.js'
import type { InstanceState } from '../domain/instance-state.js'
import type { Feature, ProjectState } from '../domain/project-state.js'
import { orderedStrategies } from '../domain/strategies.js'

export interface ExportSource {
  instance: InstanceState
  projects: ReadonlyMap<string, ProjectState>
}

const findFeature = (projects: ReadonlyMap<string, ProjectState>, name: string): Feature | undefined => {
  for (const project of projects.values()) {
    const feature = project.features.get(name)
    if (feature) return feature
  }
  return undefined
}

// Which flags an export covers (Unleash): a tag "type:value", else the names given, else a project's
// active flags, else every active flag.
export const exportedFeatureNames = (source: ExportSource, query: { features?: string[]; tag?: string; project?: string }): string[] => {
  const all = [...source.projects.values()].flatMap((p) => [...p.features.values()]).filter((f) => !f.archived)
  if (query.tag !== undefined) {
    const at = query.tag.indexOf(':')
    const [type, value] = at < 0 ? ['simple', query.tag] : [query.tag.slice(0, at), query.tag.slice(at + 1)]
    return all.filter((f) => f.tags.some((t) => t.type === type && t.value === value)).map((f) => f.name)
  }
  if (query.features && query.features.length > 0) return query.features
  if (query.project !== undefined) return all.filter((f) => f.project === query.project).map((f) => f.name)
  return all.map((f) => f.name)
}

// Unleash's export format (exportResultSchema) for the flags named, in one environment.
export const exportFeatures = (source: ExportSource, names: string[], environment: string): FeatureExport => {
  const features = [...new Set(names)].map((n) => findFeature(source.projects, n)).filter((f): f is Feature => f !== undefined)
  const strategies = features.flatMap((f) =>
    orderedStrategies(f.environments.get(environment)?.strategies ?? []).map((s) => ({
      name: s.name,
      id: s.id,
      featureName: f.name,
      title: s.title,
      parameters: s.parameters,
      constraints: s.constraints,
      variants: s.variants,
      segments: s.segments,
      sortOrder: s.sortOrder,
      disabled: s.disabled,
    })),
  )
  const featureEnvironments = features.flatMap((f) => {
    const env = f.environments.get(environment)
    return env ? [{ enabled: env.enabled, featureName: f.name, environment, variants: env.variants, name: f.name }] : []
  })
  const usedContext = new Set<string>()
  for (const s of strategies) {
    if (s.parameters.stickiness) usedContext.add(s.parameters.stickiness)
    for (const c of s.constraints) usedContext.add(c.contextName)
  }
  for (const e of featureEnvironments) {
    for (const variant of e.variants) {
      if (variant.stickiness) usedContext.add(variant.stickiness)
      for (const o of variant.overrides ?? []) usedContext.add(o.contextName)
    }
  }
  const contextFields = [...source.instance.contextFields.values()]
    .filter((f) => usedContext.has(f.name))
    .map(({ createdAt: _createdAt, ...field }) => field)
  const featureTags = features.flatMap((f) => f.tags.map((t) => ({ featureName: f.name, tagType: t.type, tagValue: t.value })))
  const usedSegments = new Set(strategies.flatMap((s) => s.segments))
  const segments = [...source.instance.segments.values()].filter((s) => usedSegments.has(s.id)).map((s) => ({ id: s.id, name: s.name }))
  const usedTagTypes = new Set(featureTags.map((t) => t.tagType))
  const tagTypes = [...source.instance.tagTypes.values()].filter((t) => usedTagTypes.has(t.name))
  const dependencies = features
    .filter((f) => f.dependencies.length > 0)
    .map((f) => ({ feature: f.name, dependencies: f.dependencies.map((d) => ({ feature: d.feature, enabled: d.enabled, variants: d.variants })) }))
  return {
    features: features.map((f) => ({
      name: f.name,
      type: f.type,
      description: f.description,
      project: f.project,
      stale: f.stale,
      impressionData: f.impressionData,
      archived: f.archived,
    })),
    featureStrategies: strategies,
    featureEnvironments,
    contextFields,
    featureTags,
    segments,
    tagTypes,
    dependencies,
  }
}
