import * as v from 'valibot'
import { boundedString, dateTimeString } from './shared.js'

export const apiTokenTypes = ['client', 'backend', 'frontend', 'admin'] as const

export const createApiTokenSchema = v.object({
  tokenName: v.optional(v.pipe(boundedString('tokenName', 200), v.trim(), v.minLength(1, '"tokenName" is not allowed to be empty'))),
  username: v.optional(v.pipe(boundedString('username', 200), v.trim(), v.minLength(1))),
  type: v.pipe(
    v.string('"type" must be a string'),
    v.toLowerCase(),
    v.picklist(apiTokenTypes, '"type" must be one of client, backend, frontend, admin'),
  ),
  environment: v.optional(v.pipe(boundedString('environment', 100), v.minLength(1))),
  project: v.optional(boundedString('project', 100)),
  projects: v.optional(v.pipe(v.array(boundedString('projects[]', 100), '"projects" must be an array of project ids'), v.minLength(1, '"projects" must hold at least one project'), v.maxLength(500))),
  expiresAt: v.nullish(dateTimeString('expiresAt')),
  secret: v.optional(v.pipe(boundedString('secret', 500), v.minLength(8))),
})
export type CreateApiToken = v.InferOutput<typeof createApiTokenSchema>

export const updateApiTokenSchema = v.object({
  expiresAt: dateTimeString('expiresAt'),
})
