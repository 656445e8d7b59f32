import { ok, type Result } from './errors.js'
import { draft, type EventDraft } from './events.js'
import { findFeature } from './features.js'
import { updateFeatureIn, type ProjectState } from './project-state.js'
import type { WithMeta } from './world.js'

type FavoriteFeature = { type: 'favorite.feature'; feature: string; userKey: string; favorite: boolean }
type FavoriteProject = { type: 'favorite.project'; userKey: string; favorite: boolean }

export type FavoriteCommand = FavoriteFeature | FavoriteProject

// Favorites belong to a caller: a user id, or an admin token's name (those have no user). The key
// travels in the event so that a replay rebuilds the same sets.
export const decideFavoriteFeature = (state: ProjectState, { feature: featureName, userKey, favorite, world, meta }: WithMeta<FavoriteFeature>): Result<EventDraft[]> => {
  const found = findFeature(state, featureName, world)
  if (!found.ok) return found
  const isFavorite = (found.value.favoritedBy ?? []).includes(userKey)
  if (isFavorite === favorite) return ok([])
  const type = favorite ? 'feature-favorited' : 'feature-unfavorited'
  return ok([draft(meta, type, { project: state.settings.id, featureName, data: { feature: featureName, userKey } })])
}

export const decideFavoriteProject = (state: ProjectState, { userKey, favorite, meta }: WithMeta<FavoriteProject>): Result<EventDraft[]> => {
  const isFavorite = (state.favoritedBy ?? []).includes(userKey)
  if (isFavorite === favorite) return ok([])
  const type = favorite ? 'project-favorited' : 'project-unfavorited'
  return ok([draft(meta, type, { project: state.settings.id, data: { project: state.settings.id, userKey } })])
}

const toggled = (keys: readonly string[] | undefined, key: string, on: boolean): string[] => {
  const rest = (keys ?? []).filter((k) => k !== key)
  return on ? [...rest, key] : rest
}

export const evolveFavorites = (state: ProjectState, event: EventDraft): ProjectState => {
  switch (event.type) {
    case 'feature-favorited':
    case 'feature-unfavorited': {
      const on = event.type === 'feature-favorited'
      return { ...state, features: updateFeatureIn(state.features, String(event.featureName), (f) => ({ ...f, favoritedBy: toggled(f.favoritedBy, event.data.userKey, on) })) }
    }
    case 'project-favorited':
    case 'project-unfavorited':
      return { ...state, favoritedBy: toggled(state.favoritedBy, event.data.userKey, event.type === 'project-favorited') }
    default:
      return state
  }
}

export const isFavoriteOf = (favoritedBy: readonly string[] | undefined, userKey: string | undefined): boolean =>
  userKey !== undefined && (favoritedBy ?? []).includes(userKey)
