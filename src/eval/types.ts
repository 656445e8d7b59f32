// The structural shape the rest of the server feeds the evaluator: a client
// feature of one environment (SEMANTICS §5.1) plus its segments.
export interface EvalConstraint {
  contextName: string
  operator: string
  values?: string[]
  value?: string
  inverted?: boolean
  caseInsensitive?: boolean
}

export interface EvalPayload {
  type: string
  value: string
}

export interface EvalVariant {
  name: string
  weight: number
  weightType?: string
  stickiness?: string
  payload?: EvalPayload
  overrides?: { contextName: string; values: string[] }[]
}

export interface EvalStrategy {
  id?: string
  name: string
  title?: string | null
  disabled?: boolean | null
  parameters?: Record<string, unknown>
  constraints?: EvalConstraint[]
  segments?: number[]
  variants?: EvalVariant[]
}

export interface EvalDependency {
  feature: string
  enabled?: boolean
  variants?: string[]
}

export interface EvalFeature {
  name: string
  project?: string
  enabled: boolean
  strategies?: EvalStrategy[] | null
  variants?: EvalVariant[] | null
  dependencies?: EvalDependency[]
  impressionData?: boolean | null
}

export interface EvalSegment {
  id: number
  name?: string
  constraints: EvalConstraint[]
}

export interface EvalContext {
  appName?: string
  environment?: string
  userId?: string
  sessionId?: string
  remoteAddress?: string
  currentTime?: string | Date
  properties?: Record<string, unknown>
  [key: string]: unknown
}

export interface EvalVariantResult {
  name: string
  enabled: boolean
  payload?: EvalPayload
  feature_enabled: boolean
  featureEnabled: boolean
}

// evaluate() hands out shared, frozen objects (no allocation on the hot
// path): copy before changing one.
export interface EvalResult {
  enabled: boolean
  variant: EvalVariantResult
  impressionData: boolean
}

export interface PlaygroundConstraint extends EvalConstraint {
  result: boolean
}

export interface PlaygroundSegment {
  id: number
  name: string
  result: boolean
  constraints: PlaygroundConstraint[]
}

export interface PlaygroundStrategyVariant {
  name: string
  enabled: boolean
  payload?: EvalPayload
}

export type PlaygroundStrategyResult =
  | {
      evaluationStatus: 'complete'
      enabled: boolean
      variant?: PlaygroundStrategyVariant
      variants?: EvalVariant[]
    }
  | { evaluationStatus: 'incomplete' | 'unevaluated'; enabled: false | 'unknown' }

export interface PlaygroundStrategy {
  name: string
  id: string
  title?: string
  disabled: boolean
  parameters: Record<string, string>
  constraints: PlaygroundConstraint[]
  segments: PlaygroundSegment[]
  result: PlaygroundStrategyResult
  links: { edit: string }
}

export interface PlaygroundFeature {
  name: string
  projectId: string
  strategies: { result: boolean | 'unknown'; data: PlaygroundStrategy[] }
  hasUnsatisfiedDependency: boolean
  isEnabledInCurrentEnvironment: boolean
  isEnabled: boolean
  variant: EvalVariantResult
  variants: EvalVariant[]
  feature_enabled?: boolean
  featureEnabled?: boolean
}
