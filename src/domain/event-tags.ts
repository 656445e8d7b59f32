import type { EventDraft } from './events.js'
import type { ProjectState } from './project-state.js'

// SEMANTICS 9.1: an event about a flag that carries no tags of its own is stored with the flag's
// tags as they are once the command is applied (Unleash reads them when it stores the event).
// Applied in one place, the dispatcher, to every project command's events.
export const withFeatureTags = (events: EventDraft[], state: ProjectState | undefined): EventDraft[] =>
  events.map((event) => {
    if (!event.featureName || event.tags !== undefined) return event
    const feature = state?.features.get(event.featureName)
    return { ...event, tags: feature ? feature.tags.map((t) => ({ type: t.type, value: t.value })) : [] }
  })
