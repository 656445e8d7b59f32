import { render } from 'preact'
import { useEffect, useMemo, useState } from 'preact/hooks'
import { ApiError, get, onSignedOut, post } from './api.js'
import { ErrorBanner, Field, Loading, SessionContext, useAction, type Session } from './components.js'
import { permissionChecker, type PermissionEntry } from './lib/permissions.js'
import { href, pageTitle, parseRoute, type Route } from './lib/route.js'
import { AdminPage, adminSections } from './pages/admin.js'
import { ArchivePage } from './pages/archive.js'
import { ChangeRequestPage } from './pages/change-request.js'
import { EventsPage } from './pages/events.js'
import { FlagPage } from './pages/flag.js'
import { PlaygroundPage } from './pages/playground.js'
import { ProjectPage } from './pages/project.js'
import { ProjectsPage } from './pages/projects.js'
import './style.css'

interface Me {
  user: { id: number | null; username?: string | null; email?: string | null; name?: string | null }
  permissions: PermissionEntry[]
}

const useHashRoute = (): Route => {
  const [route, setRoute] = useState(() => parseRoute(location.hash))
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash))
    addEventListener('hashchange', onChange)
    return () => removeEventListener('hashchange', onChange)
  }, [])
  return route
}

const Login = ({ onSignedIn }: { onSignedIn: () => void }) => {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const { error, busy, run } = useAction()
  useEffect(() => {
    document.title = 'Sign in · Flagwright'
  }, [])
  const submit = (e: Event) => {
    e.preventDefault()
    void run(() => post('/auth/simple/login', { username, password })).then((ok) => ok && onSignedIn())
  }
  return (
    <main class="login">
      <form class="card" onSubmit={submit} aria-label="Sign in">
        <h1>Flagwright</h1>
        <Field label="Username or email" value={username} onValue={setUsername} autoComplete="username" required />
        <Field label="Password" type="password" value={password} onValue={setPassword} autoComplete="current-password" required />
        <ErrorBanner error={error} />
        <button type="submit" disabled={busy}>Sign in</button>
      </form>
    </main>
  )
}

const Page = ({ route }: { route: Route }) => {
  switch (route.page) {
    case 'projects':
      return <ProjectsPage />
    case 'project':
      return <ProjectPage project={route.project} tab={route.tab} />
    case 'flag':
      return <FlagPage project={route.project} flag={route.flag} />
    case 'change-request':
      return <ChangeRequestPage project={route.project} id={route.id} />
    case 'archive':
      return <ArchivePage />
    case 'playground':
      return <PlaygroundPage />
    case 'events':
      return <EventsPage />
    case 'admin':
      return <AdminPage section={route.section} />
    case 'not-found':
      return <p>Nothing at {route.path}. <a href="#/projects">Projects</a></p>
  }
}

const Shell = ({ session, route }: { session: Session; route: Route }) => {
  const [menuOpen, setMenuOpen] = useState(false)
  useEffect(() => {
    document.title = pageTitle(route, route.page === 'admin' ? adminSections.find((s) => s.id === route.section)?.title : undefined)
  }, [route])
  const active = (page: string, section?: string) =>
    route.page === page && (section === undefined || (route.page === 'admin' && route.section === section)) ? 'page' : undefined
  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href="#/projects">Flagwright</a>
        <button type="button" class="ghost menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>Menu</button>
        <span class="grow" />
        <span class="muted">{session.username}</span>
        <button type="button" class="ghost" onClick={session.signOut}>Sign out</button>
      </header>
      <nav id="nav" class={menuOpen ? 'open' : ''} aria-label="Main" onClick={() => setMenuOpen(false)}>
        <a href="#/projects" aria-current={active('projects') ?? active('project') ?? active('flag')}>Projects</a>
        <a href="#/archive" aria-current={active('archive')}>Archive</a>
        <a href="#/playground" aria-current={active('playground')}>Playground</a>
        {session.can('ADMIN') && <a href="#/events" aria-current={active('events')}>Event log</a>}
        {adminSections.filter((s) => !s.read || session.can(s.read)).map((s) => (
          <a href={href({ page: 'admin', section: s.id })} aria-current={active('admin', s.id)}>{s.title}</a>
        ))}
      </nav>
      <main class="content">
        <Page key={href(route)} route={route} />
      </main>
    </div>
  )
}

const App = () => {
  const route = useHashRoute()
  const [me, setMe] = useState<Me | null | undefined>(undefined)
  const [error, setError] = useState<string | undefined>()
  const loadMe = () =>
    get<Me>('/api/admin/user').then(
      (m) => setMe(m),
      (e: unknown) => (e instanceof ApiError && e.status === 401 ? setMe(null) : setError(String(e))),
    )
  useEffect(() => {
    void loadMe()
    return onSignedOut(() => setMe(null))
  }, [])
  const session = useMemo<Session | undefined>(
    () =>
      me
        ? {
            username: me.user.username ?? me.user.email ?? me.user.name ?? '',
            userId: me.user.id,
            can: permissionChecker(me.permissions),
            signOut: () => void post('/logout').finally(() => setMe(null)),
          }
        : undefined,
    [me],
  )
  if (error) return <ErrorBanner error={error} />
  if (me === undefined) return <Loading />
  if (!session) return <Login onSignedIn={() => void loadMe()} />
  return (
    <SessionContext.Provider value={session}>
      <Shell session={session} route={route} />
    </SessionContext.Provider>
  )
}

render(<App />, document.getElementById('app')!)
