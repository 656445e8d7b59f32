import { etagHash, weakEtag } from '../http/etag.js'
import type { Reply } from '../http/types.js'
import type { Feature, ProjectState } from '../domain/project-state.js'
import { nextTurn, Slices } from '../next-turn.js'

// An answer with one long list (every flag of a project, of every project): made a few ms at a time with
// a turn of the event loop between (at 50,000 flags the views and JSON.stringify of the whole answer, 106
// MB, blocked every other request for about a second), gathered in pieces of about `pieceBytes` and
// sent as they are (Reply.pieces), not joined. The text, and so the ETag, are those of JSON.stringify of
// `{ ...before, [key]: [...items].map(view), ...after }`. The items are walked across turns: they must
// be of a state that does not change (a committed project).
export interface SlicedJsonList<T> {
  before: Record<string, unknown>
  key: string
  items: Iterable<T>
  view: (item: T) => unknown
  after?: Record<string, unknown>
}

export interface Slicing {
  pause: () => Promise<void>
  sliceMs: number
  pieceBytes: number
}

const slicing: Slicing = { pause: nextTurn, sliceMs: 4, pieceBytes: 256 * 1024 }

// The members of an object's JSON, without its braces ('' for none).
const membersOf = (value: Record<string, unknown>): string => JSON.stringify(value).slice(1, -1)

export const slicedJsonList = async <T>(list: SlicedJsonList<T>, how: Slicing = slicing): Promise<Reply> => {
  const pieces: Buffer[] = []
  const hash = etagHash()
  let text = ''
  const add = (more: string, last = false) => {
    text += more
    if (text.length < how.pieceBytes && !last) return
    const piece = Buffer.from(text)
    text = ''
    if (piece.length === 0) return
    hash.update(piece)
    pieces.push(piece)
  }
  const before = membersOf(list.before)
  add(`{${before}${before ? ',' : ''}${JSON.stringify(list.key)}:[`)
  const slices = new Slices(how.pause, how.sliceMs)
  let first = true
  for (const item of list.items) {
    // As in an array: what JSON cannot say is null.
    const json = (JSON.stringify(list.view(item)) as string | undefined) ?? 'null'
    add(first ? json : `,${json}`)
    first = false
    if (slices.due) await slices.next()
  }
  const after = list.after ? membersOf(list.after) : ''
  add(`]${after ? ',' : ''}${after}}`, true)
  const etag = weakEtag(hash)
  return { status: 200, headers: { etag, 'content-type': 'application/json; charset=utf-8' }, pieces }
}

// The flags of a project that are not archived (a committed state: it does not change while walked).
export function* activeFeatures(project: ProjectState): Generator<Feature> {
  for (const feature of project.features.values()) if (!feature.archived) yield feature
}
