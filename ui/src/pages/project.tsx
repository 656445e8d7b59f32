import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import { del, enc, post, put, useResource } from '../api.js'
import { Checkbox, Dialog, ErrorBanner, Field, Loading, Section, Select, Switch, TextArea, useAction, useConfirm, useSession, when } from '../components.js'
import { emptyFilter, matchesFilter, tagLabel, type FlagFilter } from '../lib/flag-filter.js'
import type { ApiFlags, ApiProjects } from '../api-types.js'
import { href } from '../lib/route.js'
import { ArchiveTable } from './archive.js'
import { SettingsTab } from './project-settings.js'

export interface ChangeRequestConfig {
  environment: string
  changeRequestEnabled: boolean
  requiredApprovals: number
}

export const projectPath = (project: string) => `/api/admin/projects/${enc(project)}`

export const useFeatureTypes = () => useResource<{ types: { id: string; name: string }[] }>('/api/admin/feature-types', false)
export const useCrConfig = (project: string) => useResource<ChangeRequestConfig[]>(`${projectPath(project)}/change-requests/config`)

// Toggles a flag in an environment, or, where the project requires change requests there, proposes
// the change in the caller's draft and opens it.
// The caller renders `confirmElement`: a toggle that would become a change request asks first.
export const useToggle = (project: string) => {
  const config = useCrConfig(project)
  const action = useAction()
  const confirm = useConfirm()
  const toggle = async (flag: string, environment: string, enabled: boolean) => {
    const needsCr = config.data?.some((c) => c.environment === environment && c.changeRequestEnabled)
    if (
      needsCr &&
      !(await confirm.ask(
        `${enabled ? 'Enable' : 'Disable'} ${flag} in ${environment}?`,
        `${environment} requires change requests: this adds "${enabled ? 'enable' : 'disable'} ${flag}" to your draft change request. Nothing changes until it is approved and applied.`,
        'Add to draft',
      ))
    )
      return false
    return action.run(async () => {
      if (needsCr) {
        const cr = await post<{ id: number }>(`${projectPath(project)}/environments/${enc(environment)}/change-requests`, {
          feature: flag,
          action: 'updateEnabled',
          payload: { enabled },
        })
        location.hash = href({ page: 'change-request', project, id: cr.id })
        return
      }
      await post(`${projectPath(project)}/features/${enc(flag)}/environments/${enc(environment)}/${enabled ? 'on' : 'off'}`)
    })
  }
  return { toggle, confirmElement: confirm.element, error: action.error, crEnvironments: new Set(config.data?.filter((c) => c.changeRequestEnabled).map((c) => c.environment)) }
}

const CreateFlag = ({ project, onClose }: { project: string; onClose: () => void }) => {
  const types = useFeatureTypes()
  const [name, setName] = useState('')
  const [type, setType] = useState('release')
  const [description, setDescription] = useState('')
  const [impressionData, setImpressionData] = useState(false)
  const { error, busy, run } = useAction()
  const naming = useResource<ApiProjects>('/api/admin/projects', false).data?.projects.find((p) => p.id === project)?.featureNaming
  const submit = (e: Event) => {
    e.preventDefault()
    void run(() => post(`${projectPath(project)}/features`, { name, type, description: description || undefined, impressionData })).then((ok) => {
      if (!ok) return
      onClose()
      location.hash = href({ page: 'flag', project, flag: name })
    })
  }
  return (
    <Dialog title="Create flag" onClose={onClose}>
      <form onSubmit={submit}>
        <Field label="Flag name" value={name} onValue={setName} required autoFocus placeholder={naming?.example ?? undefined} />
        {naming?.pattern && (
          <p class="muted naming" role="note">
            {naming.description ?? 'Names in this project follow a pattern'}: <code>{naming.pattern}</code>{naming.example && <> (for example <code>{naming.example}</code>)</>}
          </p>
        )}
        <Select label="Flag type" value={type} onValue={setType} options={(types.data?.types ?? [{ id: 'release', name: 'Release' }]).map((t) => ({ value: t.id, label: t.name }))} />
        <TextArea label="Description" value={description} onValue={setDescription} />
        <Checkbox label="Impression data" checked={impressionData} onChecked={setImpressionData} />
        <ErrorBanner error={error} />
        <button type="submit" disabled={busy}>Create flag</button>
      </form>
    </Dialog>
  )
}

// Long tables render only the rows near the viewport (plus spacers of the right height), so a project
// of thousands of flags costs what one screen of rows costs. Rows have one fixed height (CSS).
const rowHeight = 44
const windowFrom = 150

const useRowWindow = (count: number) => {
  const body = useRef<HTMLTableSectionElement>(null)
  const [range, setRange] = useState({ start: 0, end: Math.min(count, 60) })
  useLayoutEffect(() => {
    if (count <= windowFrom) {
      setRange({ start: 0, end: count })
      return
    }
    const update = () => {
      const top = body.current?.getBoundingClientRect().top ?? 0
      const start = Math.max(0, Math.floor(-top / rowHeight) - 15)
      const end = Math.min(count, start + Math.ceil(innerHeight / rowHeight) + 30)
      setRange((r) => (r.start === start && r.end === end ? r : { start, end }))
    }
    update()
    addEventListener('scroll', update, { passive: true })
    addEventListener('resize', update)
    return () => {
      removeEventListener('scroll', update)
      removeEventListener('resize', update)
    }
  }, [count])
  return { body, start: Math.min(range.start, count), end: Math.min(range.end, count) }
}

const FlagsTab = ({ project }: { project: string }) => {
  const { can } = useSession()
  const { data, error } = useResource<ApiFlags>(`${projectPath(project)}/features`)
  const types = useFeatureTypes()
  const { toggle, confirmElement, error: toggleError, crEnvironments } = useToggle(project)
  const [filter, setFilter] = useState<FlagFilter>(emptyFilter)
  const [selected, setSelected] = useState<Set<string>>(new Set())
  const [creating, setCreating] = useState(false)
  const bulk = useAction()
  const flags = data?.features ?? []
  const environments = flags[0]?.environments.map((e) => e.name) ?? []
  const tags = useMemo(() => [...new Set(flags.flatMap((f) => f.tags.map(tagLabel)))].sort(), [flags])
  const shown = useMemo(() => flags.filter((f) => matchesFilter(f, filter)), [flags, filter])
  const rows = useRowWindow(shown.length)
  const set = (patch: Partial<FlagFilter>) => setFilter({ ...filter, ...patch })
  const toggleSelected = (name: string) => {
    const next = new Set(selected)
    if (next.has(name)) next.delete(name)
    else next.add(name)
    setSelected(next)
  }
  const confirm = useConfirm()
  const archiveSelected = async () => {
    const names = [...selected]
    if (!(await confirm.ask(`Archive ${names.length === 1 ? names[0] : `${names.length} flags`}?`, 'SDKs stop seeing archived flags. They stay in the Archived tab, where they can be revived.', 'Archive', true))) return
    void bulk.run(() => post(`${projectPath(project)}/archive`, { features: names })).then((ok) => ok && setSelected(new Set()))
  }
  const staleSelected = (stale: boolean) => void bulk.run(() => post(`${projectPath(project)}/stale`, { features: [...selected], stale }))
  return (
    <Section
      title={`Flags (${shown.length} of ${flags.length})`}
      actions={can('CREATE_FEATURE', project) && <button type="button" onClick={() => setCreating(true)}>New flag</button>}
    >
      <div class="filters" role="search">
        <Field label="Search" type="search" value={filter.search} onValue={(search) => set({ search })} />
        <Select label="Tag" value={filter.tag} onValue={(tag) => set({ tag })} options={[{ value: '', label: 'Any tag' }, ...tags]} />
        <Select label="Type" value={filter.type} onValue={(type) => set({ type })} options={[{ value: '', label: 'Any type' }, ...(types.data?.types.map((t) => ({ value: t.id, label: t.name })) ?? [])]} />
        <Select
          label="State"
          value={filter.state}
          onValue={(state) => set({ state: state as FlagFilter['state'] })}
          options={[{ value: '', label: 'Any state' }, { value: 'enabled', label: 'Enabled somewhere' }, { value: 'disabled', label: 'Disabled everywhere' }, { value: 'stale', label: 'Stale' }, { value: 'active', label: 'Not stale' }]}
        />
      </div>
      {selected.size > 0 && (
        <div class="bulk" role="region" aria-label="Selected flags">
          <span>{selected.size} selected</span>
          {can('DELETE_FEATURE', project) && <button type="button" class="danger" onClick={() => void archiveSelected()}>Archive selected</button>}
          {can('UPDATE_FEATURE', project) && <button type="button" onClick={() => staleSelected(true)}>Mark stale</button>}
          {can('UPDATE_FEATURE', project) && <button type="button" onClick={() => staleSelected(false)}>Mark active</button>}
        </div>
      )}
      <ErrorBanner error={error ?? toggleError ?? bulk.error} />
      {!data ? (
        !error && <Loading />
      ) : flags.length === 0 ? (
        <div class="empty" role="note">
          <h3>Create your first flag</h3>
          <p>A flag is a switch in your code: <code>if (unleash.isEnabled('new-checkout'))</code>. Make one here, turn it on per environment, and roll it out gradually with strategies.</p>
          {can('CREATE_FEATURE', project) ? <button type="button" onClick={() => setCreating(true)}>Create your first flag</button> : <p class="muted">Someone who may create flags in this project has to make the first one.</p>}
        </div>
      ) : (
        <div class="table-wrap">
          <table class="flags" aria-rowcount={shown.length + 1}>
            <thead>
              <tr>
                <th><span class="sr-only">Select</span></th>
                <th>Name</th><th>Type</th><th>Tags</th><th>Lifecycle</th><th>Stale</th><th>Last seen</th>
                {environments.map((e) => <th>{e}{crEnvironments.has(e) && <span class="badge" title="Change requests required">CR</span>}</th>)}
              </tr>
            </thead>
            <tbody ref={rows.body}>
              {rows.start > 0 && <tr aria-hidden="true" class="spacer" style={{ height: `${rows.start * rowHeight}px` }} />}
              {shown.slice(rows.start, rows.end).map((f, i) => (
                <tr key={f.name} data-flag={f.name} aria-rowindex={rows.start + i + 2}>
                  <td><input type="checkbox" aria-label={`Select ${f.name}`} checked={selected.has(f.name)} onChange={() => toggleSelected(f.name)} /></td>
                  <td><a href={href({ page: 'flag', project, flag: f.name })}>{f.name}</a></td>
                  <td>{f.type}</td>
                  <td>{f.tags.map((t) => <span class="tag">{tagLabel(t)}</span>)}</td>
                  <td>{f.lifecycle?.stage ?? '—'}</td>
                  <td>{f.stale ? 'stale' : f.potentiallyStale ? 'potentially' : ''}</td>
                  <td>{when(f.lastSeenAt)}</td>
                  {f.environments.map((e) => (
                    <td>
                      <Switch
                        label={`${f.name} in ${e.name}`}
                        checked={e.enabled}
                        disabled={!can('UPDATE_FEATURE_ENVIRONMENT', project)}
                        onToggle={() => void toggle(f.name, e.name, !e.enabled)}
                      />
                    </td>
                  ))}
                </tr>
              ))}
              {rows.end < shown.length && <tr aria-hidden="true" class="spacer" style={{ height: `${(shown.length - rows.end) * rowHeight}px` }} />}
            </tbody>
          </table>
        </div>
      )}
      {creating && <CreateFlag project={project} onClose={() => setCreating(false)} />}
      {confirm.element}
      {confirmElement}
    </Section>
  )
}

interface ChangeRequestSummary {
  id: number
  title: string
  environment: string
  state: string
  createdAt: string
  createdBy: { username: string | null }
  features: { name: string }[]
}

const ChangeRequestsTab = ({ project }: { project: string }) => {
  const { data, error } = useResource<ChangeRequestSummary[]>(`${projectPath(project)}/change-requests`)
  return (
    <Section title="Change requests">
      <ErrorBanner error={error} />
      {!data ? (
        !error && <Loading />
      ) : data.length === 0 ? (
        <p class="muted">No change requests.</p>
      ) : (
        <div class="table-wrap">
        <table>
          <thead><tr><th>#</th><th>Title</th><th>Environment</th><th>Flags</th><th>State</th><th>By</th><th>Created</th></tr></thead>
          <tbody>
            {data.map((cr) => (
              <tr key={cr.id}>
                <td>{cr.id}</td>
                <td><a href={href({ page: 'change-request', project, id: cr.id })}>{cr.title}</a></td>
                <td>{cr.environment}</td>
                <td>{cr.features.map((f) => f.name).join(', ')}</td>
                <td><span class={`state state-${cr.state.replace(' ', '-').toLowerCase()}`}>{cr.state}</span></td>
                <td>{cr.createdBy.username}</td>
                <td>{when(cr.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      )}
    </Section>
  )
}

interface Access {
  users: { id: number; name: string | null; username: string | null; email: string | null; roles: number[] }[]
  groups: { id: number; name: string; roles: number[] }[]
  roles: { id: number; name: string }[]
}

const AccessTab = ({ project }: { project: string }) => {
  const { can } = useSession()
  const { data, error } = useResource<Access>(`${projectPath(project)}/access`)
  const users = useResource<{ users: { id: number; username: string | null; email: string | null; name: string | null }[] }>(
    can('ADMIN') ? '/api/admin/user-admin' : undefined,
    false,
  )
  const groups = useResource<{ groups: { id: number; name: string }[] }>('/api/admin/groups', false)
  const [who, setWho] = useState('')
  const [role, setRole] = useState('')
  const action = useAction()
  const writable = can(['UPDATE_PROJECT', 'PROJECT_USER_ACCESS_WRITE'], project)
  const roleName = (id: number) => data?.roles.find((r) => r.id === id)?.name ?? String(id)
  const add = (e: Event) => {
    e.preventDefault()
    const [kind, id] = who.split(':')
    const roleId = Number(role || data?.roles[0]?.id)
    void action.run(() => post(`${projectPath(project)}/access`, { roles: [roleId], users: kind === 'user' ? [Number(id)] : [], groups: kind === 'group' ? [Number(id)] : [] }))
  }
  const remove = (kind: 'users' | 'groups', id: number) => void action.run(() => del(`${projectPath(project)}/${kind}/${id}/roles`))
  return (
    <Section title="Project access">
      <ErrorBanner error={error ?? action.error} />
      {!data ? (
        !error && <Loading />
      ) : (
        <table>
          <thead><tr><th>Member</th><th>Kind</th><th>Roles</th><th /></tr></thead>
          <tbody>
            {data.users.map((u) => (
              <tr><td>{u.name ?? u.username ?? u.email}</td><td>user</td><td>{u.roles.map(roleName).join(', ')}</td>
                <td>{writable && <button type="button" class="ghost" onClick={() => remove('users', u.id)}>Remove</button>}</td></tr>
            ))}
            {data.groups.map((g) => (
              <tr><td>{g.name}</td><td>group</td><td>{g.roles.map(roleName).join(', ')}</td>
                <td>{writable && <button type="button" class="ghost" onClick={() => remove('groups', g.id)}>Remove</button>}</td></tr>
            ))}
          </tbody>
        </table>
      )}
      {writable && data && (
        <form class="inline" onSubmit={add}>
          <Select
            label="User or group"
            value={who}
            onValue={setWho}
            options={[
              { value: '', label: 'Choose…' },
              ...(users.data?.users.map((u) => ({ value: `user:${u.id}`, label: u.username ?? u.email ?? u.name ?? String(u.id) })) ?? []),
              ...(groups.data?.groups.map((g) => ({ value: `group:${g.id}`, label: `group ${g.name}` })) ?? []),
            ]}
          />
          <Select label="Role" value={role} onValue={setRole} options={data.roles.map((r) => ({ value: String(r.id), label: r.name }))} />
          <button type="submit" disabled={!who || action.busy}>Add</button>
        </form>
      )}
    </Section>
  )
}

const tabs = [
  { id: 'flags', title: 'Flags' },
  { id: 'archive', title: 'Archived' },
  { id: 'change-requests', title: 'Change requests' },
  { id: 'access', title: 'Access' },
  { id: 'settings', title: 'Settings' },
] as const

export const ProjectPage = ({ project, tab }: { project: string; tab: (typeof tabs)[number]['id'] }) => {
  const overview = useResource<{ name: string; description: string | null; health: number; members: number }>(`${projectPath(project)}/overview`)
  return (
    <>
      <p class="crumbs"><a href="#/projects">Projects</a> / {project}</p>
      <h1>{overview.data?.name ?? project}</h1>
      {overview.data && <p class="muted">{overview.data.description} · health {overview.data.health}% · {overview.data.members} members</p>}
      <ErrorBanner error={overview.error} />
      <nav class="tabs" aria-label="Project">
        {tabs.map((t) => (
          <a href={href({ page: 'project', project, tab: t.id })} aria-current={t.id === tab ? 'page' : undefined}>{t.title}</a>
        ))}
      </nav>
      {tab === 'flags' && <FlagsTab project={project} />}
      {tab === 'archive' && <ArchiveTable project={project} />}
      {tab === 'change-requests' && <ChangeRequestsTab project={project} />}
      {tab === 'access' && <AccessTab project={project} />}
      {tab === 'settings' && <SettingsTab project={project} />}
    </>
  )
}
