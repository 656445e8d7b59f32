// Unleash filters flags with SQL `name LIKE '<prefix>%'`: `%` is any run of characters, `_` any one
// character, a backslash makes the next character literal. Matched here without backtracking: each
// run between `%`s is found at its leftmost place after the previous one, which is where a LIKE
// with a trailing `%` may take it, so a match costs at most name length x prefix length steps.
type Piece = string | null // a literal character, or null for `_`

const parse = (prefix: string): Piece[][] => {
  const runs: Piece[][] = [[]]
  for (let i = 0; i < prefix.length; i++) {
    const c = prefix[i]
    if (c === '\\' && i + 1 < prefix.length) runs[runs.length - 1].push(prefix[++i])
    else if (c === '%') runs.push([])
    else runs[runs.length - 1].push(c === '_' ? null : c)
  }
  return runs
}

const runAt = (name: string, at: number, run: Piece[]): boolean => {
  if (at + run.length > name.length) return false
  for (let i = 0; i < run.length; i++) if (run[i] !== null && run[i] !== name[at + i]) return false
  return true
}

export const likePrefixMatcher = (prefix: string): ((name: string) => boolean) => {
  const [first, ...rest] = parse(prefix)
  return (name) => {
    if (!runAt(name, 0, first)) return false
    let at = first.length
    for (const run of rest) {
      let found = -1
      for (let start = at; start + run.length <= name.length; start++) {
        if (runAt(name, start, run)) {
          found = start
          break
        }
      }
      if (found < 0) return false
      at = found + run.length
    }
    return true
  }
}
