// The flag and tag types every instance starts with, and their shapes: instance state holds them, and the
// decisions about them (feature-types.ts, tag-types.ts) read that state.

export interface FeatureType {
  id: string
  name: string
  description: string
  lifetimeDays: number | null
}

// Unleash's flag types and their expected lifetimes (SEMANTICS 11.2).
export const builtInFeatureTypes: FeatureType[] = [
  { id: 'release', name: 'Release', description: 'Release feature flags are used to release new features.', lifetimeDays: 40 },
  {
    id: 'experiment',
    name: 'Experiment',
    description: 'Experiment feature flags are used to test and verify multiple different versions of a feature.',
    lifetimeDays: 40,
  },
  { id: 'operational', name: 'Operational', description: 'Operational feature flags are used to control aspects of a rollout.', lifetimeDays: 7 },
  {
    id: 'kill-switch',
    name: 'Kill switch',
    description: 'Kill switch feature flags are used to quickly turn on or off critical functionality in your system.',
    lifetimeDays: null,
  },
  { id: 'permission', name: 'Permission', description: 'Permission feature flags are used to control permissions in your system.', lifetimeDays: null },
]

export interface TagType {
  name: string
  description: string
  icon: string | null
}

// Unleash ships `simple` from the first start.
export const builtInTagTypes: TagType[] = [{ name: 'simple', description: 'Used to simplify filtering of features', icon: '#' }]
