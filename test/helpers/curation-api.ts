// Admin API calls for tags, favorites, lifecycle, staleness, flag types, overview and import/export,
// named after the API actions.
import { api, type ServerRef } from './admin-api.js'

const encode = encodeURIComponent
const featurePath = (project: string, feature: string) => `/api/admin/projects/${encode(project)}/features/${encode(feature)}`

// Tag types
export const listTagTypes = (s: ServerRef) => api(s, 'GET', '/api/admin/tag-types')
export const getTagType = (s: ServerRef, name: string) => api(s, 'GET', `/api/admin/tag-types/${encode(name)}`)
export const createTagType = (s: ServerRef, body: Record<string, unknown>) => api(s, 'POST', '/api/admin/tag-types', body)
export const updateTagType = (s: ServerRef, name: string, body: Record<string, unknown>) => api(s, 'PUT', `/api/admin/tag-types/${encode(name)}`, body)
export const deleteTagType = (s: ServerRef, name: string) => api(s, 'DELETE', `/api/admin/tag-types/${encode(name)}`)

// Tags on flags
export const listFeatureTags = (s: ServerRef, feature: string) => api(s, 'GET', `/api/admin/features/${encode(feature)}/tags`)
export const tagFeature = (s: ServerRef, feature: string, tag: Record<string, unknown>) => api(s, 'POST', `/api/admin/features/${encode(feature)}/tags`, tag)
export const replaceFeatureTags = (s: ServerRef, feature: string, body: unknown) => api(s, 'PUT', `/api/admin/features/${encode(feature)}/tags`, body)
export const untagFeature = (s: ServerRef, feature: string, type: string, value: string) =>
  api(s, 'DELETE', `/api/admin/features/${encode(feature)}/tags/${encode(type)}/${encode(value)}`)
export const bulkTagFeatures = (s: ServerRef, project: string, body: unknown) => api(s, 'PUT', `/api/admin/projects/${encode(project)}/tags`, body)

// Favorites
export const favoriteFeature = (s: ServerRef, project: string, feature: string, token?: string) => api(s, 'POST', `${featurePath(project, feature)}/favorites`, undefined, token)
export const unfavoriteFeature = (s: ServerRef, project: string, feature: string, token?: string) => api(s, 'DELETE', `${featurePath(project, feature)}/favorites`, undefined, token)
export const favoriteProject = (s: ServerRef, project: string, token?: string) => api(s, 'POST', `/api/admin/projects/${encode(project)}/favorites`, undefined, token)
export const unfavoriteProject = (s: ServerRef, project: string, token?: string) => api(s, 'DELETE', `/api/admin/projects/${encode(project)}/favorites`, undefined, token)

// Lifecycle and staleness
export const getLifecycle = (s: ServerRef, project: string, feature: string) => api(s, 'GET', `${featurePath(project, feature)}/lifecycle`)
export const completeFeature = (s: ServerRef, project: string, feature: string, body: Record<string, unknown>) => api(s, 'POST', `${featurePath(project, feature)}/lifecycle/complete`, body)
export const uncompleteFeature = (s: ServerRef, project: string, feature: string) => api(s, 'POST', `${featurePath(project, feature)}/lifecycle/uncomplete`)
export const markStale = (s: ServerRef, project: string, features: string[], stale: boolean) => api(s, 'POST', `/api/admin/projects/${encode(project)}/stale`, { features, stale })

// Flag types
export const listFeatureTypes = (s: ServerRef) => api(s, 'GET', '/api/admin/feature-types')
export const setFeatureTypeLifetime = (s: ServerRef, id: string, lifetimeDays: number | null) =>
  api(s, 'PUT', `/api/admin/feature-types/${encode(id)}/lifetime`, { lifetimeDays })

// Overview
export const getProjectOverview = (s: ServerRef, project: string, token?: string) => api(s, 'GET', `/api/admin/projects/${encode(project)}/overview`, undefined, token)

// Import / export
export const exportFeatures = (s: ServerRef, body: Record<string, unknown>) => api(s, 'POST', '/api/admin/features-batch/export', body)
export const validateImport = (s: ServerRef, body: Record<string, unknown>) => api(s, 'POST', '/api/admin/features-batch/validate', body)
export const importFeatures = (s: ServerRef, body: Record<string, unknown>) => api(s, 'POST', '/api/admin/features-batch/import', body)
