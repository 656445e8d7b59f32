import t from 'tap'
import type { CommandPort } from '../../src/api/ports.js'
import { badData } from '../../src/domain/errors.js'
import type { CommandMeta } from '../../src/domain/events.js'
import type { Plan, Step } from '../../src/migrate/plan.js'
import { runPlan } from '../../src/migrate/write.js'

const meta: CommandMeta = { now: '2026-01-01T00:00:00.000Z', actor: { name: 'migration', userId: -1337 } }
const step = (kind: Step['kind'], label: string, command: Record<string, unknown>): Step => ({ kind, label, to: 'project', project: 'web', command: { ...command, meta } as never })

// A port that records what it is sent and refuses the commands `refuse` picks, as an actor would.
const port = (refuse: (command: { type: string }) => boolean) => {
  const sent: string[] = []
  const answer = async (command: { type: string }) => {
    if (refuse(command)) throw badData(`refused ${command.type}`)
    sent.push(command.type)
    return []
  }
  return { sent, port: { toInstance: answer, toProject: (_: string, command: { type: string }) => answer(command) } as unknown as CommandPort }
}

const plan = (flags: Step[][]): Plan => ({ setup: [], flags, after: [], access: [], users: [], notCopied: [] })

t.test('a strategy refused while writing leaves its flag off there, reported; other flags are written whole', async (t) => {
  const { sent, port: commands } = port((c) => c.type === 'strategy.add' && (c as unknown as { id: string }).id === 'bad')
  const flag = (name: string, strategyId: string) => [
    step('flags', name, { type: 'feature.create', input: { name } }),
    step('strategies', `${name} s`, { type: 'strategy.add', id: strategyId }),
    step('enabled environments', `${name} production`, { type: 'featureEnvironment.toggle' }),
  ]
  const result = await runPlan(commands, plan([flag('a', 'bad'), flag('b', 'good')]), () => undefined, meta)
  t.same(sent.filter((type) => type === 'featureEnvironment.toggle').length, 1, 'only the whole flag is switched on')
  t.same(
    result.notCopied.map((n) => [n.label, n.why]),
    [
      ['a s', 'refused strategy.add'],
      ['a production', 'left off: an earlier step of this flag was refused'],
    ],
  )
  t.match(result.counts, { flags: 2, strategies: 1, 'enabled environments': 1 })
})

t.test('a flag whose creation is refused sends nothing more for it', async (t) => {
  const { sent, port: commands } = port((c) => c.type === 'feature.create')
  const result = await runPlan(commands, plan([[step('flags', 'x', { type: 'feature.create' }), step('strategies', 'x s', { type: 'strategy.add' })]]), () => undefined, meta)
  t.same(sent, [])
  t.same(result.notCopied.map((n) => n.label), ['x'])
})
