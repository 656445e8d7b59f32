import type { Constraint } from '../schemas/shared.js'

export interface Environment {
  name: string
  type: string
  enabled: boolean
  sortOrder: number
  protected: boolean
  createdAt: string
}

export type ApiTokenType = 'client' | 'backend' | 'frontend' | 'admin'

export interface ApiToken {
  secret: string
  tokenName: string
  type: ApiTokenType
  environment: string
  projects: string[]
  expiresAt: string | null
  createdAt: string
}

export interface Segment {
  id: number
  name: string
  description: string | null
  project: string | null
  constraints: Constraint[]
  createdAt: string
  createdBy: string
}

export interface InstanceState {
  environments: ReadonlyMap<string, Environment>
  apiTokens: ReadonlyMap<string, ApiToken>
  segments: ReadonlyMap<number, Segment>
}

export const emptyInstance = (): InstanceState => ({ environments: new Map(), apiTokens: new Map(), segments: new Map() })
