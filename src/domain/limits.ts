// Unleash's resource limits, with its defaults; each can be set by the environment variable Unleash
// reads for it (config.ts), once, at start, before any command is decided.
export interface ResourceLimits {
  featureFlags: number
  projects: number
  environments: number
  segments: number
  segmentValues: number
  apiTokens: number
  featureEnvironmentStrategies: number
  constraints: number
  constraintValues: number
}

export const defaultLimits: Readonly<ResourceLimits> = {
  featureFlags: 5000,
  projects: 500,
  environments: 50,
  segments: 300,
  segmentValues: 1000,
  apiTokens: 2000,
  featureEnvironmentStrategies: 30,
  constraints: 30,
  constraintValues: 250,
}

export const limits: ResourceLimits = { ...defaultLimits }

export const setLimits = (configured: ResourceLimits): void => {
  Object.assign(limits, configured)
}
