// Instance-wide resources: one table and one create form each, described by a small spec.
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { del, enc, post, put, useResource } from '../api.js'
import { Checkbox, Dialog, ErrorBanner, Field, Loading, Section, Select, Switch, TextArea, useAction, useSession, when } from '../components.js'
import { EnvironmentPicker, ProjectPicker, ProjectsPicker } from '../pickers.js'
import { ConstraintEditor, constraintText, useContextFields, type Constraint } from './strategy-editor.js'

type Row = Record<string, unknown>
type Values = Record<string, string>

interface FormField {
  key: string
  label: string
  kind?: 'text' | 'textarea' | 'select' | 'checkbox' | 'datetime' | 'password' | 'environment' | 'projects'
  options?: (string | { value: string; label: string })[]
  initial?: string
  required?: boolean
}

interface Spec {
  id: string
  title: string
  list: string
  // The permission its list needs, when the API asks for one.
  read?: string
  rows: (body: unknown) => Row[]
  key: (row: Row) => string
  columns: { title: string; cell: (row: Row) => ComponentChildren }[]
  create?: { title: string; permission: string | string[]; fields: FormField[]; path: string; body: (v: Values) => unknown; showSecret?: (created: Row) => string | undefined }
  remove?: { permission: string | string[]; path: (row: Row) => string }
  extra?: (row: Row) => ComponentChildren
}

const text = (value: unknown) => (value === null || value === undefined ? '' : String(value))
const asList = (key: string) => (body: unknown) => ((body as Record<string, Row[]>)[key] ?? []) as Row[]
const inAYear = () => new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 16)

const rootRoles = [
  { value: '1', label: 'Admin' },
  { value: '2', label: 'Editor' },
  { value: '3', label: 'Viewer' },
]

const EnvironmentSwitch = ({ row }: { row: Row }) => {
  const { can } = useSession()
  const action = useAction()
  const name = text(row.name)
  return (
    <>
      <Switch label={`Environment ${name} enabled`} checked={row.enabled === true} disabled={!can('ADMIN')}
        onToggle={() => void action.run(() => post(`/api/admin/environments/${enc(name)}/${row.enabled ? 'off' : 'on'}`))} />
      <ErrorBanner error={action.error} />
    </>
  )
}

const StrategyTypeDeprecate = ({ row }: { row: Row }) => {
  const { can } = useSession()
  const action = useAction()
  if (!can('UPDATE_STRATEGY') || row.editable === false) return null
  const name = text(row.name)
  return (
    <button type="button" class="ghost" onClick={() => void action.run(() => post(`/api/admin/strategies/${enc(name)}/${row.deprecated ? 'reactivate' : 'deprecate'}`))}>
      {row.deprecated ? 'Reactivate' : 'Deprecate'}
    </button>
  )
}

export const adminSections: Spec[] = [
  {
    id: 'segments',
    title: 'Segments',
    list: '/api/admin/segments',
    rows: asList('segments'),
    key: (r) => text(r.id),
    columns: [
      { title: 'Name', cell: (r) => text(r.name) },
      { title: 'Constraints', cell: (r) => (r.constraints as Constraint[]).map(constraintText).join('; ') },
      { title: 'Project', cell: (r) => text(r.project) || 'all' },
    ],
    remove: { permission: 'DELETE_SEGMENT', path: (r) => `/api/admin/segments/${text(r.id)}` },
  },
  {
    id: 'context-fields',
    title: 'Context fields',
    list: '/api/admin/context',
    rows: (b) => b as Row[],
    key: (r) => text(r.name),
    columns: [
      { title: 'Name', cell: (r) => text(r.name) },
      { title: 'Description', cell: (r) => text(r.description) },
      { title: 'Stickiness', cell: (r) => (r.stickiness ? 'yes' : '') },
      { title: 'Legal values', cell: (r) => (r.legalValues as { value: string }[]).map((v) => v.value).join(', ') },
    ],
    create: {
      title: 'New context field',
      permission: 'CREATE_CONTEXT_FIELD',
      path: '/api/admin/context',
      fields: [
        { key: 'name', label: 'Name', required: true },
        { key: 'description', label: 'Description', kind: 'textarea' },
        { key: 'legalValues', label: 'Legal values (comma-separated)' },
        { key: 'stickiness', label: 'Usable for stickiness', kind: 'checkbox' },
      ],
      body: (v) => ({
        name: v.name,
        description: v.description || undefined,
        stickiness: v.stickiness === 'true',
        legalValues: (v.legalValues ?? '').split(',').map((s) => s.trim()).filter(Boolean).map((value) => ({ value })),
      }),
    },
    remove: { permission: 'DELETE_CONTEXT_FIELD', path: (r) => `/api/admin/context/${enc(text(r.name))}` },
  },
  {
    id: 'strategy-types',
    title: 'Strategy types',
    list: '/api/admin/strategies',
    rows: asList('strategies'),
    key: (r) => text(r.name),
    columns: [
      { title: 'Name', cell: (r) => text(r.displayName) || text(r.name) },
      { title: 'Parameters', cell: (r) => (r.parameters as { name: string; type: string }[]).map((p) => `${p.name} (${p.type})`).join(', ') },
      { title: 'State', cell: (r) => (r.deprecated ? 'deprecated' : 'active') },
      { title: '', cell: (r) => <StrategyTypeDeprecate row={r} /> },
    ],
    create: {
      title: 'New strategy type',
      permission: 'CREATE_STRATEGY',
      path: '/api/admin/strategies',
      fields: [
        { key: 'name', label: 'Name', required: true },
        { key: 'description', label: 'Description', kind: 'textarea' },
        { key: 'parameters', label: 'Parameters (name:type, comma-separated; types string, percentage, list, number, boolean)' },
      ],
      body: (v) => ({
        name: v.name,
        description: v.description || undefined,
        parameters: (v.parameters ?? '').split(',').map((s) => s.trim()).filter(Boolean).map((p) => {
          const [name, type = 'string'] = p.split(':').map((x) => x.trim())
          return { name, type, description: '', required: false }
        }),
      }),
    },
    remove: { permission: 'DELETE_STRATEGY', path: (r) => `/api/admin/strategies/${enc(text(r.name))}` },
  },
  {
    id: 'tag-types',
    title: 'Tag types',
    list: '/api/admin/tag-types',
    rows: asList('tagTypes'),
    key: (r) => text(r.name),
    columns: [
      { title: 'Name', cell: (r) => text(r.name) },
      { title: 'Description', cell: (r) => text(r.description) },
    ],
    create: {
      title: 'New tag type',
      permission: 'CREATE_TAG_TYPE',
      path: '/api/admin/tag-types',
      fields: [
        { key: 'name', label: 'Name', required: true },
        { key: 'description', label: 'Description' },
      ],
      body: (v) => ({ name: v.name, description: v.description || undefined }),
    },
    remove: { permission: 'DELETE_TAG_TYPE', path: (r) => `/api/admin/tag-types/${enc(text(r.name))}` },
  },
  {
    id: 'environments',
    title: 'Environments',
    list: '/api/admin/environments',
    rows: asList('environments'),
    key: (r) => text(r.name),
    columns: [
      { title: 'Name', cell: (r) => text(r.name) },
      { title: 'Type', cell: (r) => text(r.type) },
      { title: 'Projects', cell: (r) => text(r.projectCount) },
      { title: 'Enabled', cell: (r) => <EnvironmentSwitch row={r} /> },
    ],
    create: {
      title: 'New environment',
      permission: 'ADMIN',
      path: '/api/admin/environments',
      fields: [
        { key: 'name', label: 'Name', required: true },
        { key: 'type', label: 'Type', kind: 'select', options: ['development', 'test', 'preproduction', 'production'] },
      ],
      body: (v) => ({ name: v.name, type: v.type || 'development' }),
    },
  },
  {
    id: 'api-tokens',
    title: 'API tokens',
    list: '/api/admin/api-tokens',
    read: 'READ_API_TOKEN',
    rows: asList('tokens'),
    key: (r) => text(r.secret),
    columns: [
      { title: 'Name', cell: (r) => text(r.tokenName) },
      { title: 'Type', cell: (r) => text(r.type) },
      { title: 'Environment', cell: (r) => text(r.environment) },
      { title: 'Projects', cell: (r) => (r.projects as string[]).join(', ') },
      { title: 'Last seen', cell: (r) => when(r.seenAt as string | null) },
    ],
    create: {
      title: 'New API token',
      permission: ['CREATE_CLIENT_API_TOKEN', 'CREATE_FRONTEND_API_TOKEN'],
      path: '/api/admin/api-tokens',
      fields: [
        { key: 'tokenName', label: 'Token name', required: true },
        { key: 'type', label: 'Type', kind: 'select', options: ['client', 'frontend'] },
        { key: 'environment', label: 'Environment', kind: 'environment', initial: 'development' },
        { key: 'projects', label: 'Projects', kind: 'projects', initial: '*' },
      ],
      body: (v) => ({ tokenName: v.tokenName, type: v.type || 'client', environment: v.environment, projects: (v.projects ?? '').split(',').filter(Boolean) }),
      showSecret: (created) => text(created.secret),
    },
    remove: { permission: ['DELETE_CLIENT_API_TOKEN', 'DELETE_FRONTEND_API_TOKEN'], path: (r) => `/api/admin/api-tokens/${enc(text(r.secret))}` },
  },
  {
    id: 'users',
    title: 'Users',
    list: '/api/admin/user-admin',
    read: 'ADMIN',
    rows: asList('users'),
    key: (r) => text(r.id),
    columns: [
      { title: 'Name', cell: (r) => text(r.name) },
      { title: 'Username', cell: (r) => text(r.username) },
      { title: 'Email', cell: (r) => text(r.email) },
      { title: 'Root role', cell: (r) => rootRoles.find((x) => x.value === text(r.rootRole))?.label ?? text(r.rootRole) },
      { title: 'Seen', cell: (r) => when(r.seenAt as string | null) },
    ],
    create: {
      title: 'New user',
      permission: 'ADMIN',
      path: '/api/admin/user-admin',
      fields: [
        { key: 'username', label: 'Username' },
        { key: 'email', label: 'Email' },
        { key: 'name', label: 'Name' },
        { key: 'password', label: 'Password', kind: 'password' },
        { key: 'rootRole', label: 'Root role', kind: 'select', options: rootRoles, initial: '3' },
      ],
      body: (v) => ({ username: v.username || undefined, email: v.email || undefined, name: v.name || undefined, password: v.password || undefined, rootRole: Number(v.rootRole || 3) }),
    },
    remove: { permission: 'ADMIN', path: (r) => `/api/admin/user-admin/${text(r.id)}` },
  },
  {
    id: 'groups',
    title: 'Groups',
    list: '/api/admin/groups',
    rows: asList('groups'),
    key: (r) => text(r.id),
    columns: [
      { title: 'Name', cell: (r) => text(r.name) },
      { title: 'Description', cell: (r) => text(r.description) },
      { title: 'Members', cell: (r) => ((r.users as { user: { username?: string; email?: string } }[] | undefined) ?? []).map((u) => u.user.username ?? u.user.email).join(', ') },
    ],
    create: {
      title: 'New group',
      permission: 'ADMIN',
      path: '/api/admin/groups',
      fields: [
        { key: 'name', label: 'Name', required: true },
        { key: 'description', label: 'Description' },
        { key: 'users', label: 'Member user ids (comma-separated)' },
      ],
      body: (v) => ({ name: v.name, description: v.description || undefined, users: (v.users ?? '').split(',').map((s) => Number(s.trim())).filter((n) => n > 0).map((id) => ({ user: { id } })) }),
    },
    remove: { permission: 'ADMIN', path: (r) => `/api/admin/groups/${text(r.id)}` },
  },
  {
    id: 'roles',
    title: 'Roles',
    list: '/api/admin/roles',
    rows: asList('roles'),
    key: (r) => text(r.id),
    columns: [
      { title: 'Name', cell: (r) => text(r.name) },
      { title: 'Type', cell: (r) => text(r.type) },
      { title: 'Permissions', cell: (r) => ((r.permissions as { name: string }[] | undefined) ?? []).map((p) => p.name).join(', ') },
    ],
    create: {
      title: 'New role',
      permission: 'ADMIN',
      path: '/api/admin/roles',
      fields: [
        { key: 'name', label: 'Name', required: true },
        { key: 'description', label: 'Description' },
        { key: 'type', label: 'Type', kind: 'select', options: [{ value: 'custom', label: 'Project role' }, { value: 'root-custom', label: 'Root role' }] },
        { key: 'permissions', label: 'Permissions (comma-separated, e.g. UPDATE_FEATURE)' },
      ],
      body: (v) => ({ name: v.name, description: v.description || undefined, type: v.type || 'custom', permissions: (v.permissions ?? '').split(',').map((s) => s.trim()).filter(Boolean).map((name) => ({ name })) }),
    },
    remove: { permission: 'ADMIN', path: (r) => `/api/admin/roles/${text(r.id)}` },
  },
  {
    id: 'signup-links',
    title: 'Signup links',
    list: '/api/admin/invite-link/tokens',
    read: 'ADMIN',
    rows: asList('tokens'),
    key: (r) => text(r.secret),
    columns: [
      { title: 'Name', cell: (r) => text(r.name) },
      { title: 'Link', cell: (r) => <code>{text(r.url)}</code> },
      { title: 'Expires', cell: (r) => when(r.expiresAt as string) },
      { title: 'Enabled', cell: (r) => (r.enabled ? 'yes' : 'no') },
    ],
    create: {
      title: 'New signup link',
      permission: 'ADMIN',
      path: '/api/admin/invite-link/tokens',
      fields: [
        { key: 'name', label: 'Name', required: true },
        { key: 'expiresAt', label: 'Expires at', kind: 'datetime', initial: inAYear() },
      ],
      body: (v) => ({ name: v.name, expiresAt: new Date(v.expiresAt || inAYear()).toISOString() }),
    },
  },
]

const CreateForm = ({ spec, onClose }: { spec: NonNullable<Spec['create']>; onClose: () => void }) => {
  const [values, setValues] = useState<Values>(() => Object.fromEntries(spec.fields.map((f) => [f.key, f.initial ?? ''])))
  const [secret, setSecret] = useState<string | undefined>()
  const [copied, setCopied] = useState(false)
  const { error, busy, run } = useAction()
  const set = (key: string) => (value: string) => setValues({ ...values, [key]: value })
  const submit = (e: Event) => {
    e.preventDefault()
    void run(async () => {
      const created = await post<Row>(spec.path, spec.body(values))
      const shown = spec.showSecret?.(created)
      if (shown) setSecret(shown)
      else onClose()
    })
  }
  if (secret) {
    return (
      <Dialog title="Token created" onClose={onClose}>
        <p>Copy the secret now: it is not shown again.</p>
        <p><code class="secret" data-testid="secret">{secret}</code></p>
        <button type="button" onClick={() => void navigator.clipboard.writeText(secret).then(() => setCopied(true))}>{copied ? 'Copied' : 'Copy'}</button>
        <button type="button" class="ghost" onClick={onClose}>Done</button>
      </Dialog>
    )
  }
  return (
    <Dialog title={spec.title} onClose={onClose}>
      <form onSubmit={submit}>
        {spec.fields.map((f) =>
          f.kind === 'select' ? (
            <Select label={f.label} value={values[f.key] || (typeof f.options![0] === 'string' ? (f.options![0] as string) : (f.options![0] as { value: string }).value)} onValue={set(f.key)} options={f.options!} />
          ) : f.kind === 'textarea' ? (
            <TextArea label={f.label} value={values[f.key] ?? ''} onValue={set(f.key)} />
          ) : f.kind === 'environment' ? (
            <EnvironmentPicker label={f.label} value={values[f.key] ?? ''} onValue={set(f.key)} />
          ) : f.kind === 'projects' ? (
            <ProjectsPicker label={f.label} value={(values[f.key] ?? '').split(',').filter(Boolean)} onValue={(v) => set(f.key)(v.join(','))} />
          ) : f.kind === 'checkbox' ? (
            <Checkbox label={f.label} checked={values[f.key] === 'true'} onChecked={(v) => set(f.key)(String(v))} />
          ) : (
            <Field label={f.label} type={f.kind === 'datetime' ? 'datetime-local' : f.kind === 'password' ? 'password' : 'text'} value={values[f.key] ?? ''} onValue={set(f.key)} required={f.required} />
          ),
        )}
        <ErrorBanner error={error} />
        <button type="submit" disabled={busy}>{spec.title.replace(/^New/, 'Create')}</button>
      </form>
    </Dialog>
  )
}

interface Segment {
  id?: number
  name: string
  description: string | null
  project: string | null
  constraints: Constraint[]
}

const SegmentForm = ({ initial, onClose }: { initial?: Segment; onClose: () => void }) => {
  const fields = useContextFields()
  const [s, setS] = useState<Segment>(initial ?? { name: '', description: null, project: null, constraints: [] })
  const { error, busy, run } = useAction()
  const submit = (e: Event) => {
    e.preventDefault()
    // A PUT keeps a description it is not given (as Unleash does): a cleared one is sent as null.
    const body = { name: s.name, description: s.description || null, project: s.project || undefined, constraints: s.constraints }
    void run(() => (s.id ? put(`/api/admin/segments/${s.id}`, body) : post('/api/admin/segments', body))).then((ok) => ok && onClose())
  }
  return (
    <Dialog title={s.id ? `Edit segment ${initial?.name}` : 'New segment'} onClose={onClose}>
      <form onSubmit={submit}>
        <Field label="Segment name" value={s.name} onValue={(name) => setS({ ...s, name })} required />
        <Field label="Description" value={s.description ?? ''} onValue={(description) => setS({ ...s, description })} />
        <ProjectPicker label="Project" none="All projects" value={s.project ?? ''} onValue={(project) => setS({ ...s, project })} />
        {s.constraints.map((c, i) => (
          <ConstraintEditor constraint={c} index={i} fields={fields.data ?? []}
            onChange={(next) => setS({ ...s, constraints: s.constraints.map((x, j) => (j === i ? next : x)) })}
            onRemove={() => setS({ ...s, constraints: s.constraints.filter((_, j) => j !== i) })} />
        ))}
        <button type="button" class="ghost" onClick={() => setS({ ...s, constraints: [...s.constraints, { contextName: 'userId', operator: 'IN', values: [] }] })}>Add constraint</button>
        <ErrorBanner error={error} />
        <button type="submit" disabled={busy}>Save segment</button>
      </form>
    </Dialog>
  )
}

export const AdminPage = ({ section }: { section: string }) => {
  const spec = adminSections.find((s) => s.id === section)
  const { can } = useSession()
  const { data, error } = useResource<unknown>(spec?.list)
  const [creating, setCreating] = useState(false)
  const [editingSegment, setEditingSegment] = useState<Segment | undefined>()
  const action = useAction()
  if (!spec) return <p>No such page.</p>
  const isSegments = spec.id === 'segments'
  const canCreate = isSegments ? can('CREATE_SEGMENT') : spec.create && can(spec.create.permission)
  const remove = (row: Row) => {
    if (!spec.remove || !confirm('Delete it?')) return
    void action.run(() => del(spec.remove!.path(row)))
  }
  return (
    <Section title={spec.title} actions={canCreate && <button type="button" onClick={() => setCreating(true)}>{isSegments ? 'New segment' : spec.create?.title}</button>}>
      <ErrorBanner error={error ?? action.error} />
      {data === undefined ? (
        !error && <Loading />
      ) : (
        <div class="table-wrap">
          <table>
            <thead><tr>{spec.columns.map((c) => <th>{c.title}</th>)}<th><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {spec.rows(data).map((row) => (
                <tr key={spec.key(row)}>
                  {spec.columns.map((c) => <td>{c.cell(row)}</td>)}
                  <td>
                    {isSegments && can('UPDATE_SEGMENT') && <button type="button" class="ghost" onClick={() => setEditingSegment(row as unknown as Segment)}>Edit</button>}
                    {spec.remove && can(spec.remove.permission) && <button type="button" class="ghost danger" onClick={() => remove(row)}>Delete</button>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {creating && (isSegments ? <SegmentForm onClose={() => setCreating(false)} /> : spec.create && <CreateForm spec={spec.create} onClose={() => setCreating(false)} />)}
      {editingSegment && <SegmentForm initial={editingSegment} onClose={() => setEditingSegment(undefined)} />}
    </Section>
  )
}
