import { useState } from 'preact/hooks'
import type { ApiChangeRequest, ApiFlag } from '../api-types.js'
import { del, enc, post, put, useResource } from '../api.js'
import { ErrorBanner, Field, Loading, Section, TextArea, useAction, useSession, when } from '../components.js'
import { afterOf, beforeOf } from '../lib/change-diff.js'
import { href } from '../lib/route.js'
import { EventDiff } from './flag.js'
import { useSegmentName } from './strategy-editor.js'
import { projectPath } from './project.js'

type ChangeRequest = ApiChangeRequest
type Change = ApiChangeRequest['features'][number]['changes'][number]
type SegmentChange = ApiChangeRequest['segments'][number]

// What a change would replace, read from the flag as it is now (the shapes the server records in `replaced`).
const currentOf = (flag: ApiFlag | undefined, environment: string, change: Change): unknown => {
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
      return env.variants
    case 'reorderStrategy':
      return env.strategies.map((s) => ({ id: s.id, sortOrder: s.sortOrder }))
    default:
      return null
  }
}

const ChangeDiff = ({ change, target, segmentName }: { change: Change; target: unknown; segmentName: (id: number) => string }) => (
  <EventDiff before={beforeOf(change, target)} after={afterOf(change)} segmentName={segmentName} />
)

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
  const flag = useResource<ApiFlag>(`${projectPath(project)}/features/${enc(name)}`)
  return (
    <Section title={`Flag ${name}`}>
      <p><a href={href({ page: 'flag', project, flag: name })}>Open flag</a></p>
      {changes.map((c) => (
        <article class="change" aria-label={`Change ${c.action}`}>
          <h3>{c.action} <span class="muted">by {c.createdBy.username}</span>
            {editable && <button type="button" class="ghost danger" onClick={() => onDiscard(c.id)}>Discard</button>}
          </h3>
          {/* Once closed, the flag has moved on: what the change replaced is what the server recorded when it was applied. */}
          <ChangeDiff change={c} target={open ? currentOf(flag.data, environment, c) : c.replaced} segmentName={segmentName} />
        </article>
      ))}
    </Section>
  )
}

// A segment change, set against the segment as it is now while the request is open.
const SegmentChanges = ({ change, open, segmentName }: { change: SegmentChange; open: boolean; segmentName: (id: number) => string }) => {
  const id = (change.payload as { id: number }).id
  const current = useResource<unknown>(open ? `/api/admin/segments/${id}` : undefined)
  return (
    <Section title={`Segment ${change.name}`}>
      <article class="change" aria-label={`Change ${change.action}`}>
        <h3>{change.action} <span class="muted">by {change.createdBy.username}</span></h3>
        <ChangeDiff change={change} target={open ? current.data : change.replaced} segmentName={segmentName} />
      </article>
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
      {cr.segments.map((s) => <SegmentChanges change={s} open={open} segmentName={segmentName} />)}
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
