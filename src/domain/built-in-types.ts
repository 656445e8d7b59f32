// The flag and tag types every instance starts with, and their shapes: instance state holds them, and the
// decisions about them (feature-types.ts, tag-types.ts) read that state.

export interface FeatureType {
  id: string
  name: string
  description: string
  lifetimeDays: number | null
}

// Unleash 8.2's flag types, their texts and expected lifetimes (SEMANTICS 11.2). The texts are the code's: a
// data directory keeps only each type's lifetime (withBuiltInFeatureTypes).
export const builtInFeatureTypes: FeatureType[] = [
  { id: 'release', name: 'Release', description: 'Roll out new or incomplete features. Expected lifetime ~40 days', lifetimeDays: 40 },
  { id: 'experiment', name: 'Experiment', description: 'A/B and multivariate testing. Expected lifetime ~40 days', lifetimeDays: 40 },
  {
    id: 'operational',
    name: 'Operational',
    description: 'Transition between technical implementations with minimal risk. Expected lifetime: ~7 days',
    lifetimeDays: 7,
  },
  { id: 'kill-switch', name: 'Kill switch', description: 'Quickly disable certain functionalities or features. Expected lifetime: permanent', lifetimeDays: null },
  { id: 'permission', name: 'Permission', description: 'Control feature access based on user roles or entitlements. Expected lifetime: permanent', lifetimeDays: null },
  { id: 'sunset', name: 'Sunset', description: 'Coordinate the planned removal of an existing feature. Expected lifetime: ~90 days', lifetimeDays: 90 },
]

export interface TagType {
  name: string
  description: string
  icon: string | null
}

// Unleash ships `simple` from the first start.
export const builtInTagTypes: TagType[] = [{ name: 'simple', description: 'Used to simplify filtering of features', icon: '#' }]
