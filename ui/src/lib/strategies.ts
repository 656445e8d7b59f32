// Words for strategies as people read them, and what their order means.

// Unleash's display names for the built-in strategies; a custom one is shown by its displayName or name.
const builtInNames: Record<string, string> = {
  default: 'Standard',
  flexibleRollout: 'Gradual rollout',
  userWithId: 'User IDs',
  remoteAddress: 'IPs',
  applicationHostname: 'Hosts',
  gradualRolloutRandom: 'Gradual rollout (random)',
  gradualRolloutSessionId: 'Gradual rollout (session id)',
  gradualRolloutUserId: 'Gradual rollout (user id)',
}

export const strategyLabel = (name: string, displayName?: string | null): string => displayName || builtInNames[name] || name

const parameterNames: Record<string, string> = { rollout: 'Rollout', stickiness: 'Stickiness', groupId: 'Group id', userIds: 'User ids', IPs: 'IPs', hostNames: 'Host names' }

export const parameterLabel = (name: string): string => parameterNames[name] ?? name

interface Ordered {
  name: string
  disabled?: boolean | null
  parameters: Record<string, string>
  constraints: readonly unknown[]
  segments: readonly unknown[]
}

// Strategies are tried in order and the first that matches wins: one that matches everyone (enabled,
// no constraints or segments, Standard or a 100 % gradual rollout) leaves every strategy after it
// unreachable. Its index, when some strategy follows it; undefined otherwise.
export const shadowingIndex = (strategies: readonly Ordered[]): number | undefined => {
  const i = strategies.findIndex(
    (s) =>
      !s.disabled &&
      s.constraints.length === 0 &&
      s.segments.length === 0 &&
      (s.name === 'default' || (s.name === 'flexibleRollout' && Number(s.parameters.rollout ?? '100') >= 100)),
  )
  return i >= 0 && i < strategies.length - 1 ? i : undefined
}

// The shell command for an API call, as Unleash's UI shows it (a token to paste in, JSON body quoted
// for a POSIX shell).
export const curlCommand = (method: string, url: string, body?: unknown): string => {
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`
  const lines = [`curl --location --request ${method} ${quote(url)}`, `--header 'Authorization: INSERT_API_KEY'`]
  if (body !== undefined) lines.push(`--header 'Content-Type: application/json'`, `--data-raw ${quote(JSON.stringify(body, null, 2))}`)
  return lines.join(' \\\n    ')
}
