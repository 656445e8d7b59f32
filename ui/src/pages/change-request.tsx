import { useState } from 'preact/hooks'
import { del, enc, post, put, useResource } from '../api.js'
import { ErrorBanner, Field, Loading, Section, TextArea, useAction, useSession, when } from '../components.js'
import { href } from '../lib/route.js'
import { EventDiff } from './flag.js'
import { useSegmentName } from './strategy-editor.js'
import { projectPath } from './project.js'

interface Person {
  id: number | null
  username: string | null
}

interface Change {
  id: number
  action: string
  payload: unknown
  createdBy: Person
}

interface ChangeRequest {
  id: number
  title: string
  environment: string
  project: string
  state: string
  minApprovals: number
  createdAt: string
  createdBy: Person
  features: { name: string; changes: Change[] }[]
  segments: { name: string; changes: Change[] }[]
  approvals: { createdBy: Person; createdAt: string }[]
  rejections: { createdBy: Person; createdAt: string }[]
  comments: { text: string; createdBy: Person; createdAt: string }[]
  schedule?: { scheduledAt: string; status: string }
}

interface FlagEnvState {
  environments: { name: string; enabled: boolean; strategies: { id?: string }[]; variants: unknown[] }[]
}

// What the change would replace: read from the flag as it is now.
const currentOf = (flag: FlagEnvState | undefined, environment: string, change: Change): unknown => {
  const env = flag?.environments.find((e) => e.name === environment)
  if (!env) return null
  const payload = (change.payload ?? {}) as { id?: string }
  switch (change.action) {
    case 'updateEnabled':
      return { enabled: env.enabled }
    case 'updateStrategy':
    case 'deleteStrategy':
      return env.strategies.find((s) => s.id === payload.id) ?? null
    case 'patchVariant':
      return { variants: env.variants }
    case 'reorderStrategy':
      return env.strategies.map((s, sortOrder) => ({ id: s.id, sortOrder }))
    default:
      return null
  }
}

const FeatureChanges = ({ project, environment, name, changes, editable, open, onDiscard, segmentName }: {
  open: boolean
  segmentName: (id: number) => string
  project: string
  environment: string
  name: string
  changes: Change[]
  editable: boolean
  onDiscard: (id: number) => void
}) => {
  const flag = useResource<FlagEnvState>(`${projectPath(project)}/features/${enc(name)}`)
  return (
    <Section title={`Flag ${name}`}>
      <p><a href={href({ page: 'flag', project, flag: name })}>Open flag</a></p>
      {changes.map((c) => (
        <article class="change" aria-label={`Change ${c.action}`}>
          <h3>{c.action} <span class="muted">by {c.createdBy.username}</span>
            {editable && <button type="button" class="ghost danger" onClick={() => onDiscard(c.id)}>Discard</button>}
          </h3>
          {/* Once closed, the flag no longer shows what the change replaced: only the change is shown. */}
          <EventDiff before={open ? currentOf(flag.data, environment, c) : null} after={c.action === 'deleteStrategy' ? null : c.payload} segmentName={segmentName} />
        </article>
      ))}
    </Section>
  )
}

export const ChangeRequestPage = ({ project, id }: { project: string; id: number }) => {
  const { can, userId } = useSession()
  const path = `${projectPath(project)}/change-requests/${id}`
  const { data: cr, error } = useResource<ChangeRequest>(path)
  const action = useAction()
  const [comment, setComment] = useState('')
  const [title, setTitle] = useState<string | undefined>()
  const [scheduleAt, setScheduleAt] = useState('')
  const segmentName = useSegmentName()
  if (!cr) return error ? <ErrorBanner error={error} /> : <Loading />
  const setState = (state: string, extra: Record<string, unknown> = {}) => void action.run(() => put(`${path}/state`, { state, ...extra }))
  const mine = userId !== null && cr.createdBy.id === userId
  const canApprove = can('APPROVE_CHANGE_REQUEST', project) && !mine
  const canApply = can('APPLY_CHANGE_REQUEST', project)
  const open = ['Draft', 'In review', 'Approved', 'Scheduled'].includes(cr.state)
  return (
    <>
      <p class="crumbs">
        <a href="#/projects">Projects</a> / <a href={href({ page: 'project', project, tab: 'change-requests' })}>{project}</a> / change request #{cr.id}
      </p>
      <header class="flag-head">
        {title === undefined ? (
          <h1>{cr.title} {mine && cr.state === 'Draft' && <button type="button" class="ghost" onClick={() => setTitle(cr.title)}>Rename</button>}</h1>
        ) : (
          <form class="inline" onSubmit={(e) => { e.preventDefault(); void action.run(() => put(`${path}/title`, { title })).then((ok) => ok && setTitle(undefined)) }}>
            <Field label="Title" value={title} onValue={setTitle} required />
            <button type="submit">Save title</button>
          </form>
        )}
        <span class={`state state-${cr.state.replace(' ', '-').toLowerCase()}`} data-state={cr.state}>{cr.state}</span>
        <span class="badge">{cr.environment}</span>
      </header>
      <p class="muted">
        by {cr.createdBy.username} · {when(cr.createdAt)} · {cr.approvals.length} of {cr.minApprovals} approvals
        {cr.schedule && ` · scheduled for ${when(cr.schedule.scheduledAt)} (${cr.schedule.status})`}
      </p>
      <ErrorBanner error={action.error} />
      {cr.state === 'In review' && mine && (
        <p class="notice" role="note">
          {can('APPROVE_CHANGE_REQUEST', project)
            ? 'You cannot approve your own change request: another person who may approve in this project has to review it.'
            : 'Someone who may approve change requests in this project has to review it.'}
        </p>
      )}
      {cr.state === 'In review' && !mine && !can('APPROVE_CHANGE_REQUEST', project) && <p class="notice" role="note">You may not approve change requests in this project; someone who may has to review it.</p>}
      <div class="actions cr-actions">
        {cr.state === 'Draft' && mine && <button type="button" onClick={() => setState('In review')}>Submit for review</button>}
        {cr.state === 'In review' && canApprove && <button type="button" onClick={() => setState('Approved')}>Approve</button>}
        {cr.state === 'In review' && canApprove && <button type="button" class="danger" onClick={() => setState('Rejected')}>Reject</button>}
        {cr.state === 'Approved' && canApply && <button type="button" onClick={() => setState('Applied')}>Apply changes</button>}
        {cr.state === 'Approved' && canApply && (
          <form class="inline" onSubmit={(e) => { e.preventDefault(); setState('Scheduled', { scheduledAt: new Date(scheduleAt).toISOString() }) }}>
            <Field label="Apply at" type="datetime-local" value={scheduleAt} onValue={setScheduleAt} required />
            <button type="submit">Schedule</button>
          </form>
        )}
        {open && (mine || canApply) && <button type="button" class="ghost danger" onClick={() => setState('Cancelled')}>Cancel request</button>}
        {cr.state === 'Draft' && mine && <button type="button" class="ghost danger" onClick={() => void action.run(() => del(path)).then((ok) => ok && (location.hash = href({ page: 'project', project, tab: 'change-requests' })))}>Delete draft</button>}
      </div>
      {cr.features.map((f) => (
        <FeatureChanges
          project={project}
          environment={cr.environment}
          name={f.name}
          changes={f.changes}
          editable={mine && (cr.state === 'Draft' || cr.state === 'In review')}
          open={open}
          segmentName={segmentName}
          onDiscard={(changeId) => void action.run(() => del(`${path}/changes/${changeId}`))}
        />
      ))}
      {cr.segments.map((s) => (
        <Section title={`Segment ${s.name}`}>
          {s.changes.map((c) => <article class="change"><h3>{c.action}</h3><EventDiff before={null} after={c.payload} segmentName={segmentName} /></article>)}
        </Section>
      ))}
      <Section title="Comments">
        <ol class="comments">
          {cr.comments.map((c) => (
            <li><strong>{c.createdBy.username}</strong> <span class="muted">{when(c.createdAt)}</span><p>{c.text}</p></li>
          ))}
          {cr.approvals.map((a) => <li><strong>{a.createdBy.username}</strong> approved <span class="muted">{when(a.createdAt)}</span></li>)}
          {cr.rejections.map((r) => <li><strong>{r.createdBy.username}</strong> rejected <span class="muted">{when(r.createdAt)}</span></li>)}
        </ol>
        <form onSubmit={(e) => { e.preventDefault(); void action.run(() => post(`${path}/comments`, { text: comment })).then((ok) => ok && setComment('')) }}>
          <TextArea label="Comment" value={comment} onValue={setComment} />
          <button type="submit" disabled={!comment.trim()}>Add comment</button>
        </form>
      </Section>
    </>
  )
}
