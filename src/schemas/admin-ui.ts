import * as v from 'valibot'
import { boundedString } from './shared.js'

// What Unleash's admin UI reports when one of its pages crashed (POST /api/admin/record-ui-error).
export const recordUiErrorSchema = v.object({
  errorMessage: boundedString('errorMessage', 10_000),
  errorStack: v.optional(boundedString('errorStack', 100_000)),
})
