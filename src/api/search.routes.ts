import { isOpen } from '../domain/change-request-state.js'
import type { EventRecord } from '../domain/events.js'
import { eventSearchOf, featureSearchOf } from '../domain/search.js'
import type { Request, Route } from '../http/types.js'
import { currentLifecycle } from '../read/admin-views.js'
import { eventSummary, searchEvents, type EventSource } from '../read/event-search.js'
import { featureSearchView, type FeatureSearchContext } from '../read/feature-search.js'
import { flagSeenKey } from '../read/seen-times.js'
import { errorResponse, eventSearchResponse, searchFeaturesResponse } from '../schemas/responses.js'
import { eventSearchQuerySchema, featureSearchQuerySchema, queryObject } from '../schemas/search.js'
import { json, type ApiDeps } from './deps.js'
import { eventView } from './events.routes.js'
import { parse } from './parse.js'
import { viewerKey } from './viewer.js'

// Unleash 8.2's search API: how its admin UI lists, filters and pages flags (archived ones included)
// and the event log. Query grammar: src/schemas/search.ts and src/domain/search.ts.

const featureQueryDocs: Record<string, string> = {
  query: 'Comma-separated terms; a flag whose name or description contains any of them (case-insensitive; % and _ are wildcards)',
  project: 'IS, IS_NOT, IS_ANY_OF or IS_NONE_OF, a colon and project ids: IS:default',
  type: 'The flag type, with IS, IS_NOT, IS_ANY_OF or IS_NONE_OF: IS_ANY_OF:release,experiment',
  state: 'active, stale or potentially-stale, with IS, IS_NOT, IS_ANY_OF or IS_NONE_OF: IS:stale',
  lifecycle: 'Lifecycle stages (initial, pre-live, live, completed, archived), with IS, IS_NOT, IS_ANY_OF or IS_NONE_OF',
  createdBy: 'User ids of the creators (-42: an admin token), with IS, IS_NOT, IS_ANY_OF or IS_NONE_OF',
  tag: 'Tags as type:value, with INCLUDE, DO_NOT_INCLUDE, INCLUDE_ALL_OF, INCLUDE_ANY_OF, EXCLUDE_IF_ANY_OF or EXCLUDE_ALL',
  segment: 'Segment names, with INCLUDE, DO_NOT_INCLUDE, INCLUDE_ALL_OF, INCLUDE_ANY_OF, EXCLUDE_IF_ANY_OF or EXCLUDE_ALL',
  status: 'Repeatable: environment:enabled or environment:disabled; lists only those environments',
  createdAt: 'IS_BEFORE:yyyy-mm-dd or IS_ON_OR_AFTER:yyyy-mm-dd (UTC)',
  lastSeenAt: 'IS_BEFORE:yyyy-mm-dd or IS_ON_OR_AFTER:yyyy-mm-dd (UTC); never-seen flags match neither',
  archived: 'IS:true lists archived flags only (the only way to list them here)',
  favorite: 'IS:true or IS:false: only the caller\'s favorites, or only the others',
  favoritesFirst: '"true": the caller\'s favorites first',
  sortBy: 'createdAt (default), name, type, stale, project, lastSeenAt or environment:<name> (on before off when descending)',
  sortOrder: 'asc (default) or desc',
  offset: 'Flags to skip (default 0)',
  limit: 'Flags per page, 1 to 100 (default 50)',
}

const eventQueryDocs: Record<string, string> = {
  query: 'Text the event\'s data, preData or tags contain (case-insensitive; % and _ are wildcards)',
  id: 'IS or IS_ANY_OF and event ids: IS_ANY_OF:5,6',
  groupId: 'IS or IS_ANY_OF and transaction group ids (events carry none here: nothing matches)',
  feature: 'IS or IS_ANY_OF and flag names',
  project: 'IS or IS_ANY_OF and project ids',
  type: 'IS or IS_ANY_OF and event types: IS:feature-created',
  createdBy: 'IS or IS_ANY_OF and user ids of the authors (-42: an admin token)',
  environment: 'IS or IS_ANY_OF and environment names',
  from: 'IS:yyyy-mm-dd: created on or after that day (UTC)',
  to: 'IS:yyyy-mm-dd: created on or before that day (UTC)',
  offset: 'Events to skip (default 0)',
  limit: 'Events per page, 1 to 1000 (default 50)',
}

const flagInEnvironment = (feature: string, environment: string) => `${feature}\u0000${environment}`

const searchContext = (deps: ApiDeps, req: Request): FeatureSearchContext => {
  const instance = deps.reads.instance
  let openRequests: Map<string, number[]> | undefined
  const openRequestsByFeature = () => {
    const byKey = new Map<string, number[]>()
    for (const request of deps.reads.changeRequests.values()) {
      if (!isOpen(request)) continue
      for (const feature of new Set(request.changes.map((c) => c.feature))) {
        if (feature === null) continue
        const key = flagInEnvironment(feature, request.environment)
        byKey.set(key, [...(byKey.get(key) ?? []), request.id].sort((a, b) => a - b))
      }
    }
    return byKey
  }
  return {
    viewer: viewerKey(req),
    environments: instance.environments,
    lifecycle: (feature) => currentLifecycle(feature, { metricStages: (name) => deps.lifecycleStages.of(name) }),
    lastSeen: (feature, environment) => deps.lastSeen.of(flagSeenKey(feature, environment)),
    counts: (feature, environment) => deps.usage.lastHour(feature, environment),
    segmentName: (id) => instance.segments.get(id)?.name,
    segmentIdsNamed: (names) => [...instance.segments.values()].filter((s) => names.includes(s.name)).map((s) => s.id),
    changeRequestIds: (feature, environment) => (openRequests ??= openRequestsByFeature()).get(flagInEnvironment(feature, environment)) ?? [],
    user: (id) => instance.people.users.get(id),
  }
}

const eventSource = (deps: ApiDeps): EventSource => ({
  newestFirst: () => deps.log.newestFirst() as Iterable<EventRecord>,
  idsFor: (key) => deps.log.idsFor(key, { reverse: true }),
  get: (id) => deps.log.get(id) as EventRecord | undefined,
})

export const searchRoutes = (deps: ApiDeps): Route[] => [
  {
    method: 'GET',
    path: '/api/admin/search/features',
    access: 'admin',
    docs: { summary: 'Search, filter, sort and page flags (archived ones with archived=IS:true)', query: featureQueryDocs, responses: { 200: searchFeaturesResponse, 400: errorResponse } },
    handler: (req) => {
      const query = parse(featureSearchQuerySchema, queryObject(req.query, ['status']), 'query')
      const ctx = searchContext(deps, req)
      const { hits, total } = deps.featureSearch.search(featureSearchOf(query), ctx)
      return json({ features: hits.map((hit) => featureSearchView(hit, deps.featureSearch.dependencyType(hit.feature), ctx)), total })
    },
  },
  {
    // No permission, as in Unleash: callers who are not admins see the events of projects only.
    method: 'GET',
    path: '/api/admin/search/events',
    access: 'admin',
    docs: { summary: 'Search and page the event log, newest first', query: eventQueryDocs, responses: { 200: eventSearchResponse, 400: errorResponse } },
    handler: async (req) => {
      const query = parse(eventSearchQuerySchema, queryObject(req.query), 'query')
      const projectEventsOnly = req.principal?.can('ADMIN') !== true
      const { events, total } = await searchEvents(eventSource(deps), eventSearchOf(query), { projectEventsOnly })
      return json({ events: events.map((event) => ({ ...eventView(event), ...eventSummary(event, deps.config.publicUrl) })), total })
    },
  },
]
