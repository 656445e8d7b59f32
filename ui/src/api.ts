// The UI's only way to the server: the public admin API with the session cookie.
import { useEffect, useRef, useState } from 'preact/hooks'

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

type Listener = () => void
const signedOutListeners = new Set<Listener>()
export const onSignedOut = (listener: Listener) => {
  signedOutListeners.add(listener)
  return () => signedOutListeners.delete(listener)
}

const changeListeners = new Set<Listener>()
// After a write, every open resource reloads at once rather than at its next poll.
export const onWrite = (listener: Listener) => {
  changeListeners.add(listener)
  return () => changeListeners.delete(listener)
}

const errorMessage = async (res: Response): Promise<string> => {
  const text = await res.text()
  try {
    const body = JSON.parse(text) as { message?: string; details?: { message?: string }[] }
    return body.details?.[0]?.message ?? body.message ?? `${res.status} ${res.statusText}`
  } catch {
    return text || `${res.status} ${res.statusText}`
  }
}

export const request = async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (res.status === 401 && path !== '/auth/simple/login') for (const l of signedOutListeners) l()
  if (!res.ok) throw new ApiError(res.status, await errorMessage(res))
  if (method !== 'GET') for (const l of changeListeners) l()
  const text = await res.text()
  return (text ? JSON.parse(text) : undefined) as T
}

export const get = <T>(path: string) => request<T>('GET', path)
export const post = <T = unknown>(path: string, body?: unknown) => request<T>('POST', path, body)
export const put = <T = unknown>(path: string, body?: unknown) => request<T>('PUT', path, body)
export const del = <T = unknown>(path: string) => request<T>('DELETE', path)

export const enc = encodeURIComponent

export interface Resource<T> {
  data: T | undefined
  error: string | undefined
  reload: () => void
}

const pollMs = 2000

// A read kept fresh: polled with If-None-Match (a 304 costs the server no body), reloaded after any
// write made from this page, and paused while the tab is hidden.
export const useResource = <T>(path: string | undefined, poll = true): Resource<T> => {
  const [state, setState] = useState<{ path?: string; data?: T; error?: string }>({})
  const etag = useRef<string | undefined>(undefined)
  const [tick, setTick] = useState(0)
  useEffect(() => {
    etag.current = undefined
  }, [path])
  useEffect(() => {
    if (!path) return
    let cancelled = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const load = async () => {
      clearTimeout(timer)
      if (document.visibilityState !== 'hidden') {
        try {
          const res = await fetch(path, { credentials: 'same-origin', headers: etag.current ? { 'if-none-match': etag.current } : {} })
          if (cancelled) return
          if (res.status === 401) for (const l of signedOutListeners) l()
          if (res.status === 304) {
            // unchanged
          } else if (!res.ok) {
            setState({ path, error: await errorMessage(res) })
          } else {
            etag.current = res.headers.get('etag') ?? undefined
            const data = (await res.json()) as T
            if (!cancelled) setState({ path, data })
          }
        } catch (error) {
          if (!cancelled) setState((s) => ({ ...s, path, error: String(error) }))
        }
      }
      if (!cancelled && poll) timer = setTimeout(load, pollMs)
    }
    void load()
    const off = onWrite(() => void load())
    return () => {
      cancelled = true
      clearTimeout(timer)
      off()
    }
  }, [path, tick, poll])
  const current = state.path === path
  return { data: current ? state.data : undefined, error: current ? state.error : undefined, reload: () => setTick((t) => t + 1) }
}
export const patch = <T = unknown>(path: string, body?: unknown) => request<T>('PATCH', path, body)
