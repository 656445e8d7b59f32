import { internalIndexKey } from '../actors/dispatch.js'
import { isInternalRecord, type EventRecord } from '../domain/events.js'
import type { Route } from '../http/types.js'
import { json, type ApiDeps } from './deps.js'
import { eventsHeadResponse, eventsResponse, featureEventsResponse } from '../schemas/responses.js'

const latestLimit = 100

// The listed event: everything but replay-only facts.
export const eventView = ({ hidden: _hidden, ...event }: EventRecord) => ({
  id: event.id,
  type: event.type,
  createdAt: event.createdAt,
  createdBy: event.createdBy,
  createdByUserId: event.createdByUserId,
  environment: event.environment ?? null,
  project: event.project ?? null,
  featureName: event.featureName ?? null,
  data: event.data ?? null,
  preData: event.preData ?? null,
  tags: event.tags ?? [],
})

export const eventRoutes = (deps: ApiDeps): Route[] => {
  const byIndex = (key: string) =>
    deps.log.idsFor(key, { reverse: true }).map((id) => eventView(deps.log.get(id) as EventRecord))
  return [
    {
      method: 'GET',
      path: '/api/admin/events',
      access: 'admin',
      permission: 'ADMIN',
      docs: { query: { project: "Only this project's events, newest first (all of them)" }, responses: { 200: eventsResponse } },
      handler: (req) => {
        const project = req.query.get('project')
        if (project !== null) {
          const events = byIndex(`project:${project}`)
          return json({ version: 1, events, totalEvents: events.length })
        }
        const events = deps.log.newest(latestLimit, (r) => !isInternalRecord((r as EventRecord).type)).map((r) => eventView(r as EventRecord))
        return json({ version: 1, events, totalEvents: deps.log.count() - deps.log.countFor(internalIndexKey) })
      },
    },
    {
      // What an operator notes to check later that history was not rewritten (`npm run log -- verify`).
      method: 'GET',
      path: '/api/admin/events/head',
      access: 'admin',
      permission: 'ADMIN',
      docs: { responses: { 200: eventsHeadResponse } },
      handler: () => {
        const id = deps.reads.lastId
        return json({ id, hash: deps.log.hashOf(id) ?? '0'.repeat(64) })
      },
    },
    {
      method: 'GET',
      path: '/api/admin/events/:featureName',
      access: 'admin',
      permission: 'ADMIN',
      docs: { responses: { 200: featureEventsResponse } },
      handler: (req) => {
        const events = byIndex(`feature:${req.params.featureName}`)
        return json({ version: 1, toggleName: req.params.featureName, events, totalEvents: events.length })
      },
    },
  ]
}
