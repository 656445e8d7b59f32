import * as v from 'valibot'

// Unleash's OpenAPI layer turns null into 0, and 0 means "no lifetime".
export const featureTypeLifetimeSchema = v.object({
  lifetimeDays: v.nullable(
    v.pipe(
      v.number('"lifetimeDays" must be a number'),
      v.integer('"lifetimeDays" must be an integer'),
      v.minValue(0, '"lifetimeDays" must be greater than or equal to 0'),
      v.maxValue(2147483647, '"lifetimeDays" must be less than or equal to 2147483647'),
    ),
  ),
})
