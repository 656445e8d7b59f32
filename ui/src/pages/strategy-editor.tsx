// Edits one strategy: its parameters (rollout slider, stickiness, groupId for flexibleRollout), its
// constraints with an input that fits each operator, its segments and its variants.
import { useState } from 'preact/hooks'
import { useResource } from '../api.js'
import type { ApiConstraint } from '../api-types.js'
import { Checkbox, Dialog, ErrorBanner, Field, Select, useAction, useFieldId } from '../components.js'
import { curlCommand, parameterLabel, strategyLabel } from '../lib/strategies.js'
import { caseInsensitiveApplies, inputKind, operators, splitValues, toIsoInstant, toLocalInput, valueProblem } from '../lib/operators.js'

export type Constraint = ApiConstraint

export interface Variant {
  name: string
  weight: number
  // 'variable' or 'fix'
  weightType?: string
  stickiness?: string
  payload?: { type: string; value: string }
}

export interface Strategy {
  id?: string
  name: string
  title?: string | null
  disabled?: boolean
  parameters: Record<string, string>
  constraints: Constraint[]
  segments: number[]
  variants: Variant[]
}

interface StrategyType {
  name: string
  displayName?: string | null
  description?: string | null
  deprecated: boolean
  parameters: { name: string; type: string; description: string; required: boolean }[]
}

export interface ContextField {
  name: string
  stickiness: boolean
  legalValues: { value: string }[]
}

export const useStrategyTypes = () => useResource<{ strategies: StrategyType[] }>('/api/admin/strategies', false)
export const useContextFields = () => useResource<ContextField[]>('/api/admin/context', false)
export const useSegments = () => useResource<{ segments: { id: number; name: string; description: string | null }[] }>('/api/admin/segments', false)
// A segment's name by its id (#id while the list loads or for one deleted since).
export const useSegmentName = () => {
  const segments = useSegments()
  return (id: number) => segments.data?.segments.find((s) => s.id === id)?.name ?? `#${id}`
}

const ListEditor = ({ label, values, onValues, legal }: { label: string; values: string[]; onValues: (v: string[]) => void; legal: string[] }) => {
  const [text, setText] = useState('')
  const id = useFieldId()
  const add = () => {
    onValues(splitValues(text, values))
    setText('')
  }
  return (
    <div class="list-editor">
      <div class="field">
        <label for={id}>{label}</label>
          <input
            id={id}
            class="wide"
            value={text}
            list={legal.length ? `legal-${id}` : undefined}
            placeholder="Type values, Enter to add (commas split)"
            onInput={(e) => setText(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault()
                add()
              }
            }}
          />
        {legal.length > 0 && <datalist id={`legal-${id}`}>{legal.map((v) => <option value={v} />)}</datalist>}
      </div>
      <button type="button" class="ghost" onClick={add} disabled={!text.trim()}>Add values</button>
      <ul class="chips" aria-label={`Chosen ${label.toLowerCase()}`}>
        {values.map((v) => (
          <li>
            {v} <button type="button" class="ghost" aria-label={`Remove ${v}`} onClick={() => onValues(values.filter((x) => x !== v))}>×</button>
          </li>
        ))}
      </ul>
    </div>
  )
}

export const ConstraintEditor = ({ constraint, index, fields, onChange, onRemove }: {
  constraint: Constraint
  index: number
  fields: ContextField[]
  onChange: (c: Constraint) => void
  onRemove: () => void
}) => {
  const kind = inputKind(constraint.operator)
  const n = index + 1
  const legal = fields.find((f) => f.name === constraint.contextName)?.legalValues.map((v) => v.value) ?? []
  const setOperator = (operator: string) => {
    const sameKind = inputKind(operator) === kind
    onChange({ ...constraint, operator, values: sameKind ? constraint.values : [], value: sameKind ? constraint.value : '' })
  }
  const problem = kind === 'list' ? undefined : valueProblem(constraint.operator, constraint.value ?? '')
  return (
    <fieldset class="constraint">
      <legend>Constraint {n}</legend>
      <Select label="Context field" value={constraint.contextName} onValue={(contextName) => onChange({ ...constraint, contextName })} options={fields.map((f) => f.name)} />
      <Select label="Operator" value={constraint.operator} onValue={setOperator} options={operators} />
      <Checkbox label="Negate (NOT)" checked={!!constraint.inverted} onChecked={(inverted) => onChange({ ...constraint, inverted })} />
      {caseInsensitiveApplies(constraint.operator) && (
        <Checkbox label="Case insensitive" checked={!!constraint.caseInsensitive} onChecked={(caseInsensitive) => onChange({ ...constraint, caseInsensitive })} />
      )}
      {kind === 'list' && <ListEditor label="Values" values={constraint.values ?? []} onValues={(values) => onChange({ ...constraint, values })} legal={legal} />}
      {kind === 'number' && <Field label="Number" type="number" step="any" value={constraint.value ?? ''} onValue={(value) => onChange({ ...constraint, value })} />}
      {kind === 'semver' && <Field label="Version" placeholder="1.2.3" value={constraint.value ?? ''} onValue={(value) => onChange({ ...constraint, value })} />}
      {kind === 'date' && (
        <Field label="Date" type="datetime-local" value={toLocalInput(constraint.value)} onValue={(v) => onChange({ ...constraint, value: v ? toIsoInstant(v) : '' })} />
      )}
      {problem && <p class="hint" role="status">{problem}</p>}
      <button type="button" class="ghost danger" onClick={onRemove}>Remove constraint {n}</button>
    </fieldset>
  )
}

export const VariantsEditor = ({ variants, onChange, stickinessOptions, label }: { variants: Variant[]; onChange: (v: Variant[]) => void; stickinessOptions: string[]; label: string }) => {
  const set = (i: number, patch: Partial<Variant>) => onChange(variants.map((v, j) => (j === i ? { ...v, ...patch } : v)))
  const fixed = variants.filter((v) => v.weightType === 'fix').reduce((s, v) => s + v.weight, 0)
  const variable = variants.filter((v) => v.weightType !== 'fix').length
  const share = (v: Variant) => (v.weightType === 'fix' ? v.weight / 10 : variable ? (1000 - fixed) / variable / 10 : 0)
  return (
    <fieldset class="variants">
      <legend>{label}</legend>
      {variants.map((v, i) => (
        <fieldset class="variant-row">
          <legend>Variant {i + 1}</legend>
          <Field label="Name" value={v.name} onValue={(name) => set(i, { name })} required />
          <Checkbox label="Fixed weight" checked={v.weightType === 'fix'} onChecked={(fix) => set(i, { weightType: fix ? 'fix' : 'variable' })} />
          {v.weightType === 'fix' ? (
            <Field label="Weight (%)" type="number" min={0} max={100} step="0.1" value={String(v.weight / 10)} onValue={(w) => set(i, { weight: Math.round(Number(w) * 10) })} />
          ) : (
            <span class="muted">{share(v).toFixed(1)}%</span>
          )}
          <Select label="Stickiness" value={v.stickiness ?? 'default'} onValue={(stickiness) => set(i, { stickiness })} options={stickinessOptions} />
          <Select
            label="Payload type"
            value={v.payload?.type ?? ''}
            onValue={(type) => set(i, { payload: type ? { type, value: v.payload?.value ?? '' } : undefined })}
            options={[{ value: '', label: 'No payload' }, 'string', 'json', 'csv', 'number']}
          />
          {v.payload && <Field label="Payload" value={v.payload.value} onValue={(value) => set(i, { payload: { type: v.payload!.type, value } })} />}
          <button type="button" class="ghost danger" onClick={() => onChange(variants.filter((_, j) => j !== i))}>Remove variant {i + 1}</button>
        </fieldset>
      ))}
      <button type="button" class="ghost" onClick={() => onChange([...variants, { name: '', weight: 0, weightType: 'variable', stickiness: 'default' }])}>Add variant</button>
    </fieldset>
  )
}

// Variable weights share what fixed ones leave, in tenths of a percent (the API checks they sum to 1000).
export const withWeights = (variants: Variant[]): Variant[] => {
  const fixed = variants.filter((v) => v.weightType === 'fix').reduce((s, v) => s + v.weight, 0)
  const variable = variants.filter((v) => v.weightType !== 'fix')
  const each = variable.length ? Math.floor((1000 - fixed) / variable.length) : 0
  let rest = variable.length ? 1000 - fixed - each * variable.length : 0
  return variants.map((v) => {
    if (v.weightType === 'fix') return v
    const extra = rest > 0 ? 1 : 0
    rest -= extra
    return { ...v, weightType: 'variable', weight: each + extra }
  })
}

// What saving a strategy sends, so that the editor can show it as a shell command.
export interface StrategyRequest {
  method: string
  path: string
  body: unknown
}

export const StrategyEditor = ({ flag, title, initial, environment, live, request, onSave, onClose }: {
  // The flag's name, the default group id; '' for a project's default strategy (each flag's name then).
  flag: string
  title?: string
  initial?: Strategy
  environment: string
  // The flag is on in this environment: saving changes what users get now.
  live: boolean
  request: (s: Strategy) => StrategyRequest
  onSave: (s: Strategy) => Promise<unknown>
  onClose: () => void
}) => {
  const types = useStrategyTypes()
  const fields = useContextFields()
  const segments = useSegments()
  const [s, setS] = useState<Strategy>(
    initial ?? { name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId: flag }, constraints: [], segments: [], variants: [] },
  )
  const { error, busy, run } = useAction()
  const type = types.data?.strategies.find((t) => t.name === s.name)
  const stickiness = ['default', 'random', ...(fields.data?.filter((f) => f.stickiness).map((f) => f.name) ?? ['userId', 'sessionId'])]
  const setParam = (name: string, value: string) => setS({ ...s, parameters: { ...s.parameters, [name]: value } })
  const setType = (name: string) =>
    setS({ ...s, name, parameters: name === 'flexibleRollout' ? { rollout: '100', stickiness: 'default', groupId: flag } : {} })
  const submit = (e: Event) => {
    e.preventDefault()
    void run(() => onSave({ ...s, variants: withWeights(s.variants) })).then((ok) => ok && onClose())
  }
  const call = request({ ...s, variants: withWeights(s.variants) })
  const percentage = (name: string) => {
    const value = s.parameters[name] ?? '0'
    const label = parameterLabel(name)
    return (
      <div class="field">
        <label for={`param-${name}`}>{label}</label>
        <div class="percentage">
          <input id={`param-${name}`} type="range" min={0} max={100} value={value} onInput={(e) => setParam(name, e.currentTarget.value)} />
          <input type="number" min={0} max={100} step={1} aria-label={`${label} percentage`} value={value} onInput={(e) => setParam(name, e.currentTarget.value)} />
          <span aria-hidden="true">%</span>
        </div>
      </div>
    )
  }
  return (
    <Dialog title={title ?? (initial ? `Edit strategy ${initial.title || strategyLabel(initial.name, type?.displayName)}` : 'Add strategy')} onClose={onClose}>
      <form onSubmit={submit} class="strategy-form">
        <Select
          label="Strategy"
          value={s.name}
          onValue={setType}
          options={(types.data?.strategies ?? [{ name: s.name, deprecated: false, parameters: [] }]).filter((t) => !t.deprecated || t.name === s.name).map((t) => ({ value: t.name, label: strategyLabel(t.name, t.displayName) }))}
        />
        {type?.description && <p class="muted">{type.description}</p>}
        <Field label="Title" value={s.title ?? ''} onValue={(title) => setS({ ...s, title })} placeholder="Optional: what this strategy is for" />
        <Checkbox label="Disabled" checked={!!s.disabled} onChecked={(disabled) => setS({ ...s, disabled })} />
        {type?.parameters.map((p) =>
          p.type === 'percentage' ? (
            percentage(p.name)
          ) : p.name === 'stickiness' ? (
            <Select label="Stickiness" value={s.parameters.stickiness ?? 'default'} onValue={(v) => setParam('stickiness', v)} options={stickiness} />
          ) : p.type === 'boolean' ? (
            <Checkbox label={parameterLabel(p.name)} checked={s.parameters[p.name] === 'true'} onChecked={(v) => setParam(p.name, String(v))} />
          ) : p.type === 'list' ? (
            <ListEditor label={parameterLabel(p.name)} values={(s.parameters[p.name] ?? '').split(',').filter(Boolean)} onValues={(v) => setParam(p.name, v.join(','))} legal={[]} />
          ) : (
            <Field label={parameterLabel(p.name)} type={p.type === 'number' ? 'number' : 'text'} value={s.parameters[p.name] ?? ''} onValue={(v) => setParam(p.name, v)} required={p.required && !(p.name === 'groupId' && flag === '')} />
          ),
        )}
        <h3>Constraints</h3>
        <p class="muted">{s.constraints.length === 0 ? 'None: the strategy applies to every context.' : 'Every constraint must match (AND).'}</p>
        {s.constraints.map((c, i) => (
          <>
            {i > 0 && <p class="joiner" aria-hidden="true">AND</p>}
            <ConstraintEditor
              constraint={c}
              index={i}
              fields={fields.data ?? []}
              onChange={(next) => setS({ ...s, constraints: s.constraints.map((x, j) => (j === i ? next : x)) })}
              onRemove={() => setS({ ...s, constraints: s.constraints.filter((_, j) => j !== i) })}
            />
          </>
        ))}
        <button type="button" class="ghost" onClick={() => setS({ ...s, constraints: [...s.constraints, { contextName: 'userId', operator: 'IN', values: [] }] })}>Add constraint</button>
        <h3>Segments</h3>
        {segments.data?.segments.length ? (
          segments.data.segments.map((seg) => (
            <Checkbox
              label={`Segment ${seg.name}`}
              checked={s.segments.includes(seg.id)}
              onChecked={(on) => setS({ ...s, segments: on ? [...s.segments, seg.id] : s.segments.filter((id) => id !== seg.id) })}
            />
          ))
        ) : (
          <p class="muted">No segments.</p>
        )}
        <VariantsEditor label="Strategy variants" variants={s.variants} onChange={(variants) => setS({ ...s, variants })} stickinessOptions={stickiness} />
        <details class="api-command">
          <summary>API command</summary>
          <pre><code>{curlCommand(call.method, `${location.origin}${call.path}`, call.body)}</code></pre>
        </details>
        {live && <p class="notice" role="status">The flag is on in {environment}: saving changes what users get there right away.</p>}
        <ErrorBanner error={error} />
        <div class="actions">
          <button type="submit" disabled={busy}>Save strategy</button>
          <button type="button" class="ghost" onClick={onClose}>Cancel</button>
        </div>
      </form>
    </Dialog>
  )
}

export const constraintText = (c: Constraint) =>
  `${c.contextName} ${c.inverted ? 'NOT ' : ''}${c.operator} ${c.values?.length ? c.values.join(', ') : (c.value ?? '')}${c.caseInsensitive ? ' (case-insensitive)' : ''}`
