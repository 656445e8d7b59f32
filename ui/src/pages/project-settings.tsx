// A project's settings: name and description, flag limit and naming pattern, which environments it
// uses and the default strategy in each, change requests, and deleting it.
import { useState } from 'preact/hooks'
import { del, enc, post, put, useResource } from '../api.js'
import type { ApiProject, ApiProjects, ProjectUpdate } from '../api-types.js'
import { ErrorBanner, Field, Loading, Section, Switch, TextArea, useAction, useConfirm, useSession } from '../components.js'
import { href } from '../lib/route.js'
import { strategyLabel } from '../lib/strategies.js'
import { StrategyEditor, constraintText, type Strategy } from './strategy-editor.js'
import { projectPath, useCrConfig } from './project.js'

// The projects list carries every setting without the project's flags (GET of one project lists them all).
const useProject = (project: string) => {
  const list = useResource<ApiProjects>('/api/admin/projects')
  return { data: list.data?.projects.find((p) => p.id === project), loaded: !!list.data, error: list.error }
}

const General = ({ project }: { project: ApiProject }) => {
  const { can } = useSession()
  const [name, setName] = useState(project.name)
  const [description, setDescription] = useState(project.description ?? '')
  const [limit, setLimit] = useState(project.featureLimit === null ? '' : String(project.featureLimit))
  const [pattern, setPattern] = useState(project.featureNaming.pattern ?? '')
  const [example, setExample] = useState(project.featureNaming.example ?? '')
  const [namingHelp, setNamingHelp] = useState(project.featureNaming.description ?? '')
  const [saved, setSaved] = useState(false)
  const action = useAction()
  const writable = can('UPDATE_PROJECT', project.id)
  const submit = (e: Event) => {
    e.preventDefault()
    const body: ProjectUpdate = {
      name,
      description: description || null,
      mode: project.mode as ProjectUpdate['mode'],
      defaultStickiness: project.defaultStickiness,
      featureLimit: limit === '' ? null : Number(limit),
      featureNaming: { pattern: pattern || null, example: example || null, description: namingHelp || null },
    }
    setSaved(false)
    void action.run(() => put(projectPath(project.id), body)).then((ok) => ok && setSaved(true))
  }
  return (
    <Section title="General">
      <form onSubmit={submit} class="settings-form">
        <Field label="Project name" value={name} onValue={setName} required />
        <TextArea label="Description" value={description} onValue={setDescription} rows={2} />
        <Field label="Flag limit (empty for none)" type="number" min={0} value={limit} onValue={setLimit} placeholder="No limit" />
        <fieldset>
          <legend>Flag naming</legend>
          <Field label="Pattern (a regular expression new flag names must match)" value={pattern} onValue={setPattern} placeholder="^[a-z]+-[a-z-]+$" />
          <Field label="Example" value={example} onValue={setExample} placeholder="checkout-one-page" />
          <Field label="Explanation shown when creating a flag" value={namingHelp} onValue={setNamingHelp} />
        </fieldset>
        <ErrorBanner error={action.error} />
        {saved && <p class="muted" role="status">Saved.</p>}
        {writable && <button type="submit" disabled={action.busy}>Save settings</button>}
      </form>
    </Section>
  )
}

const Environments = ({ project }: { project: ApiProject }) => {
  const { can } = useSession()
  const all = useResource<{ environments: { name: string; type: string; enabled: boolean }[] }>('/api/admin/environments', false)
  const [editing, setEditing] = useState<string | undefined>()
  const action = useAction()
  const writable = can('UPDATE_PROJECT', project.id)
  const used = new Map(project.environments.map((e) => [e.environment, e]))
  const path = (environment: string) => `${projectPath(project.id)}/environments/${enc(environment)}`
  const setUsed = (environment: string, on: boolean) =>
    void action.run(() => (on ? post(`${projectPath(project.id)}/environments`, { environment }) : del(path(environment))))
  const current = editing ? used.get(editing)?.defaultStrategy : undefined
  return (
    <Section title="Environments and default strategies">
      <p class="muted">A new flag gets the default strategy in each environment the project uses, disabled until someone turns it on.</p>
      <ErrorBanner error={all.error ?? action.error} />
      {!all.data ? (
        !all.error && <Loading />
      ) : (
        <div class="table-wrap">
          <table>
            <thead><tr><th>Environment</th><th>Used</th><th>Default strategy</th><th><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {all.data.environments.map((env) => {
                const inProject = used.get(env.name)
                const strategy = inProject?.defaultStrategy
                return (
                  <tr key={env.name}>
                    <td>{env.name} <span class="muted">{env.type}</span></td>
                    <td><Switch label={`${project.name} uses ${env.name}`} checked={!!inProject} disabled={!writable} onToggle={() => setUsed(env.name, !inProject)} /></td>
                    <td>
                      {strategy ? (
                        <>
                          {strategyLabel(strategy.name)}
                          {strategy.parameters.rollout !== undefined && ` ${strategy.parameters.rollout}%`}
                          {strategy.constraints.map((c) => <div class="muted">{constraintText(c)}</div>)}
                        </>
                      ) : (
                        <span class="muted">—</span>
                      )}
                    </td>
                    <td>{writable && inProject && <button type="button" class="ghost" aria-label={`Edit default strategy in ${env.name}`} onClick={() => setEditing(env.name)}>Edit</button>}</td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      )}
      {editing && (
        <StrategyEditor
          flag=""
          title={`Default strategy in ${editing}`}
          initial={current ? ({ ...current, segments: current.segments ?? [], variants: current.variants ?? [] } as Strategy) : undefined}
          environment={editing}
          live={false}
          request={(s) => ({ method: 'POST', path: `${path(editing)}/default-strategy`, body: { name: s.name, title: s.title || undefined, parameters: s.parameters, constraints: s.constraints, segments: s.segments, variants: s.variants } })}
          onSave={(s) => post(`${path(editing)}/default-strategy`, { name: s.name, title: s.title || undefined, parameters: s.parameters, constraints: s.constraints, segments: s.segments, variants: s.variants })}
          onClose={() => setEditing(undefined)}
        />
      )}
    </Section>
  )
}

const ChangeRequestSettings = ({ project }: { project: string }) => {
  const { can } = useSession()
  const config = useCrConfig(project)
  const action = useAction()
  const writable = can('UPDATE_PROJECT', project)
  const setConfig = (environment: string, changeRequestsEnabled: boolean, requiredApprovals: number) =>
    void action.run(() => put(`${projectPath(project)}/environments/${enc(environment)}/change-requests/config`, { changeRequestsEnabled, requiredApprovals }))
  return (
    <Section title="Change request settings">
      <ErrorBanner error={config.error ?? action.error} />
      {!config.data ? (
        <Loading />
      ) : (
        <div class="table-wrap">
          <table>
            <thead><tr><th>Environment</th><th>Change requests required</th><th>Approvals needed</th></tr></thead>
            <tbody>
              {config.data.map((c) => (
                <tr>
                  <td>{c.environment}</td>
                  <td><Switch label={`Change requests in ${c.environment}`} checked={c.changeRequestEnabled} disabled={!writable} onToggle={() => setConfig(c.environment, !c.changeRequestEnabled, c.requiredApprovals)} /></td>
                  <td>
                    <input type="number" min={1} max={10} aria-label={`Approvals needed in ${c.environment}`} value={c.requiredApprovals} disabled={!writable}
                      onChange={(e) => setConfig(c.environment, c.changeRequestEnabled, Number(e.currentTarget.value))} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  )
}

const DeleteProject = ({ project }: { project: ApiProject }) => {
  const action = useAction()
  const confirm = useConfirm()
  const remove = async () => {
    if (!(await confirm.ask(`Delete project ${project.name}?`, 'The project and its settings are deleted. A project that still has flags (archived ones too) cannot be deleted.', 'Delete project', true))) return
    if (await action.run(() => del(projectPath(project.id)))) location.hash = href({ page: 'projects' })
  }
  return (
    <Section title="Delete project">
      <p class="muted">{project.featureCount > 0 ? `It has ${project.featureCount} flag(s): archive and delete them first.` : 'It has no flags.'}</p>
      <ErrorBanner error={action.error} />
      <button type="button" class="danger" onClick={() => void remove()}>Delete project</button>
      {confirm.element}
    </Section>
  )
}

export const SettingsTab = ({ project }: { project: string }) => {
  const { can } = useSession()
  const { data, loaded, error } = useProject(project)
  return (
    <>
      <ErrorBanner error={error} />
      {!loaded ? !error && <Loading /> : !data ? <p>No project {project}.</p> : (
        <>
          <General key={data.id} project={data} />
          <Environments project={data} />
          <ChangeRequestSettings project={project} />
          {can('DELETE_PROJECT', project) && <DeleteProject project={data} />}
        </>
      )}
    </>
  )
}
