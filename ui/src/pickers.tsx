// Choices from what exists instead of free text: an environment, a project, a set of projects.
import { useResource } from './api.js'
import type { ApiProjects } from './api-types.js'
import { Checkbox, Select, useFieldId } from './components.js'

const useEnvironments = () => useResource<{ environments: { name: string; enabled: boolean }[] }>('/api/admin/environments', false)
const useProjects = () => useResource<ApiProjects>('/api/admin/projects', false)

export const EnvironmentPicker = ({ label, value, onValue }: { label: string; value: string; onValue: (v: string) => void }) => {
  const { data } = useEnvironments()
  const names = data?.environments.map((e) => e.name) ?? (value ? [value] : [])
  return <Select label={label} value={value} onValue={onValue} options={names} />
}

// One project, or none for every project (a segment's scope).
export const ProjectPicker = ({ label, value, onValue, none }: { label: string; value: string; onValue: (v: string) => void; none: string }) => {
  const { data } = useProjects()
  const projects = data?.projects.map((p) => ({ value: p.id, label: p.name })) ?? (value ? [{ value, label: value }] : [])
  return <Select label={label} value={value} onValue={onValue} options={[{ value: '', label: none }, ...projects]} />
}

// Some projects, or all ('*', which includes projects made later).
export const ProjectsPicker = ({ label, value, onValue }: { label: string; value: string[]; onValue: (v: string[]) => void }) => {
  const { data } = useProjects()
  const id = useFieldId()
  const all = value.includes('*')
  return (
    <fieldset class="picker" aria-labelledby={id}>
      <legend id={id}>{label}</legend>
      <Checkbox label="All projects (also those made later)" checked={all} onChecked={(on) => onValue(on ? ['*'] : [])} />
      {!all &&
        data?.projects.map((p) => (
          <Checkbox label={p.name} checked={value.includes(p.id)} onChecked={(on) => onValue(on ? [...value, p.id] : value.filter((x) => x !== p.id))} />
        ))}
    </fieldset>
  )
}
