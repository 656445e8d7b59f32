import * as v from 'valibot'
import { boundedString, closedObject, dateTimeString, nullableText } from './shared.js'

const email = v.pipe(boundedString('email', 320), v.trim(), v.email('"email" must be a valid email address'))
const username = v.pipe(boundedString('username', 100), v.trim(), v.minLength(1, '"username" is not allowed to be empty'), v.regex(/^[^\s:]+$/, '"username" must not contain spaces or colons'))
const roleRef = v.union(
  [v.pipe(v.number(), v.safeInteger(), v.minValue(1)), v.pipe(boundedString('rootRole', 100), v.minLength(1))],
  '"rootRole" must be a role id or name',
)

export const createUserSchema = closedObject({
  username: v.optional(username),
  email: v.optional(email),
  name: nullableText('name', 255),
  password: v.optional(boundedString('password', 1000)),
  rootRole: roleRef,
  sendEmail: v.optional(v.boolean()),
})
export type CreateUser = v.InferOutput<typeof createUserSchema>

export const updateUserSchema = v.object({
  name: nullableText('name', 255),
  email: v.optional(email),
  username: v.optional(username),
  rootRole: v.optional(roleRef),
})
export type UpdateUser = v.InferOutput<typeof updateUserSchema>

export const passwordSchema = closedObject({
  password: boundedString('password', 1000),
  oldPassword: v.optional(boundedString('oldPassword', 1000)),
  confirmPassword: v.optional(boundedString('confirmPassword', 1000)),
})

export const loginSchema = closedObject({
  username: v.pipe(boundedString('username', 320), v.minLength(1, '"username" is not allowed to be empty')),
  password: boundedString('password', 1000),
})

export const createServiceAccountSchema = v.object({
  username,
  name: nullableText('name', 255),
  rootRole: roleRef,
})
export type CreateServiceAccount = v.InferOutput<typeof createServiceAccountSchema>

export const permissionRefSchema = v.object({
  name: v.pipe(boundedString('permissions[].name', 100), v.regex(/^[A-Z_]+$/, '"permissions[].name" must be a permission name such as UPDATE_FEATURE')),
  environment: v.optional(boundedString('permissions[].environment', 100)),
})

export const roleSchema = v.object({
  name: v.pipe(boundedString('name', 100), v.trim(), v.minLength(1, '"name" is not allowed to be empty')),
  description: nullableText('description', 1000),
  type: v.optional(v.picklist(['root-custom', 'custom'], '"type" must be root-custom or custom'), 'custom'),
  permissions: v.optional(v.pipe(v.array(permissionRefSchema), v.maxLength(500)), []),
})
export type RoleInput = v.InferOutput<typeof roleSchema>

export const groupSchema = v.object({
  name: v.pipe(boundedString('name', 100), v.trim(), v.minLength(1, '"name" is not allowed to be empty')),
  description: nullableText('description', 1000),
  mappingsSSO: v.optional(v.pipe(v.array(boundedString('mappingsSSO[]', 255)), v.maxLength(100)), []),
  rootRole: v.nullish(v.pipe(v.number('"rootRole" must be a role id'), v.safeInteger(), v.minValue(1))),
  users: v.optional(
    v.pipe(v.array(v.object({ user: v.object({ id: v.pipe(v.number('"users[].user.id" must be a user id'), v.safeInteger(), v.minValue(1)) }) })), v.maxLength(10_000)),
    [],
  ),
})
export type GroupInput = v.InferOutput<typeof groupSchema>

export const createPatSchema = v.object({
  description: v.pipe(boundedString('description', 255), v.trim(), v.minLength(1, '"description" is not allowed to be empty')),
  expiresAt: dateTimeString('expiresAt'),
})
export type CreatePat = v.InferOutput<typeof createPatSchema>

export const createSignupTokenSchema = v.object({
  name: v.pipe(boundedString('name', 255), v.trim(), v.minLength(1, '"name" is not allowed to be empty')),
  expiresAt: dateTimeString('expiresAt'),
  role: v.optional(v.union([v.pipe(v.number(), v.safeInteger(), v.minValue(1)), boundedString('role', 100)])),
})
export type CreateSignupToken = v.InferOutput<typeof createSignupTokenSchema>

export const updateSignupTokenSchema = v.object({
  expiresAt: v.optional(dateTimeString('expiresAt')),
  enabled: v.optional(v.boolean('"enabled" must be a boolean')),
})
export type UpdateSignupToken = v.InferOutput<typeof updateSignupTokenSchema>

export const signupSchema = closedObject({
  email,
  name: v.pipe(boundedString('name', 255), v.trim(), v.minLength(1, '"name" is not allowed to be empty')),
  password: boundedString('password', 1000),
  username: v.optional(username),
})

export const projectAccessSchema = v.object({
  roles: v.pipe(v.array(v.pipe(v.number('"roles" must hold role ids'), v.safeInteger(), v.minValue(1))), v.maxLength(100)),
  users: v.optional(v.pipe(v.array(v.pipe(v.number('"users" must hold user ids'), v.safeInteger(), v.minValue(1))), v.maxLength(10_000)), []),
  groups: v.optional(v.pipe(v.array(v.pipe(v.number('"groups" must hold group ids'), v.safeInteger(), v.minValue(1))), v.maxLength(10_000)), []),
})

export const rolesSchema = v.object({
  roles: v.pipe(v.array(v.pipe(v.number('"roles" must hold role ids'), v.safeInteger(), v.minValue(1))), v.maxLength(100)),
})

// The id of one of the admin UI's one-time hints (POST /api/admin/splash/:splashId).
export const splashIdSchema = v.pipe(boundedString('splashId', 100), v.regex(/^[A-Za-z0-9_.-]+$/, '"splashId" may hold letters, digits, ".", "_" and "-" only'))
