// The API's shapes, inferred from the server's own valibot schemas (types only: nothing of them is bundled).
import type * as v from 'valibot'
import type { changeRequestResponse } from '../../src/schemas/change-requests.js'
import type { updateProjectSchema } from '../../src/schemas/projects.js'
import type { constraintResponse, featureResponse, featuresResponse, projectEnvironmentsResponse, projectResponse, projectsResponse, strategyResponse } from '../../src/schemas/responses.js'

export type ApiFlag = v.InferOutput<typeof featureResponse>
export type ApiFlags = v.InferOutput<typeof featuresResponse>
export type ApiConstraint = v.InferOutput<typeof constraintResponse>
export type ApiStrategy = v.InferOutput<typeof strategyResponse>
export type ApiProjectEnvironments = v.InferOutput<typeof projectEnvironmentsResponse>
export type ProjectUpdate = v.InferInput<typeof updateProjectSchema>
export type ApiProject = v.InferOutput<typeof projectResponse>
export type ApiProjects = v.InferOutput<typeof projectsResponse>
export type ApiChangeRequest = v.InferOutput<typeof changeRequestResponse>
