// What the signed-in user may do, from GET /api/admin/user's permission list: the UI hides what the
// API would refuse; the API still decides.
export interface PermissionEntry {
  permission: string
  project?: string
  environment?: string
}

export type Can = (permission: string | readonly string[], project?: string) => boolean

export const permissionChecker = (entries: readonly PermissionEntry[]): Can => {
  const admin = entries.some((e) => e.permission === 'ADMIN' && !e.project)
  return (permission, project) => {
    if (admin) return true
    const wanted = typeof permission === 'string' ? [permission] : permission
    return entries.some((e) => wanted.includes(e.permission) && (!e.project || e.project === project))
  }
}
