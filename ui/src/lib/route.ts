// Hash routes (#/projects/default/flags/x): the server serves one page at / and needs no fallback.
export type Route =
  | { page: 'projects' }
  | { page: 'project'; project: string; tab: 'flags' | 'archive' | 'change-requests' | 'access' | 'settings' }
  | { page: 'flag'; project: string; flag: string }
  | { page: 'change-request'; project: string; id: number }
  | { page: 'archive' }
  | { page: 'playground' }
  | { page: 'events' }
  | { page: 'admin'; section: string }
  | { page: 'not-found'; path: string }

const enc = encodeURIComponent

export const href = (route: Route): string => {
  switch (route.page) {
    case 'projects':
      return '#/projects'
    case 'project':
      return route.tab === 'flags' ? `#/projects/${enc(route.project)}` : `#/projects/${enc(route.project)}/${route.tab}`
    case 'flag':
      return `#/projects/${enc(route.project)}/flags/${enc(route.flag)}`
    case 'change-request':
      return `#/projects/${enc(route.project)}/change-requests/${route.id}`
    case 'archive':
      return '#/archive'
    case 'playground':
      return '#/playground'
    case 'events':
      return '#/events'
    case 'admin':
      return `#/admin/${route.section}`
    case 'not-found':
      return `#${route.path}`
  }
}

// The page's title: what it shows, then where, then the application's name.
export const pageTitle = (route: Route, sectionTitle?: string): string => {
  const parts = (() => {
    switch (route.page) {
      case 'projects':
        return ['Projects']
      case 'project':
        return route.tab === 'flags' ? [route.project] : [{ archive: 'Archived flags', 'change-requests': 'Change requests', access: 'Access', settings: 'Settings' }[route.tab], route.project]
      case 'flag':
        return [route.flag, route.project]
      case 'change-request':
        return [`Change request #${route.id}`, route.project]
      case 'archive':
        return ['Archived flags']
      case 'playground':
        return ['Playground']
      case 'events':
        return ['Event log']
      case 'admin':
        return [sectionTitle ?? route.section]
      case 'not-found':
        return ['Not found']
    }
  })()
  return [...parts, 'Flagwright'].join(' · ')
}

const projectTabs = ['archive', 'change-requests', 'access', 'settings'] as const

export const parseRoute = (hash: string): Route => {
  const path = hash.replace(/^#/, '') || '/'
  const parts = path.split('/').filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p)
    } catch {
      return p
    }
  })
  const [first, project, third, fourth] = parts
  if (parts.length === 0 || (first === 'projects' && parts.length === 1)) return { page: 'projects' }
  if (first === 'projects' && project !== undefined) {
    if (parts.length === 2) return { page: 'project', project, tab: 'flags' }
    if (third === 'flags' && fourth !== undefined && parts.length === 4) return { page: 'flag', project, flag: fourth }
    if (third === 'change-requests' && fourth !== undefined && /^\d+$/.test(fourth)) return { page: 'change-request', project, id: Number(fourth) }
    const tab = projectTabs.find((t) => t === third)
    if (tab && parts.length === 3) return { page: 'project', project, tab }
  }
  if (first === 'archive' && parts.length === 1) return { page: 'archive' }
  if (first === 'playground' && parts.length === 1) return { page: 'playground' }
  if (first === 'events' && parts.length === 1) return { page: 'events' }
  if (first === 'admin' && project !== undefined && parts.length === 2) return { page: 'admin', section: project }
  return { page: 'not-found', path }
}
