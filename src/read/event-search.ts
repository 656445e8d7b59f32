import { isChangeRequestRecord } from '../domain/change-requests.js'
import { isInternalRecord, type EventRecord } from '../domain/events.js'
import type { Strategy } from '../domain/project-state.js'
import { containsMatcher, type EventSearch } from '../domain/search.js'
import { nextTurn, Slices } from '../next-turn.js'

// GET /api/admin/search/events: Unleash 8.2's event search over the log, and the label and markdown
// summary it adds to each event (its FeatureEventFormatterMd, with the same words).

// The log, newest first, and its per-project and per-flag indexes.
export interface EventSource {
  newestFirst(): Iterable<EventRecord>
  idsFor(key: string): number[]
  get(id: number): EventRecord | undefined
}

export interface EventSearchOptions {
  // Unleash shows callers who are not root admins only the events of a project.
  projectEventsOnly: boolean
}

// ILIKE '%query%' over the JSON text of data, preData and tags (not the type, flag or author).
const queryMatcher = (query: string): ((record: EventRecord) => boolean) => {
  const contains = containsMatcher(query)
  const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value).toLowerCase())
  return (record) => {
    const data = json(record.data)
    if (data !== null && contains(data)) return true
    const preData = json(record.preData)
    if (preData !== null && contains(preData)) return true
    return contains(json(record.tags ?? [])!)
  }
}

export const eventMatcher = (search: EventSearch, options: EventSearchOptions): ((record: EventRecord) => boolean) => {
  const listed = <T>(values: T[] | undefined, value: T | null | undefined) => values === undefined || (value !== null && value !== undefined && values.includes(value))
  const query = search.query === undefined ? undefined : queryMatcher(search.query)
  return (record) => {
    if (isInternalRecord(record.type)) return false
    if (options.projectEventsOnly && !record.project) return false
    if (!listed(search.ids, record.id)) return false
    // Events carry no transaction group here: a group filter finds none.
    if (search.groupIds !== undefined) return false
    if (!listed(search.features, record.featureName)) return false
    if (!listed(search.projects, record.project)) return false
    if (!listed(search.types, record.type)) return false
    if (!listed(search.createdByUserIds, record.createdByUserId)) return false
    if (!listed(search.environments, record.environment)) return false
    if (search.from !== undefined || search.to !== undefined) {
      const at = Date.parse(record.createdAt)
      if (search.from !== undefined && !(at >= search.from)) return false
      if (search.to !== undefined && !(at < search.to)) return false
    }
    return !query || query(record)
  }
}

// The records a search has to look at, newest first: those named by id, else those of the named flags,
// else of the named projects (both indexed), else the whole log.
function* candidates(source: EventSource, search: EventSearch): Iterable<EventRecord> {
  let ids: number[] | undefined
  if (search.ids) ids = search.ids.filter((id) => Number.isSafeInteger(id) && id > 0)
  else if (search.features) ids = search.features.flatMap((feature) => source.idsFor(`feature:${feature}`))
  else if (search.projects) ids = search.projects.flatMap((project) => source.idsFor(`project:${project}`))
  if (!ids) {
    yield* source.newestFirst()
    return
  }
  for (const id of [...new Set(ids)].sort((a, b) => b - a)) {
    const record = source.get(id)
    if (record) yield record
  }
}

// Records read between two looks at the clock.
const recordsPerClockRead = 32

// Newest first by id (commit order); Unleash orders by createdAt and then id, which is the same order
// unless two writes were stamped out of their commit order. The total counts every match, so a search
// without an indexed filter reads the whole log: in slices of about `sliceMs` with `pause()` between
// them (a turn of the event loop), since at 200,000 records that is more than a second of reading.
// The log's range is read in one read transaction: what it finds is the log as the search began.
export const searchEvents = async (
  source: EventSource,
  search: EventSearch,
  options: EventSearchOptions,
  pause: () => Promise<void> = nextTurn,
  sliceMs = 4,
): Promise<{ events: EventRecord[]; total: number }> => {
  const matches = eventMatcher(search, options)
  const events: EventRecord[] = []
  let total = 0
  let read = 0
  const slices = new Slices(pause, sliceMs)
  for (const record of candidates(source, search)) {
    if (matches(record)) {
      if (total >= search.offset && events.length < search.limit) events.push(record)
      total++
    }
    if (++read % recordsPerClockRead === 0 && slices.due) await slices.next()
  }
  return { events, total }
}

// Label and summary

const bold = (text: string) => `**${text}**`
const str = (value: unknown) => (value === undefined || value === null ? '' : String(value))

interface Formatting {
  event: EventRecord
  user: string
  feature: string
  project: string
  changeRequest: string
  strategyTitle: string
  strategyChangeText: string
}

const featureLinkOf = (event: EventRecord, url: string): string | undefined => {
  if (event.type === 'feature-archived') return event.project ? `${url}/projects/${event.project}/archive` : `${url}/archive`
  return event.featureName ? `${url}/projects/${event.project ?? ''}/features/${event.featureName}` : undefined
}

const featureOf = (event: EventRecord, url: string) => (event.featureName ? `[${event.featureName}](${featureLinkOf(event, url)})` : '')
const projectOf = (event: EventRecord, url: string) => (event.project ? `[${event.project}](${url}/projects/${event.project})` : '')

const changeRequestOf = (event: EventRecord, url: string): string => {
  const id = isChangeRequestRecord(event) ? event.data.changeRequestId : undefined
  if (!event.project || !id) return ''
  const feature = featureOf(event, url)
  return [
    bold(`[#${id}](${url}/projects/${event.project}/change-requests/${id})`),
    feature ? ` for feature flag ${bold(feature)}` : '',
    event.environment ? ` in the ${bold(event.environment)} environment` : '',
    ` in project ${bold(projectOf(event, url))}`,
  ].join('')
}

// The strategy a strategy event is about, as it was and as it is (either absent).
const strategyChangeOf = (event: EventRecord): { before?: Strategy; after?: Strategy } | undefined => {
  switch (event.type) {
    case 'feature-strategy-add':
      return { after: event.data }
    case 'feature-strategy-update':
      return { before: event.preData, after: event.data }
    case 'feature-strategy-remove':
      return { before: event.preData }
    default:
      return undefined
  }
}

const strategyTitleOf = (event: EventRecord): string => {
  const strategy = strategyChangeOf(event)
  return strategy ? str(strategy.before?.title || strategy.after?.title || strategy.before?.name || strategy.after?.name) : ''
}

const operatorWords: Record<string, string> = {
  IN: 'is one of',
  NOT_IN: 'is not one of',
  STR_CONTAINS: 'is a string that contains',
  STR_STARTS_WITH: 'is a string that starts with',
  STR_ENDS_WITH: 'is a string that ends with',
  NUM_EQ: 'is a number equal to',
  NUM_GT: 'is a number greater than',
  NUM_GTE: 'is a number greater than or equal to',
  NUM_LT: 'is a number less than',
  NUM_LTE: 'is a number less than or equal to',
  DATE_BEFORE: 'is a date before',
  DATE_AFTER: 'is a date after',
  SEMVER_EQ: 'is a SemVer equal to',
  SEMVER_GT: 'is a SemVer greater than',
  SEMVER_LT: 'is a SemVer less than',
  SEMVER_GTE: 'is a SemVer greater than or equal to',
  SEMVER_LTE: 'is a SemVer less than or equal to',
  REGEX: 'matches regex',
}

interface ConstraintLike {
  contextName: string
  operator: string
  inverted?: boolean
  value?: string
  values?: string[]
}

const constraintsText = (constraints: ConstraintLike[]) =>
  constraints.length === 0
    ? 'empty set of constraints'
    : `[${constraints
        .map((c) => {
          const value = Object.hasOwn(c, 'value') && c.value !== undefined ? c.value : `(${(c.values ?? []).join(',')})`
          return `${c.contextName} ${c.inverted ? 'not ' : ''}${operatorWords[c.operator] ?? c.operator} ${value}`
        })
        .join(', ')}]`

const constraintChange = (before: ConstraintLike[] | null | undefined, after: ConstraintLike[] | null | undefined) => {
  const [from, to] = [constraintsText(before ?? []), constraintsText(after ?? [])]
  return from === to ? '' : ` constraints from ${from} to ${to}`
}

const segmentsText = (segments: unknown[]) => (segments.length === 0 ? 'empty set of segments' : `(${segments.join(',')})`)
const segmentChange = (before: unknown[] | null | undefined, after: unknown[] | null | undefined) => {
  const [from, to] = [segmentsText(before ?? []), segmentsText(after ?? [])]
  return from === to ? '' : ` segments from ${from} to ${to}`
}

// Values are written as a template literal writes them (a removed one reads "undefined", as in Unleash).
const change = (what: string, before: unknown, after: unknown, suffix = '') => {
  if (before === after) return ''
  return before ? ` ${what} from ${String(before)}${suffix} to ${String(after)}${suffix}` : ` ${what} to ${String(after)}${suffix}`
}

const listChange = (name: string, before: unknown, after: unknown, hasBefore: boolean) => {
  if (before === after) return ''
  const list = (values: unknown) => (str(values).length === 0 ? `empty set of ${name}` : `[${str(values)}]`)
  return hasBefore ? ` ${name} from ${list(before)} to ${list(after)}` : ` ${name} to ${list(after)}`
}

// What a strategy update changed, for the strategy types Unleash describes in detail.
const strategyChangeTextOf = (event: EventRecord): string => {
  if (event.type !== 'feature-strategy-update') return ''
  const { data, preData } = event
  if (!data && !preData) return ''
  const head = `by updating strategy ${bold(strategyTitleOf(event))} in ${bold(str(event.environment))}`
  const before = preData?.parameters ?? {}
  const after = data?.parameters ?? {}
  const common = [constraintChange(preData?.constraints, data?.constraints), segmentChange(preData?.segments, data?.segments)]
  let parts: string[]
  switch ((data || preData).name) {
    case 'flexibleRollout':
      parts = [change('stickiness', before.stickiness, after.stickiness), change('rollout', before.rollout, after.rollout, '%'), change('groupId', before.groupId, after.groupId), ...common]
      break
    case 'default':
      parts = common
      break
    case 'remoteAddress':
      parts = [listChange('IPs', before.IPs, after.IPs, Boolean(preData)), ...common]
      break
    case 'applicationHostname':
      parts = [listChange('hostNames', before.hostNames, after.hostNames, Boolean(preData)), ...common]
      break
    default:
      return head
  }
  return head + parts.filter((part) => part.length > 0).join(';')
}

type Template = [label: string, text: (f: Formatting) => string]

const byUser = (f: Formatting) => bold(f.user)
const inProject = (f: Formatting) => `in project ${bold(f.project)}`
const forEnvironment = (f: Formatting) => `for the ${bold(str(f.event.environment))} environment`
// Unleash's templates read a field of whatever an event carries, by name; one it lacks reads as ''.
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null
const fieldOf = (value: unknown, key: string): unknown => (isObject(value) ? value[key] : undefined)
const data = (f: Formatting, key: string) => str(fieldOf(f.event.data, key))
const preData = (f: Formatting, key: string) => str(fieldOf(f.event.preData, key))

const changeRequestTemplate = (label: string, verb: string): Template => [label, (f) => `${byUser(f)} ${verb} ${f.changeRequest}`]

const templates: Record<string, Template> = {
  'addon-config-created': ['Integration configuration created', (f) => `${byUser(f)} created a new ${bold(data(f, 'provider'))} integration configuration`],
  'addon-config-deleted': ['Integration configuration deleted', (f) => `${byUser(f)} deleted a ${bold(preData(f, 'provider'))} integration configuration`],
  'addon-config-updated': ['Integration configuration updated', (f) => `${byUser(f)} updated a ${bold(preData(f, 'provider'))} integration configuration`],
  'api-token-created': ['API token created', (f) => `${byUser(f)} created API token ${bold(data(f, 'username'))}`],
  'api-token-deleted': ['API token deleted', (f) => `${byUser(f)} deleted API token ${bold(preData(f, 'username'))}`],
  'change-added': changeRequestTemplate('Change added', 'added a change to change request'),
  'change-discarded': changeRequestTemplate('Change discarded', 'discarded a change in change request'),
  'change-edited': changeRequestTemplate('Change edited', 'edited a change in change request'),
  'change-request-applied': changeRequestTemplate('Change request applied', 'applied change request'),
  'change-request-approval-added': changeRequestTemplate('Change request approval added', 'added an approval to change request'),
  'change-request-approved': changeRequestTemplate('Change request approved', 'approved change request'),
  'change-request-cancelled': changeRequestTemplate('Change request cancelled', 'cancelled change request'),
  'change-request-created': changeRequestTemplate('Change request created', 'created change request'),
  'change-request-discarded': changeRequestTemplate('Change request discarded', 'discarded change request'),
  'change-request-rejected': changeRequestTemplate('Change request rejected', 'rejected change request'),
  'change-request-sent-to-review': changeRequestTemplate('Change request sent to review', 'sent to review change request'),
  'change-request-scheduled': ['Change request scheduled', (f) => `${byUser(f)} scheduled change request ${f.changeRequest} to be applied at ${data(f, 'scheduledDate')}.`],
  'change-request-scheduled-application-success': [
    'Scheduled change request applied successfully',
    (f) => `${bold('Successfully')} applied the scheduled change request ${f.changeRequest} by ${byUser(f)}.`,
  ],
  'change-request-scheduled-application-failure': ['Scheduled change request failed', (f) => `${bold('Failed')} to apply the scheduled change request ${f.changeRequest} by ${byUser(f)}.`],
  'change-request-schedule-suspended': ['Change request suspended', (f) => `Change request ${f.changeRequest} was suspended for the following reason: ${data(f, 'reason')}`],
  'context-field-created': ['Context field created', (f) => `${byUser(f)} created context field ${bold(data(f, 'name'))}`],
  'context-field-deleted': ['Context field deleted', (f) => `${byUser(f)} deleted context field ${bold(preData(f, 'name'))}`],
  'context-field-updated': ['Context field updated', (f) => `${byUser(f)} updated context field ${bold(preData(f, 'name'))}`],
  'feature-archived': ['Flag archived', (f) => `${byUser(f)} archived ${bold(str(f.event.featureName))} ${inProject(f)}`],
  'feature-created': ['Flag created', (f) => `${byUser(f)} created ${bold(f.feature)} ${inProject(f)}`],
  'feature-deleted': ['Flag deleted', (f) => `${byUser(f)} deleted ${bold(str(f.event.featureName))} ${inProject(f)}`],
  'feature-environment-disabled': ['Flag disabled', (f) => `${byUser(f)} disabled ${bold(f.feature)} ${forEnvironment(f)} ${inProject(f)}`],
  'feature-environment-enabled': ['Flag enabled', (f) => `${byUser(f)} enabled ${bold(f.feature)} ${forEnvironment(f)} ${inProject(f)}`],
  'feature-environment-variants-updated': ['Flag variants updated', (f) => `${byUser(f)} updated variants for ${bold(f.feature)} ${forEnvironment(f)} ${inProject(f)}`],
  'feature-metadata-updated': ['Flag metadata updated', (f) => `${byUser(f)} updated ${bold(f.feature)} metadata ${inProject(f)}`],
  'feature-completed': ['Flag marked as completed', (f) => `${bold(f.feature)} was marked as completed ${inProject(f)}`],
  'feature-potentially-stale-on': ['Flag potentially stale', (f) => `${bold(f.feature)} was marked as potentially stale ${inProject(f)}`],
  'feature-project-change': ['Flag moved to a new project', (f) => `${byUser(f)} moved ${bold(f.feature)} from ${bold(data(f, 'oldProject'))} to ${bold(f.project)}`],
  'feature-revived': ['Flag revived', (f) => `${byUser(f)} revived ${bold(f.feature)} ${inProject(f)}`],
  'feature-stale-off': ['Flag stale marking removed', (f) => `${byUser(f)} removed the stale marking on ${bold(f.feature)} ${inProject(f)}`],
  'feature-stale-on': ['Flag marked as stale', (f) => `${byUser(f)} marked ${bold(f.feature)} as stale ${inProject(f)}`],
  'feature-strategy-add': ['Flag strategy added', (f) => `${byUser(f)} added strategy ${bold(f.strategyTitle)} to ${bold(f.feature)} ${forEnvironment(f)} ${inProject(f)}`],
  'feature-strategy-remove': ['Flag strategy removed', (f) => `${byUser(f)} removed strategy ${bold(f.strategyTitle)} from ${bold(f.feature)} ${forEnvironment(f)} ${inProject(f)}`],
  'feature-strategy-update': ['Flag strategy updated', (f) => `${byUser(f)} updated ${bold(f.feature)} ${inProject(f)} ${f.strategyChangeText}`],
  'feature-tagged': ['Flag tagged', (f) => `${byUser(f)} tagged ${bold(f.feature)} with ${bold(`${data(f, 'type')}:${data(f, 'value')}`)} ${inProject(f)}`],
  'feature-untagged': ['Flag untagged', (f) => `${byUser(f)} untagged ${bold(f.feature)} with ${bold(`${preData(f, 'type')}:${preData(f, 'value')}`)} ${inProject(f)}`],
  'group-created': ['Group created', (f) => `${byUser(f)} created group ${bold(data(f, 'name'))}`],
  'group-deleted': ['Group deleted', (f) => `${byUser(f)} deleted group ${bold(preData(f, 'name'))}`],
  'group-updated': ['Group updated', (f) => `${byUser(f)} updated group ${bold(preData(f, 'name'))}`],
  'banner-created': ['Banner created', (f) => `${byUser(f)} created banner ${bold(data(f, 'message'))}`],
  'banner-deleted': ['Banner deleted', (f) => `${byUser(f)} deleted banner ${bold(preData(f, 'message'))}`],
  'banner-updated': ['Banner updated', (f) => `${byUser(f)} updated banner ${bold(preData(f, 'message'))}`],
  'project-created': ['Project created', (f) => `${byUser(f)} created project ${bold(f.project)}`],
  'project-deleted': ['Project deleted', (f) => `${byUser(f)} deleted project ${bold(str(f.event.project))}`],
  'segment-created': ['Segment created', (f) => `${byUser(f)} created segment ${bold(data(f, 'name'))}`],
  'segment-deleted': ['Segment deleted', (f) => `${byUser(f)} deleted segment ${bold(preData(f, 'name'))}`],
  'segment-updated': ['Segment updated', (f) => `${byUser(f)} updated segment ${bold(preData(f, 'name'))}`],
  'service-account-created': ['Service account created', (f) => `${byUser(f)} created service account ${bold(data(f, 'name'))}`],
  'service-account-deleted': ['Service account deleted', (f) => `${byUser(f)} deleted service account ${bold(preData(f, 'name'))}`],
  'service-account-updated': ['Service account updated', (f) => `${byUser(f)} updated service account ${bold(preData(f, 'name'))}`],
  'user-created': ['User created', (f) => `${byUser(f)} created user ${bold(data(f, 'name'))}`],
  'user-deleted': ['User deleted', (f) => `${byUser(f)} deleted user ${bold(preData(f, 'name'))}`],
  'user-updated': ['User updated', (f) => `${byUser(f)} updated user ${bold(preData(f, 'name'))}`],
}

// `url`: where the server is reached (UNLEASH_URL), for the links.
export const eventSummary = (event: EventRecord, url: string): { label: string; summary: string } => {
  const template = templates[event.type]
  if (!template) return { label: event.type, summary: `${bold(event.createdBy)} triggered ${bold(event.type)}` }
  const formatting: Formatting = {
    event,
    user: event.createdBy,
    feature: featureOf(event, url),
    project: projectOf(event, url),
    changeRequest: changeRequestOf(event, url),
    strategyTitle: strategyTitleOf(event),
    strategyChangeText: strategyChangeTextOf(event),
  }
  return { label: template[0], summary: template[1](formatting) }
}
