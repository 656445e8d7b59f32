import { DomainError } from '../domain/errors.js'
import type { Request } from '../http/types.js'
import type { PeopleViewContext } from '../read/people-views.js'
import type { ApiDeps } from './deps.js'

export const peopleContext = (deps: ApiDeps): PeopleViewContext => ({
  people: deps.reads.instance.people,
  activity: (id) => deps.activity.of(id),
  publicUrl: deps.config.publicUrl,
  now: deps.clock,
})

export const callerUserId = (req: Request): number => {
  const id = req.principal?.kind === 'user' ? req.principal.userId : null
  if (id === null) throw new DomainError('BadDataError', 'This operation needs a logged-in user or a personal access token, not an API token.')
  return id
}

export const numericId = (raw: string, what: string): number => {
  if (!/^[1-9][0-9]{0,9}$/.test(raw)) throw new DomainError('BadDataError', `"${what}" must be a positive whole number`)
  return Number(raw)
}
