import { DomainError, fail, notFound, ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import type { ProjectState } from './project-state.js'

// Commands that change one environment of a flag, and those Unleash also blocks when any
// environment of the project requires change requests (SEMANTICS 12).
const environmentCommands = new Set(['featureEnvironment.toggle', 'strategy.add', 'strategy.update', 'strategy.delete', 'strategy.reorder'])
// The legacy flag-level variants write every environment at once, so any protected one blocks it.
const projectWideCommands = new Set(['feature.archive', 'dependency.add', 'dependency.remove', 'variants.setLegacy'])

// SEMANTICS 7.4 and 12: the PermissionError of a missing SKIP_CHANGE_REQUEST, without the environment in its message.
const skipChangeRequestMessage =
  'You don\'t have the required permissions to perform this operation. To perform this action, you need the "SKIP_CHANGE_REQUEST" permission.'

export const changeRequestRequired = () =>
  new DomainError('PermissionError', skipChangeRequestMessage, [{ message: skipChangeRequestMessage }], { permissions: ['SKIP_CHANGE_REQUEST'] })

export const checkChangeRequestRequirement = (
  state: ProjectState,
  command: { type: string; meta: CommandMeta; environment?: string; environments?: string[] },
): DomainError | undefined => {
  const enabledIn = (env: string) => state.environments.get(env)?.changeRequestsEnabled === true
  const mayBypass = (env: string) => command.meta.mayBypassChangeRequests?.(env) === true
  let environments: string[] = []
  if (environmentCommands.has(command.type) && command.environment) environments = [command.environment]
  else if (command.type === 'variants.set') environments = command.environments ?? []
  else if (projectWideCommands.has(command.type)) environments = [...state.environments.keys()]
  const blocked = environments.find((env) => enabledIn(env) && !mayBypass(env))
  return blocked === undefined ? undefined : changeRequestRequired()
}

export type ChangeRequestConfigCommand = { type: 'changeRequestConfig.set'; environment: string; changeRequestsEnabled: boolean; requiredApprovals: number }

export const decideChangeRequestConfig = (
  state: ProjectState,
  { environment, changeRequestsEnabled, requiredApprovals, meta }: ChangeRequestConfigCommand & { meta: CommandMeta },
): Result<EventDraft[]> => {
  const current = state.environments.get(environment)
  if (!current) return fail(notFound(`Environment ${environment} is not enabled for project ${state.settings.id}`))
  if (current.changeRequestsEnabled === changeRequestsEnabled && current.requiredApprovals === requiredApprovals) return ok([])
  return ok([
    draft(meta, 'change-request-configuration-updated', {
      project: state.settings.id,
      environment,
      data: { changeRequestsEnabled, requiredApprovals },
      preData: { changeRequestsEnabled: current.changeRequestsEnabled, requiredApprovals: current.requiredApprovals },
    }),
  ])
}
