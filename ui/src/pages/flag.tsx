import { useState } from 'preact/hooks'
import { del, enc, patch, post, put, useResource } from '../api.js'
import { Checkbox, ErrorBanner, Field, Loading, Section, Select, Switch, useAction, useConfirm, useSession, when } from '../components.js'
import type { ApiFlag } from '../api-types.js'
import { diffJson, showValue, withSegmentNames } from '../lib/diff.js'
import { moveItem } from '../lib/flag-filter.js'
import { href } from '../lib/route.js'
import { projectPath, useToggle } from './project.js'
import { curlCheck, sdkSnippet } from '../lib/onboarding.js'
import { parameterLabel, shadowingIndex, strategyLabel } from '../lib/strategies.js'
import { StrategyEditor, VariantsEditor, constraintText, useContextFields, useSegmentName, useStrategyTypes, withWeights, type Strategy, type StrategyRequest, type Variant } from './strategy-editor.js'

type FlagDetail = ApiFlag

interface FlagEvent {
  id: number
  type: string
  createdAt: string
  createdBy: string
  environment: string | null
  data: unknown
  preData: unknown
}

const StrategyCard = ({ s, label, segmentName, onEdit, onDelete, dragProps, onMove, index, count }: {
  s: Strategy
  label: string
  segmentName: (id: number) => string
  onEdit?: () => void
  onDelete?: () => void
  onMove?: (to: number) => void
  dragProps: Record<string, unknown>
  index: number
  count: number
}) => {
  const name = s.title || label
  const conditions = [...s.constraints.map(constraintText), ...s.segments.map((id) => `in segment ${segmentName(id)}`)]
  const { rollout, stickiness, groupId, ...rest } = s.parameters
  return (
    <li class={`strategy${s.disabled ? ' disabled' : ''}`} {...dragProps}>
      {index > 0 && <p class="joiner" aria-label="or">OR</p>}
      <div class="strategy-head">
        {onMove && <span class="grip" aria-hidden="true">⋮⋮</span>}
        <strong>{name}</strong>
        {s.title && <span class="muted">{label}</span>}
        {s.disabled && <span class="badge">disabled</span>}
        <span class="grow" />
        {onMove && (
          <>
            <button type="button" class="ghost" aria-label={`Move ${name} up`} disabled={index === 0} onClick={() => onMove(index - 1)}>↑</button>
            <button type="button" class="ghost" aria-label={`Move ${name} down`} disabled={index === count - 1} onClick={() => onMove(index + 1)}>↓</button>
          </>
        )}
        {onEdit && <button type="button" class="ghost" onClick={onEdit}>Edit</button>}
        {onDelete && <button type="button" class="ghost danger" onClick={onDelete}>Delete</button>}
      </div>
      <ul class="facts">
        {rollout !== undefined && (
          <li><meter min={0} max={100} value={Number(rollout)} aria-label="Rollout" /> {rollout}% rollout{stickiness ? `, sticky by ${stickiness}` : ''}{groupId ? ` (group ${groupId})` : ''}</li>
        )}
        {Object.entries(rest).map(([k, v]) => <li>{parameterLabel(k)}: {v}</li>)}
        {conditions.length === 0 ? (
          <li class="muted">for every context</li>
        ) : (
          conditions.map((c, i) => <li class="constraint-text">{i > 0 && <span class="and">AND </span>}{c}</li>)
        )}
        {s.variants.length > 0 && <li>variants: {s.variants.map((v) => `${v.name} (${v.weight / 10}%)`).join(', ')}</li>}
      </ul>
    </li>
  )
}

const EnvironmentPanel = ({ flag, project, env, crRequired, segmentName, toggle }: {
  toggle: (flag: string, environment: string, enabled: boolean) => Promise<boolean>
  flag: FlagDetail
  project: string
  env: FlagDetail['environments'][number]
  crRequired: boolean
  segmentName: (id: number) => string
}) => {
  const { can } = useSession()
  const fields = useContextFields()
  const types = useStrategyTypes()
  const label = (name: string) => strategyLabel(name, types.data?.strategies.find((t) => t.name === name)?.displayName)
  const shadowing = shadowingIndex(env.strategies)
  const [editing, setEditing] = useState<Strategy | 'new' | undefined>()
  const [variants, setVariants] = useState<Variant[] | undefined>()
  const [dragFrom, setDragFrom] = useState<number | undefined>()
  const action = useAction()
  const base = `${projectPath(project)}/features/${enc(flag.name)}/environments/${enc(env.name)}`
  const viaCr = async (changeAction: string, payload: unknown) => {
    const cr = await post<{ id: number }>(`${projectPath(project)}/environments/${enc(env.name)}/change-requests`, { feature: flag.name, action: changeAction, payload })
    location.hash = href({ page: 'change-request', project, id: cr.id })
  }
  // A PUT keeps a title it is not given or given as null (as Unleash does): one cleared in the editor is sent as ''.
  const body = (s: Strategy) => ({ name: s.name, title: s.id ? (s.title ?? undefined) : s.title || undefined, disabled: !!s.disabled, parameters: s.parameters, constraints: s.constraints, segments: s.segments, variants: s.variants })
  const request = (s: Strategy): StrategyRequest =>
    s.id ? { method: 'PUT', path: `${base}/strategies/${enc(s.id)}`, body: body(s) } : { method: 'POST', path: `${base}/strategies`, body: body(s) }
  const save = (s: Strategy) =>
    s.id
      ? crRequired ? viaCr('updateStrategy', { ...body(s), id: s.id }) : put(`${base}/strategies/${enc(s.id)}`, body(s))
      : crRequired ? viaCr('addStrategy', body(s)) : post(`${base}/strategies`, body(s))
  const confirm = useConfirm()
  const remove = async (s: Strategy) => {
    if (!(await confirm.ask(`Delete strategy ${s.title || s.name}?`, `It is removed from ${env.name}${env.enabled ? ', where the flag is on: users it reached stop getting it' : ''}.`, 'Delete strategy', true))) return
    void action.run(() => (crRequired ? viaCr('deleteStrategy', { id: s.id }) : del(`${base}/strategies/${enc(s.id!)}`)))
  }
  const reorder = (from: number, to: number) => {
    const order = moveItem(env.strategies, from, to).map((s, sortOrder) => ({ id: s.id!, sortOrder }))
    void action.run(() => (crRequired ? viaCr('reorderStrategy', order) : post(`${base}/strategies/set-sort-order`, order)))
  }
  const saveVariants = () =>
    void action.run(async () => {
      const next = withWeights(variants ?? [])
      if (crRequired) await viaCr('patchVariant', { variants: next })
      else await put(`${base}/variants`, next)
      setVariants(undefined)
    })
  const canReorder = can('UPDATE_FEATURE_STRATEGY', project)
  const stickiness = ['default', 'random', ...(fields.data?.filter((f) => f.stickiness).map((f) => f.name) ?? [])]
  return (
    <section class="card env" aria-label={`Environment ${env.name}`}>
      <header class="card-head">
        <Switch label={`${flag.name} in ${env.name}`} checked={env.enabled} disabled={!can('UPDATE_FEATURE_ENVIRONMENT', project)} onToggle={() => void toggle(flag.name, env.name, !env.enabled)} />
        <h2>{env.name}</h2>
        {crRequired && <span class="badge" title="Changes here go through a change request">change requests</span>}
        <span class="muted">last seen {when(env.lastSeenAt)}</span>
        <span class="grow" />
        {can('CREATE_FEATURE_STRATEGY', project) && <button type="button" onClick={() => setEditing('new')}>Add strategy</button>}
      </header>
      <ErrorBanner error={action.error} />
      {env.strategies.length === 0 ? (
        <p class="muted">No strategies yet.</p>
      ) : (
        <ol class="strategies">
          {env.strategies.map((s, i) => (
            <StrategyCard
              s={s}
              label={label(s.name)}
              index={i}
              count={env.strategies.length}
              segmentName={segmentName}
              onEdit={can('UPDATE_FEATURE_STRATEGY', project) ? () => setEditing(s) : undefined}
              onDelete={can('DELETE_FEATURE_STRATEGY', project) ? () => void remove(s) : undefined}
              onMove={canReorder && env.strategies.length > 1 ? (to) => reorder(i, to) : undefined}
              dragProps={
                canReorder
                  ? {
                      draggable: true,
                      onDragStart: () => setDragFrom(i),
                      onDragOver: (e: DragEvent) => e.preventDefault(),
                      onDrop: (e: DragEvent) => {
                        e.preventDefault()
                        if (dragFrom !== undefined && dragFrom !== i) reorder(dragFrom, i)
                        setDragFrom(undefined)
                      },
                    }
                  : {}
              }
            />
          ))}
        </ol>
      )}
      {shadowing !== undefined && (
        <p class="notice" role="status">
          {env.strategies[shadowing].title || label(env.strategies[shadowing].name)} applies to everyone, so the {env.strategies.length - shadowing - 1 === 1 ? 'strategy' : `${env.strategies.length - shadowing - 1} strategies`} below it
          {' '}never {env.strategies.length - shadowing - 1 === 1 ? 'applies' : 'apply'}: strategies are tried top to bottom and the first that matches wins.
        </p>
      )}
      <details>
        <summary>Variants ({env.variants.length})</summary>
        {variants ? (
          <>
            <VariantsEditor label={`Variants in ${env.name}`} variants={variants} onChange={setVariants} stickinessOptions={stickiness} />
            <button type="button" onClick={saveVariants} disabled={action.busy}>Save variants</button>
            <button type="button" class="ghost" onClick={() => setVariants(undefined)}>Cancel</button>
          </>
        ) : (
          <>
            <ul>
              {env.variants.map((v) => (
                <li>{v.name} — {v.weight / 10}%{v.payload ? ` — ${v.payload.type}: ${v.payload.value}` : ''}</li>
              ))}
            </ul>
            {can('UPDATE_FEATURE_ENVIRONMENT_VARIANTS', project) && <button type="button" class="ghost" onClick={() => setVariants(env.variants)}>Edit variants</button>}
          </>
        )}
      </details>
      {editing && (
        <StrategyEditor flag={flag.name} initial={editing === 'new' ? undefined : editing} environment={env.name} live={env.enabled} request={request} onSave={save} onClose={() => setEditing(undefined)} />
      )}
      {confirm.element}
    </section>
  )
}

const Tags = ({ flag, project }: { flag: FlagDetail; project: string }) => {
  const { can } = useSession()
  const tagTypes = useResource<{ tagTypes: { name: string }[] }>('/api/admin/tag-types', false)
  const [type, setType] = useState('simple')
  const [value, setValue] = useState('')
  const action = useAction()
  const path = `/api/admin/features/${enc(flag.name)}/tags`
  const writable = can('UPDATE_FEATURE', project)
  return (
    <Section title="Tags">
      <ul class="chips">
        {flag.tags.map((t) => (
          <li>
            {t.type}:{t.value}
            {writable && <button type="button" class="ghost" aria-label={`Remove tag ${t.type}:${t.value}`} onClick={() => void action.run(() => del(`${path}/${enc(t.type)}/${enc(t.value)}`))}>×</button>}
          </li>
        ))}
      </ul>
      {writable && (
        <form class="inline" onSubmit={(e) => { e.preventDefault(); void action.run(() => post(path, { type, value })).then((ok) => ok && setValue('')) }}>
          <Select label="Tag type" value={type} onValue={setType} options={tagTypes.data?.tagTypes.map((t) => t.name) ?? ['simple']} />
          <Field label="Tag value" value={value} onValue={setValue} required />
          <button type="submit">Add tag</button>
        </form>
      )}
      <ErrorBanner error={action.error} />
    </Section>
  )
}

const Dependencies = ({ flag, project }: { flag: FlagDetail; project: string }) => {
  const { can } = useSession()
  const flags = useResource<{ features: { name: string }[] }>(`${projectPath(project)}/features`, false)
  const [parent, setParent] = useState('')
  const [enabled, setEnabled] = useState(true)
  const action = useAction()
  const path = `${projectPath(project)}/features/${enc(flag.name)}/dependencies`
  const writable = can('UPDATE_FEATURE_DEPENDENCY', project)
  const candidates = flags.data?.features.map((f) => f.name).filter((n) => n !== flag.name) ?? []
  return (
    <Section title="Dependencies">
      {flag.dependencies.length === 0 && <p class="muted">No parent flag.</p>}
      <ul>
        {flag.dependencies.map((d) => (
          <li>
            needs <a href={href({ page: 'flag', project, flag: d.feature })}>{d.feature}</a> {d.enabled ? 'enabled' : 'disabled'}
            {d.variants?.length ? ` with variant ${d.variants.join(' or ')}` : ''}
            {writable && <button type="button" class="ghost" onClick={() => void action.run(() => del(`${path}/${enc(d.feature)}`))}>Remove</button>}
          </li>
        ))}
      </ul>
      {flag.children.length > 0 && <p>Children: {flag.children.join(', ')}</p>}
      {writable && flag.dependencies.length === 0 && (
        <form class="inline" onSubmit={(e) => { e.preventDefault(); void action.run(() => post(path, { feature: parent, enabled })) }}>
          <Select label="Parent flag" value={parent} onValue={setParent} options={[{ value: '', label: 'Choose…' }, ...candidates]} />
          <Checkbox label="Parent must be enabled" checked={enabled} onChecked={setEnabled} />
          <button type="submit" disabled={!parent}>Add dependency</button>
        </form>
      )}
      <ErrorBanner error={action.error} />
    </Section>
  )
}

export const EventDiff = ({ before, after, segmentName }: { before: unknown; after: unknown; segmentName: (id: number) => string }) => {
  const lines = diffJson(withSegmentNames(before, segmentName), withSegmentNames(after, segmentName))
  if (lines.length === 0) return <p class="muted">No data change.</p>
  return (
    <table class="diff">
      <thead><tr><th>Field</th><th>Before</th><th>After</th></tr></thead>
      <tbody>
        {lines.map((l) => (
          <tr class={`diff-${l.kind}`}>
            <td><code>{l.path}</code></td>
            <td>{l.kind !== 'added' && <del>{showValue(l.before)}</del>}</td>
            <td>{l.kind !== 'removed' && <ins>{showValue(l.after)}</ins>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

const History = ({ flag, segmentName }: { flag: string; segmentName: (id: number) => string }) => {
  const { data, error } = useResource<{ events: FlagEvent[] }>(`/api/admin/events/${enc(flag)}`)
  return (
    <Section title="History">
      <ErrorBanner error={error} />
      {!data ? (
        !error && <Loading />
      ) : (
        <ol class="history">
          {data.events.map((e) => (
            <li data-event-type={e.type}>
              <details>
                <summary>
                  <strong>{e.type}</strong> {e.environment && <span class="badge">{e.environment}</span>} by {e.createdBy} · {when(e.createdAt)}
                </summary>
                <EventDiff before={e.preData} after={e.data} segmentName={segmentName} />
              </details>
            </li>
          ))}
        </ol>
      )}
    </Section>
  )
}

// Until an SDK reports using the flag: how to connect one to this server.
const ConnectSdk = ({ flag }: { flag: string }) => {
  const { can } = useSession()
  return (
    <section class="card onboarding" aria-labelledby="connect-sdk">
      <h2 id="connect-sdk">Connect an SDK</h2>
      <p>No application has reported using {flag} yet. Point an Unleash SDK at this server with a client token:</p>
      <ol>
        <li>
          {can(['CREATE_CLIENT_API_TOKEN', 'ADMIN']) ? <a href={href({ page: 'admin', section: 'api-tokens' })}>Create a client token</a> : 'Ask an admin for a client token'} for the environment to use (its secret is shown once).
        </li>
        <li>Use it in your application (Node.js shown; every Unleash SDK takes the same URL and token):</li>
      </ol>
      <pre><code>{sdkSnippet(location.origin, flag)}</code></pre>
      <p>Or check the token from a shell:</p>
      <pre><code>{curlCheck(location.origin)}</code></pre>
    </section>
  )
}

// An archived flag is a 404 at its own path (as in Unleash): the project's archive lists it instead.
// Its page reads only: revive it to change it again.
const ArchivedFlag = ({ project, flag, segmentName }: { project: string; flag: FlagDetail; segmentName: (id: number) => string }) => {
  const { can } = useSession()
  const action = useAction()
  const confirm = useConfirm()
  const remove = async () => {
    if (!(await confirm.ask(`Delete ${flag.name}?`, `${flag.name} is deleted for good: its history stays in the event log, and its name can be used again.`, 'Delete flag', true))) return
    if (await action.run(() => post(`${projectPath(project)}/delete`, { features: [flag.name] }))) location.hash = href({ page: 'project', project, tab: 'archive' })
  }
  return (
    <>
      <ErrorBanner error={action.error} />
      <header class="flag-head">
        <h1>{flag.name}</h1>
        <span class="badge">{flag.type}</span>
        <span class="badge warn">archived</span>
        <span class="grow" />
        {can('UPDATE_FEATURE', project) && <button type="button" onClick={() => void action.run(() => post(`${projectPath(project)}/revive`, { features: [flag.name] }))}>Revive flag</button>}
        {can('DELETE_FEATURE', project) && <button type="button" class="ghost danger" onClick={() => void remove()}>Delete flag</button>}
      </header>
      <p class="notice" role="status">This flag is archived{flag.archivedAt ? ` (${when(flag.archivedAt)})` : ''}: SDKs do not see it and it cannot be changed. Revive it to use it again; it comes back disabled in every environment.</p>
      <p>{flag.description || <span class="muted">No description.</span>}</p>
      {can('ADMIN') && <History flag={flag.name} segmentName={segmentName} />}
      {confirm.element}
    </>
  )
}

export const FlagPage = ({ project, flag }: { project: string; flag: string }) => {
  const { can } = useSession()
  const path = `${projectPath(project)}/features/${enc(flag)}`
  const { data, error: readError } = useResource<FlagDetail>(path)
  const archive = useResource<{ features: FlagDetail[] }>(readError ? `/api/admin/archive/features/${enc(project)}` : undefined)
  const archived = readError ? archive.data?.features.find((f) => f.name === flag) : undefined
  const error = archived || (readError && !archive.data && !archive.error) ? undefined : readError
  const { toggle, confirmElement, error: toggleError, crEnvironments } = useToggle(project)
  const action = useAction()
  const [description, setDescription] = useState<string | undefined>()
  const segmentName = useSegmentName()
  const confirm = useConfirm()
  const archiveFlag = async () => {
    if (!(await confirm.ask(`Archive ${flag}?`, 'SDKs stop seeing it. It stays in the project\'s Archived tab, where it can be revived.', 'Archive flag', true))) return
    void action.run(() => del(path))
  }
  return (
    <>
      <p class="crumbs"><a href="#/projects">Projects</a> / <a href={href({ page: 'project', project, tab: 'flags' })}>{project}</a> / {flag}</p>
      <ErrorBanner error={error ?? action.error ?? toggleError} />
      {archived ? (
        <ArchivedFlag project={project} flag={archived} segmentName={segmentName} />
      ) : !data ? (
        !error && <Loading />
      ) : (
        <>
          <header class="flag-head">
            <h1>{data.name}</h1>
            <span class="badge">{data.type}</span>
            {data.lifecycle && <span class="badge">lifecycle: {data.lifecycle.stage}</span>}
            {data.stale && <span class="badge warn">stale</span>}
            <span class="grow" />
            {can('UPDATE_FEATURE', project) && (
              <button type="button" onClick={() => void action.run(() => post(`${projectPath(project)}/stale`, { features: [flag], stale: !data.stale }))}>
                {data.stale ? 'Mark active' : 'Mark stale'}
              </button>
            )}
            {can('DELETE_FEATURE', project) && <button type="button" class="danger" onClick={() => void archiveFlag()}>Archive flag</button>}
          </header>
          {description === undefined ? (
            <p>
              {data.description || <span class="muted">No description.</span>}{' '}
              {can('UPDATE_FEATURE', project) && <button type="button" class="ghost" onClick={() => setDescription(data.description ?? '')}>Edit</button>}
            </p>
          ) : (
            <form class="inline" onSubmit={(e) => { e.preventDefault(); void action.run(() => patch(path, [{ op: 'replace', path: '/description', value: description }])).then((ok) => ok && setDescription(undefined)) }}>
              <Field label="Description" value={description} onValue={setDescription} />
              <button type="submit">Save</button>
            </form>
          )}
          <div class="envs">
            {data.environments.map((env) => (
              <EnvironmentPanel flag={data} project={project} env={env} crRequired={crEnvironments.has(env.name)} segmentName={segmentName} toggle={toggle} />
            ))}
          </div>
          {!data.lastSeenAt && data.environments.every((e) => !e.lastSeenAt) && <ConnectSdk flag={data.name} />}
          <div class="grid2">
            <Tags flag={data} project={project} />
            <Dependencies flag={data} project={project} />
          </div>
          {can('ADMIN') && <History flag={flag} segmentName={segmentName} />}
        </>
      )}
      {confirm.element}
      {confirmElement}
    </>
  )
}
