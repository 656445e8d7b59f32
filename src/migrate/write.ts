// Writes a plan into an empty data directory as ordinary events: the actors a server runs decide the
// same commands its admin routes send, so history, replicas, `?at=` and verify work on the result.
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync } from 'node:fs'
import { CommitPipeline } from '../actors/commit-pipeline.js'
import { Dispatcher, indexKeysOf } from '../actors/dispatch.js'
import { recover } from '../actors/recovery.js'
import { Registry } from '../actors/registry.js'
import { randomSecretPart } from '../api/api-tokens.routes.js'
import { hashPassword } from '../api/passwords.js'
import type { CommandPort } from '../api/ports.js'
import type { CommandMeta } from '../domain/events.js'
import { emptyInstance } from '../domain/instance-state.js'
import { lockDataDir } from '../store/data-dir-lock.js'
import { EventLog } from '../store/log.js'
import { countOf, kinds, planMigration, reasonOf, type Kind, type NotCopied, type Plan, type Step, type TargetStart } from './plan.js'
import { inParallel, type SourceData } from './unleash-source.js'
import { newId } from '../new-id.js'

export interface MigrationReport {
  from: string
  version: string | null
  counts: Record<Kind, number>
  notCopied: NotCopied[]
  // Each copied user's new password, to be handed over once.
  passwords: { user: string; password: string }[]
  records: number
}

// Refuses anything but a new or empty directory, naming what is there.
export const checkEmpty = (dataDir: string): string | undefined => {
  if (!existsSync(dataDir)) return undefined
  const entries = readdirSync(dataDir)
  if (entries.length === 0) return undefined
  const shown = entries.slice(0, 5).join(', ')
  return `${dataDir} is not empty (it holds ${shown}${entries.length > 5 ? `, and ${entries.length - 5} more` : ''}); migrate into a new or empty directory`
}

export const migrationMeta = (now: string): CommandMeta => ({ now, actor: { name: 'migration', userId: -1337 } })

const targetStart = (): TargetStart => {
  const empty = emptyInstance()
  return {
    strategyTypes: new Set(empty.strategyTypes.keys()),
    contextFields: new Set(empty.contextFields.keys()),
    tagTypes: new Set(empty.tagTypes.keys()),
    featureTypeLifetimes: new Map([...empty.featureTypes.values()].map((type) => [type.id, type.lifetimeDays])),
  }
}

const planFor = (source: SourceData, meta: CommandMeta): Plan => planMigration(source, { meta, start: targetStart(), random: randomSecretPart, newId })

// Flags in flight at once: their commands meet in the project's group commit.
const flagLanes = 32

export const runPlan = async (commands: CommandPort, plan: Plan, say: (line: string) => void, meta: CommandMeta): Promise<Omit<MigrationReport, 'from' | 'version' | 'records'>> => {
  const counts = Object.fromEntries(kinds.map((kind) => [kind, 0])) as Record<Kind, number>
  const notCopied = [...plan.notCopied]
  // A refused step is reported and the rest goes on; what it answers tells a flag's lane to leave the
  // flag's environments off.
  const send = async (step: Step): Promise<boolean> => {
    try {
      if (step.to === 'instance') await commands.toInstance(step.command)
      else await commands.toProject(step.project, step.command)
      counts[step.kind] += countOf(step)
      return true
    } catch (error) {
      notCopied.push({ kind: step.kind, label: step.label, why: reasonOf(error) })
      return false
    }
  }
  for (const step of plan.setup) await send(step)
  say(`wrote ${counts.environments} environments, ${counts.projects} projects, ${counts['segments']} segments, ${counts['context fields']} context fields`)
  let done = 0
  await inParallel(plan.flags, flagLanes, async ([create, ...rest]) => {
    let complete = create !== undefined && (await send(create))
    for (const step of complete ? rest : []) {
      // The same rule as the plan's: an environment is not switched on without all its strategies.
      if (!complete && step.command.type === 'featureEnvironment.toggle') notCopied.push({ kind: step.kind, label: step.label, why: 'left off: an earlier step of this flag was refused' })
      else complete = (await send(step)) && complete
    }
    if (++done % 250 === 0 || done === plan.flags.length) say(`wrote ${done} of ${plan.flags.length} flags`)
  })
  for (const step of plan.after) await send(step)
  for (const step of plan.access) await send(step)
  const passwords: MigrationReport['passwords'] = []
  for (const user of plan.users) {
    const password = `${randomBytes(12).toString('base64url')}aA1!`
    const ok = await send({ kind: 'users', label: user.label, to: 'instance', command: { type: 'user.create', input: user.input, passwordHash: await hashPassword(password), meta } })
    if (ok) passwords.push({ user: user.label, password })
  }
  return { counts, notCopied, passwords }
}

export const writeMigration = async (source: SourceData, dataDir: string, say: (line: string) => void = () => undefined): Promise<MigrationReport> => {
  const problem = checkEmpty(dataDir)
  if (problem) throw new Error(problem)
  mkdirSync(dataDir, { recursive: true })
  const lock = await lockDataDir(dataDir)
  const log = EventLog.open(dataDir)
  try {
    const registry = new Registry(recover(log), { log, indexKeysOf })
    const dispatcher = new Dispatcher(registry)
    registry.start(new CommitPipeline({}))
    const meta = migrationMeta(new Date().toISOString())
    await dispatcher.toInstance({ type: 'migration.record', from: source.url, version: source.version, meta })
    const result = await runPlan(dispatcher, planFor(source, meta), say, meta)
    await registry.stop()
    return { from: source.url, version: source.version, ...result, records: log.lastId }
  } finally {
    await log.close()
    await lock.release()
  }
}
