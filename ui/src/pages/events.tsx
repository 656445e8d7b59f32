// The event log: the API filters by project or flag; type and user are filtered here over what it returns.
import { useMemo, useState } from 'preact/hooks'
import { enc, useResource } from '../api.js'
import { ErrorBanner, Field, Loading, Section, when } from '../components.js'
import { EventDiff } from './flag.js'
import { useSegmentName } from './strategy-editor.js'

interface LogEvent {
  id: number
  type: string
  createdAt: string
  createdBy: string
  project: string | null
  featureName: string | null
  environment: string | null
  data: unknown
  preData: unknown
}

const pageSize = 25

export const EventsPage = () => {
  const segmentName = useSegmentName()
  const [type, setType] = useState('')
  const [project, setProject] = useState('')
  const [flag, setFlag] = useState('')
  const [user, setUser] = useState('')
  const [page, setPage] = useState(0)
  const path = flag.trim()
    ? `/api/admin/events/${enc(flag.trim())}`
    : project.trim()
      ? `/api/admin/events?project=${enc(project.trim())}`
      : '/api/admin/events'
  const { data, error } = useResource<{ events: LogEvent[]; totalEvents: number }>(path)
  const shown = useMemo(
    () =>
      (data?.events ?? []).filter(
        (e) =>
          (!type || e.type.includes(type.trim())) &&
          (!user || e.createdBy.toLowerCase().includes(user.trim().toLowerCase())) &&
          (!project.trim() || e.project === project.trim()),
      ),
    [data, type, user, project],
  )
  const pages = Math.max(1, Math.ceil(shown.length / pageSize))
  const current = Math.min(page, pages - 1)
  const filter = (set: (v: string) => void) => (v: string) => {
    set(v)
    setPage(0)
  }
  return (
    <Section title="Event log">
      <div class="filters" role="search">
        <Field label="Type" value={type} onValue={filter(setType)} placeholder="feature-created" />
        <Field label="Project" value={project} onValue={filter(setProject)} />
        <Field label="Flag" value={flag} onValue={filter(setFlag)} />
        <Field label="User" value={user} onValue={filter(setUser)} />
      </div>
      <ErrorBanner error={error} />
      {!data ? (
        !error && <Loading />
      ) : (
        <>
          <p class="muted">{shown.length} events shown of {data.totalEvents}</p>
          <ol class="history">
            {shown.slice(current * pageSize, (current + 1) * pageSize).map((e) => (
              <li>
                <details>
                  <summary>
                    <strong>{e.type}</strong> {e.project && <span class="badge">{e.project}</span>} {e.featureName} {e.environment && <span class="badge">{e.environment}</span>} by {e.createdBy} · {when(e.createdAt)}
                  </summary>
                  <EventDiff before={e.preData} after={e.data} segmentName={segmentName} />
                </details>
              </li>
            ))}
          </ol>
          <nav class="pager" aria-label="Pages">
            <button type="button" class="ghost" disabled={current === 0} onClick={() => setPage(current - 1)}>Previous</button>
            <span>Page {current + 1} of {pages}</span>
            <button type="button" class="ghost" disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>Next</button>
          </nav>
        </>
      )}
    </Section>
  )
}
