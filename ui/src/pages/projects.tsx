import { useState } from 'preact/hooks'
import { post, useResource } from '../api.js'
import { Dialog, ErrorBanner, Field, Loading, Section, TextArea, useAction, useSession } from '../components.js'
import type { ApiProjects } from '../api-types.js'
import { href } from '../lib/route.js'

const CreateProject = ({ onClose }: { onClose: () => void }) => {
  const [id, setId] = useState('')
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')
  const { error, busy, run } = useAction()
  const submit = (e: Event) => {
    e.preventDefault()
    void run(() => post('/api/admin/projects', { id, name: name || id, description: description || undefined })).then((ok) => {
      if (!ok) return
      onClose()
      location.hash = href({ page: 'project', project: id, tab: 'flags' })
    })
  }
  return (
    <Dialog title="Create project" onClose={onClose}>
      <form onSubmit={submit}>
        <Field label="Project id" value={id} onValue={setId} required pattern="[A-Za-z0-9_.~-]+" autoFocus />
        <Field label="Name" value={name} onValue={setName} />
        <TextArea label="Description" value={description} onValue={setDescription} />
        <ErrorBanner error={error} />
        <button type="submit" disabled={busy}>Create project</button>
      </form>
    </Dialog>
  )
}

export const ProjectsPage = () => {
  const { can } = useSession()
  const { data, error } = useResource<ApiProjects>('/api/admin/projects')
  const [creating, setCreating] = useState(false)
  return (
    <Section title="Projects" actions={can('CREATE_PROJECT') && <button type="button" onClick={() => setCreating(true)}>New project</button>}>
      <ErrorBanner error={error} />
      {!data ? (
        !error && <Loading />
      ) : (
        <table>
          <thead>
            <tr><th>Project</th><th>Flags</th><th>Members</th><th>Health</th></tr>
          </thead>
          <tbody>
            {data.projects.map((p) => (
              <tr key={p.id}>
                <td><a href={href({ page: 'project', project: p.id, tab: 'flags' })}>{p.name}</a> <span class="muted">{p.id}</span></td>
                <td>{p.featureCount}</td>
                <td>{p.memberCount}</td>
                <td><meter min={0} max={100} low={50} high={80} optimum={100} value={p.health} aria-label={`Health of ${p.name}`} /> {p.health}%</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {creating && <CreateProject onClose={() => setCreating(false)} />}
    </Section>
  )
}
