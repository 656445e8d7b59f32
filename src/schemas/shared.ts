import * as v from 'valibot'

// Unleash validates request bodies against its OpenAPI schemas, and where a schema says
// `additionalProperties: false` an unknown property is a 400; everywhere else it is ignored. The objects
// declared with closedObject are exactly those (Unleash's schema in brackets): constraints
// [constraintSchema], feature variants [variantSchema] and their overrides [overrideSchema], tags
// [tagSchema], tag updates [updateTagsSchema, tagsBulkAddSchema], tag types [tagTypeSchema], project
// environments [projectEnvironmentSchema], context field legal values [legalValueSchema], lifecycle
// completion [featureLifecycleCompletedSchema], imports [importTogglesSchema], login [loginSchema], users
// [createUserSchema], passwords [passwordSchema] and invited sign-ups [createInvitedUserSchema]. Every
// other body, SDK bodies included, stays open: parse() names the property in Unleash's words.
export const closedObject = v.strictObject

export const maxNameLength = 100

// Unleash: a name is URL friendly when encodeURIComponent leaves it unchanged, that is when it holds
// only the characters it never escapes (and encodeURIComponent itself throws on a lone surrogate).
const unescaped = /^[A-Za-z0-9\-_.!~*'()]*$/
export const isUrlFriendly = (s: string): boolean => unescaped.test(s)

export const urlFriendlyName = (what: string) =>
  v.pipe(
    v.string(`"${what}" must be a string`),
    v.minLength(1, `"${what}" is not allowed to be empty`),
    v.maxLength(maxNameLength, `"${what}" length must be less than or equal to ${maxNameLength} characters long`),
    v.check((s) => isUrlFriendly(s) && s !== '.' && s !== '..', `"${what}" must be URL friendly`),
  )

export const boundedString = (what: string, max: number) =>
  v.pipe(v.string(`"${what}" must be a string`), v.maxLength(max, `"${what}" must be at most ${max} characters long`))

export const nullableText = (what: string, max = 10_000) => v.nullish(boundedString(what, max))

export const dateTimeString = (what: string) =>
  v.pipe(
    v.string(`"${what}" must be a date-time string`),
    v.maxLength(64, `"${what}" is too long`),
    v.check((s) => !Number.isNaN(Date.parse(s)), `"${what}" must be a valid date-time`),
  )

export const constraintSchema = closedObject({
  contextName: v.pipe(boundedString('contextName', 100), v.minLength(1, '"contextName" is not allowed to be empty')),
  operator: boundedString('operator', 50),
  caseInsensitive: v.optional(v.boolean('"caseInsensitive" must be a boolean'), false),
  inverted: v.optional(v.boolean('"inverted" must be a boolean'), false),
  values: v.optional(
    v.pipe(
      v.array(v.pipe(boundedString('values[]', 100)), '"values" must be an array of strings'),
      v.maxLength(1000, '"values" may hold at most 1000 items'),
    ),
  ),
  value: v.optional(boundedString('value', 10_000)),
})
export type Constraint = v.InferOutput<typeof constraintSchema>

export const payloadSchema = v.object({
  type: v.picklist(['json', 'csv', 'string', 'number'], '"payload.type" must be one of json, csv, string, number'),
  value: boundedString('payload.value', 100_000),
})

const weight = v.pipe(
  v.number('"weight" must be a number'),
  v.integer('"weight" must be an integer'),
  v.minValue(0, '"weight" must be greater than or equal to 0'),
  v.maxValue(1000, '"weight" must be less than or equal to 1000'),
)

const stickiness = v.pipe(boundedString('stickiness', 100))

// Unleash 8.2 (side by side) refuses a strategy variant without weightType or stickiness, or with an empty
// stickiness (INTERFACE 2.3: both required); flag variants (2.4) default them.
export const strategyVariantSchema = v.object({
  name: urlFriendlyName('name'),
  weight,
  weightType: v.picklist(['variable', 'fix'], '"weightType" must be one of variable, fix'),
  stickiness: v.pipe(stickiness, v.minLength(1, '"stickiness" is not allowed to be empty')),
  payload: v.optional(payloadSchema),
})
export type StrategyVariant = v.InferOutput<typeof strategyVariantSchema>

export const overrideSchema = closedObject({
  contextName: boundedString('overrides[].contextName', 100),
  values: v.pipe(v.array(boundedString('overrides[].values[]', 1000)), v.maxLength(1000, '"overrides[].values" may hold at most 1000 items')),
})

export const featureVariantSchema = closedObject({
  name: urlFriendlyName('name'),
  weight,
  weightType: v.optional(v.picklist(['variable', 'fix'], '"weightType" must be one of variable, fix'), 'variable'),
  stickiness: v.optional(stickiness, 'default'),
  payload: v.optional(payloadSchema),
  overrides: v.optional(v.pipe(v.array(overrideSchema), v.maxLength(100, '"overrides" may hold at most 100 items'))),
})
export type FeatureVariant = v.InferOutput<typeof featureVariantSchema>

const parameterValue = v.union(
  [v.string(), v.number(), v.boolean(), v.null()],
  'strategy parameters must be strings, numbers or booleans',
)

// Unleash's limit on the segments one strategy uses (SEMANTICS 2.3).
export const maxStrategySegments = 5

export const createFeatureStrategySchema = v.object({
  name: v.pipe(boundedString('name', 100), v.minLength(1, '"name" is not allowed to be empty')),
  title: v.nullish(boundedString('title', 1000)),
  disabled: v.nullish(v.boolean('"disabled" must be a boolean')),
  sortOrder: v.optional(v.pipe(v.number('"sortOrder" must be a number'), v.safeInteger('"sortOrder" must be an integer'))),
  constraints: v.optional(v.pipe(v.array(constraintSchema, '"constraints" must be an array'), v.maxLength(30, 'A strategy may have at most 30 constraints'))),
  variants: v.optional(v.pipe(v.array(strategyVariantSchema, '"variants" must be an array'), v.maxLength(100, 'A strategy may have at most 100 variants'))),
  parameters: v.optional(v.record(boundedString('parameters key', 100), parameterValue, '"parameters" must be an object')),
  segments: v.optional(
    v.pipe(
      v.array(v.pipe(v.number('"segments" must hold segment ids'), v.safeInteger('"segments" must hold segment ids'), v.minValue(1)), '"segments" must be an array of ids'),
      v.maxLength(maxStrategySegments, `Strategies may not have more than ${maxStrategySegments} segments`),
    ),
  ),
})
export type CreateFeatureStrategy = v.InferOutput<typeof createFeatureStrategySchema>

export const tagSchema = closedObject({
  value: v.pipe(v.string('"value" must be a string'), v.trim(), v.minLength(2, '"value" must be 2 to 50 characters'), v.maxLength(50, '"value" must be 2 to 50 characters')),
  type: v.optional(v.pipe(v.string('"type" must be a string'), v.trim(), v.minLength(2, '"type" must be 2 to 50 characters'), v.maxLength(50, '"type" must be 2 to 50 characters')), 'simple'),
})
export type Tag = v.InferOutput<typeof tagSchema>
