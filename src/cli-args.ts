import { parseArgs, type ParseArgsConfig } from 'node:util'

// The command-line tools' (log-cli, migrate-cli) one way to read their options: an unknown option or a
// missing value is said with the usage and exit code 2; --help prints the usage and exits 0.
export const fail = (message: string, code = 1): never => {
  console.error(message)
  process.exit(code)
}

export const parseCliArgs = <T extends ParseArgsConfig>(config: T, usage: string): ReturnType<typeof parseArgs<T>> => {
  let parsed: ReturnType<typeof parseArgs<T>>
  try {
    parsed = parseArgs(config)
  } catch (error) {
    return fail(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`, 2)
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage)
    process.exit(0)
  }
  return parsed
}
