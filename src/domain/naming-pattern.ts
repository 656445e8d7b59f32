import { RE2JS } from 're2js'

// A project's flag-naming pattern is an admin's text matched against every new flag name: compiled
// with RE2, whose matching time is linear in the name, so no pattern can stall the server.
// Undefined when RE2 does not accept it (lookaround and backreferences among what it refuses).
export type NameTest = (name: string) => boolean

const compiled = new Map<string, NameTest | undefined>()
const maxRemembered = 1000

export const namingPatternTest = (pattern: string): NameTest | undefined => {
  if (compiled.has(pattern)) return compiled.get(pattern)
  let test: NameTest | undefined
  try {
    const regex = RE2JS.compile(pattern)
    test = (name) => regex.testExact(name)
  } catch {
    test = undefined
  }
  if (compiled.size >= maxRemembered) compiled.delete(compiled.keys().next().value!)
  compiled.set(pattern, test)
  return test
}
