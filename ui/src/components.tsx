// Small shared pieces: labelled fields, switches, error banners, an action runner.
import type { ComponentChildren } from 'preact'
import { createContext } from 'preact'
import { useContext, useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { Can } from './lib/permissions.js'

export interface Session {
  username: string
  userId: number | null
  can: Can
  signOut: () => void
}

export const SessionContext = createContext<Session>({ username: '', userId: null, can: () => false, signOut: () => {} })
export const useSession = () => useContext(SessionContext)

let nextId = 0
export const useFieldId = () => useState(() => `f${++nextId}`)[0]

// The few input attributes the pages use.
interface InputExtras {
  type?: 'text' | 'search' | 'password' | 'number' | 'datetime-local' | 'email'
  required?: boolean
  pattern?: string
  placeholder?: string
  autoFocus?: boolean
  autoComplete?: string
  min?: number
  max?: number
  step?: string
}

type InputProps = InputExtras & {
  label: string
  value: string
  onValue: (value: string) => void
}

export const Field = ({ label, value, onValue, ...rest }: InputProps) => {
  const id = useFieldId()
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} value={value} onInput={(e) => onValue(e.currentTarget.value)} {...(rest as object)} />
    </div>
  )
}

export const Select = ({ label, value, onValue, options }: {
  label: string
  value: string
  onValue: (value: string) => void
  options: readonly (string | { value: string; label: string })[]
}) => {
  const id = useFieldId()
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onValue(e.currentTarget.value)}>
        {options.map((o) => (typeof o === 'string' ? <option value={o}>{o}</option> : <option value={o.value}>{o.label}</option>))}
      </select>
    </div>
  )
}

export const TextArea = ({ label, value, onValue, rows = 3 }: { label: string; value: string; onValue: (v: string) => void; rows?: number }) => {
  const id = useFieldId()
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea id={id} rows={rows} value={value} onInput={(e) => onValue(e.currentTarget.value)} />
    </div>
  )
}

export const Checkbox = ({ label, checked, onChecked }: { label: string; checked: boolean; onChecked: (v: boolean) => void }) => (
  <label class="check">
    <input type="checkbox" checked={checked} onChange={(e) => onChecked(e.currentTarget.checked)} /> {label}
  </label>
)

export const Switch = ({ label, checked, disabled, onToggle }: { label: string; checked: boolean; disabled?: boolean; onToggle: () => void }) => (
  <button type="button" role="switch" class="switch" aria-checked={checked} aria-label={label} title={label} disabled={disabled} onClick={onToggle}>
    <span class="knob" />
  </button>
)

export const ErrorBanner = ({ error }: { error: string | undefined }) => (error ? <p class="error" role="alert">{error}</p> : null)

export const Loading = () => <p class="muted" aria-busy="true">Loading…</p>

// Runs a write, keeps its error for display, and reports whether it is running.
export const useAction = () => {
  const [error, setError] = useState<string | undefined>()
  const [busy, setBusy] = useState(false)
  const run = async (action: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true)
    setError(undefined)
    try {
      await action()
      return true
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
      return false
    } finally {
      setBusy(false)
    }
  }
  return { error, busy, run, setError }
}

export const Section = ({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) => {
  const id = useFieldId()
  return (
    <section class="card" aria-labelledby={id}>
      <header class="card-head">
        <h2 id={id}>{title}</h2>
        {actions && <div class="actions">{actions}</div>}
      </header>
      {children}
    </section>
  )
}

// The platform's modal <dialog>: focus moves to its first field and back to where it was on close;
// Escape and a click on the backdrop close it through onClose, so the page's state says what is open.
export const Dialog = ({ title, onClose, children }: { title: string; onClose: () => void; children: ComponentChildren }) => {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useFieldId()
  const close = useRef(onClose)
  close.current = onClose
  const unmounted = useRef(false)
  useLayoutEffect(() => {
    const dialog = ref.current!
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : undefined
    dialog.showModal()
    const first = dialog.querySelector<HTMLElement>('.dialog-body :is(input, select, textarea, button):not(:disabled)')
    first?.focus()
    return () => {
      unmounted.current = true
      dialog.close()
      if (opener?.isConnected) opener.focus()
    }
  }, [])
  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault()
        close.current()
      }}
      onClick={(e) => e.target === ref.current && close.current()}
      // Chromium may close it on Escape without a cancellable cancel event: the page follows.
      onClose={() => !unmounted.current && close.current()}
    >
      <div class="dialog-inner">
        <header class="card-head">
          <h2 id={titleId}>{title}</h2>
          <button type="button" class="ghost" aria-label="Close" onClick={onClose}>×</button>
        </header>
        <div class="dialog-body">{children}</div>
      </div>
    </dialog>
  )
}

// A question before a write: resolves true when the person confirms. The page renders `element`.
export const useConfirm = () => {
  const [asking, setAsking] = useState<{ title: string; message: ComponentChildren; confirm: string; danger: boolean; resolve: (ok: boolean) => void }>()
  const ask = (title: string, message: ComponentChildren, confirm: string, danger = false) =>
    new Promise<boolean>((resolve) => setAsking({ title, message, confirm, danger, resolve }))
  const answer = (ok: boolean) => {
    asking?.resolve(ok)
    setAsking(undefined)
  }
  const element = asking && (
    <Dialog title={asking.title} onClose={() => answer(false)}>
      <p>{asking.message}</p>
      <div class="actions">
        <button type="button" class={asking.danger ? 'danger' : ''} onClick={() => answer(true)}>{asking.confirm}</button>
        <button type="button" class="ghost" onClick={() => answer(false)}>Cancel</button>
      </div>
    </Dialog>
  )
  return { ask, element }
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—')
