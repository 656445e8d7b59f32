// Archived flags, of one project or of all: revive one (it comes back disabled everywhere, as in
// Unleash) or delete it for good.
import { enc, post, useResource } from '../api.js'
import type { ApiFlag, ApiFlags } from '../api-types.js'
import { ErrorBanner, Loading, Section, useAction, useConfirm, useSession, when } from '../components.js'
import { href } from '../lib/route.js'
import { projectPath } from './project.js'

export const ArchiveTable = ({ project }: { project?: string }) => {
  const { can } = useSession()
  const { data, error } = useResource<ApiFlags>(project ? `/api/admin/archive/features/${enc(project)}` : '/api/admin/archive/features')
  const action = useAction()
  const confirm = useConfirm()
  const revive = (f: ApiFlag) => void action.run(() => post(`${projectPath(f.project)}/revive`, { features: [f.name] }))
  const remove = async (f: ApiFlag) => {
    if (!(await confirm.ask(`Delete ${f.name}?`, `${f.name} is deleted for good: its history stays in the event log, and its name can be used again.`, 'Delete flag', true))) return
    await action.run(() => post(`${projectPath(f.project)}/delete`, { features: [f.name] }))
  }
  const flags = [...(data?.features ?? [])].sort((a, b) => (b.archivedAt ?? '').localeCompare(a.archivedAt ?? ''))
  return (
    <Section title={`Archived flags${data ? ` (${flags.length})` : ''}`}>
      <ErrorBanner error={error ?? action.error} />
      {!data ? (
        !error && <Loading />
      ) : flags.length === 0 ? (
        <p class="muted">No archived flags{project ? ' in this project' : ''}. A flag archived from its page or the flag list shows up here, to be revived or deleted.</p>
      ) : (
        <div class="table-wrap">
          <table class="archive">
            <thead>
              <tr><th>Flag</th>{!project && <th>Project</th>}<th><span class="sr-only">Actions</span></th></tr>
            </thead>
            <tbody>
              {flags.map((f) => (
                <tr key={`${f.project}/${f.name}`} data-flag={f.name}>
                  <td>
                    <a href={href({ page: 'flag', project: f.project, flag: f.name })}>{f.name}</a>
                    {f.description && <div>{f.description}</div>}
                    <div class="muted">archived {when(f.archivedAt)}</div>
                  </td>
                  {!project && <td><a href={href({ page: 'project', project: f.project, tab: 'archive' })}>{f.project}</a></td>}
                  <td class="row-actions">
                    {can('UPDATE_FEATURE', f.project) && <button type="button" aria-label={`Revive ${f.name}`} disabled={action.busy} onClick={() => revive(f)}>Revive</button>}
                    {can('DELETE_FEATURE', f.project) && <button type="button" class="ghost danger" aria-label={`Delete ${f.name}`} disabled={action.busy} onClick={() => void remove(f)}>Delete</button>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {confirm.element}
    </Section>
  )
}

export const ArchivePage = () => <ArchiveTable />
