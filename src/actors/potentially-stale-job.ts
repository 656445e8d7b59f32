import type { CommandMeta } from '../domain/events.js'
import { lifetimesOf } from '../domain/feature-types.js'
import { potentiallyStaleCandidates } from '../domain/staleness.js'
import type { Dispatcher } from './dispatch.js'
import type { Registry } from './registry.js'

export interface PotentiallyStaleJob {
  // One pass now (the timer calls it too); resolves when its commands are durable.
  run(): Promise<void>
  stop(): Promise<void>
}

// Unleash's scheduled job: flags past their type's lifetime get feature-potentially-stale-on, from
// the system user. Only projects with such flags are sent a command.
export const startPotentiallyStaleJob = (deps: { registry: Registry; dispatcher: Dispatcher; clock: () => Date; intervalMs: number }): PotentiallyStaleJob => {
  let running: Promise<void> | undefined
  const pass = async () => {
    const now = deps.clock()
    const meta: CommandMeta = { now: now.toISOString(), actor: { name: 'unleash_system_user', userId: -1337 } }
    const lifetimes = lifetimesOf(deps.registry.decidedInstance().featureTypes)
    for (const [id, state] of [...deps.registry.decidedProjects()]) {
      if (potentiallyStaleCandidates(state, lifetimes, now.getTime()).length === 0) continue
      // A project deleted in between is simply skipped; a failed commit has already ended the process.
      await deps.dispatcher.toProject(id, { type: 'feature.markPotentiallyStale', lifetimes, meta }).catch(() => undefined)
    }
  }
  const run = () =>
    (running ??= pass().finally(() => {
      running = undefined
    }))
  const timer = setInterval(() => void run(), deps.intervalMs)
  timer.unref()
  return {
    run,
    stop: async () => {
      clearInterval(timer)
      await running
    },
  }
}
