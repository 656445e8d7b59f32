import { changeConflict, stepsFor } from '../domain/change-request-changes.js'
import type { ChangeRequest } from '../domain/change-request-state.js'
import type { ChangeRequestCommand } from '../domain/change-requests.js'
import type { CommandMeta } from '../domain/events.js'
import type { InstanceState } from '../domain/instance-state.js'
import type { ProjectState } from '../domain/project-state.js'
import type { ChangeRequestJob } from './change-request.machine.js'
import { newId } from '../new-id.js'

export const scheduleFailure = 'The server was not running at the scheduled time.'

export interface ScheduleReads {
  // When this process started: a schedule due before it fell due while the server was down.
  startedAt: number
  project(id: string): ProjectState | undefined
  instance(): InstanceState
}

// What Unleash's scheduler does with a request whose time has come, as the job the request gives
// itself: a time missed while the server was down fails it; a change whose target moved on suspends
// it; otherwise it is applied, by the system on behalf of whoever scheduled it (and if that is
// refused, it is marked failed with the reason: see the machine).
export const dueJob = (reads: ScheduleReads, request: ChangeRequest, now: Date): ChangeRequestJob => {
  const schedule = request.schedule!
  const author = schedule.scheduledBy
  const meta: CommandMeta = { now: now.toISOString(), actor: { name: author.username, userId: author.id }, mayBypassChangeRequests: () => true }
  const base = { meta, author, isAdmin: true }
  const command = (step: ChangeRequestCommand): ChangeRequestJob => ({ kind: 'command', command: step, ticket: undefined, scheduled: true })
  if (Date.parse(schedule.scheduledAt) < reads.startedAt) return command({ ...base, type: 'schedule.fail', reason: scheduleFailure })
  const project = reads.project(request.project)
  const conflict = request.changes.map((c) => changeConflict(c, request.environment, project, reads.instance())).find(Boolean)
  if (conflict) return command({ ...base, type: 'schedule.suspend', reason: conflict })
  try {
    const steps = stepsFor(request, meta, { newStrategyId: newId })
    return {
      kind: 'apply',
      plan: { step: { ...base, type: 'state.apply' }, projectId: request.project, projectCommands: steps.project, instanceCommands: steps.instance },
      ticket: undefined,
      scheduled: true,
    }
  } catch (error) {
    return command({ ...base, type: 'schedule.fail', reason: error instanceof Error ? error.message : 'The changes could not be applied.' })
  }
}
