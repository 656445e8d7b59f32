// The playground: a context in, per-flag results out, with each strategy's constraints and segments.
import { useState } from 'preact/hooks'
import { post, useResource } from '../api.js'
import { ErrorBanner, Field, Section, Select, useAction } from '../components.js'
import { constraintText, useContextFields, type Constraint } from './strategy-editor.js'

interface EvaluatedConstraint extends Constraint {
  result: boolean
}

interface PlaygroundFeature {
  name: string
  projectId: string
  isEnabled: boolean
  isEnabledInCurrentEnvironment: boolean
  hasUnsatisfiedDependency: boolean
  variant: { name: string; enabled: boolean; payload?: { type: string; value: string } }
  strategies: {
    result: boolean | 'unknown'
    data: {
      id: string
      name: string
      title?: string
      disabled: boolean
      parameters: Record<string, string>
      result: { enabled: boolean | 'unknown'; evaluationStatus: string }
      constraints: EvaluatedConstraint[]
      segments: { id: number; name: string; result: boolean; constraints: EvaluatedConstraint[] }[]
    }[]
  }
}

const Verdict = ({ on }: { on: boolean | 'unknown' }) => <span class={`verdict ${on === true ? 'on' : on === false ? 'off' : 'unknown'}`}>{on === true ? 'true' : on === false ? 'false' : 'unknown'}</span>

const ConstraintResults = ({ constraints }: { constraints: EvaluatedConstraint[] }) => (
  <ul class="facts">
    {constraints.map((c) => <li><Verdict on={c.result} /> {constraintText(c)}</li>)}
  </ul>
)

export const PlaygroundPage = () => {
  const environments = useResource<{ environments: { name: string }[] }>('/api/admin/environments', false)
  const fields = useContextFields()
  const [environment, setEnvironment] = useState('development')
  const [appName, setAppName] = useState('playground')
  const [userId, setUserId] = useState('')
  const [custom, setCustom] = useState<{ name: string; value: string }[]>([])
  const [result, setResult] = useState<{ features: PlaygroundFeature[]; asked: string } | undefined>()
  const { error, busy, run } = useAction()
  const submit = (e: Event) => {
    e.preventDefault()
    const context: Record<string, string> = { appName }
    if (userId) context.userId = userId
    for (const c of custom) if (c.name && c.value) context[c.name] = c.value
    const asked = `${environment}: ${Object.entries(context).map(([k, v]) => `${k}=${v}`).join(', ')}`
    void run(async () => setResult({ features: (await post<{ features: PlaygroundFeature[] }>('/api/admin/playground', { environment, context })).features, asked }))
  }
  const extraFields = (fields.data ?? []).map((f) => f.name).filter((n) => n !== 'appName' && n !== 'userId')
  return (
    <>
      <Section title="Playground">
        <form onSubmit={submit}>
          <div class="filters">
            <Select label="Environment" value={environment} onValue={setEnvironment} options={environments.data?.environments.map((e) => e.name) ?? [environment]} />
            <Field label="appName" value={appName} onValue={setAppName} required />
            <Field label="userId" value={userId} onValue={setUserId} />
          </div>
          {custom.map((c, i) => (
            <div class="filters">
              <Select label={`Context field ${i + 1}`} value={c.name} onValue={(name) => setCustom(custom.map((x, j) => (j === i ? { ...x, name } : x)))} options={[{ value: '', label: 'Choose…' }, ...extraFields]} />
              <Field label={`Value ${i + 1}`} value={c.value} onValue={(value) => setCustom(custom.map((x, j) => (j === i ? { ...x, value } : x)))} />
              <button type="button" class="ghost" onClick={() => setCustom(custom.filter((_, j) => j !== i))}>Remove</button>
            </div>
          ))}
          <button type="button" class="ghost" onClick={() => setCustom([...custom, { name: '', value: '' }])}>Add context field</button>
          <button type="submit" disabled={busy}>Evaluate</button>
        </form>
        <ErrorBanner error={error} />
      </Section>
      {result && (
        <Section title={`${result.features.length} flags for ${result.asked}`}>
          <table class="playground">
            <thead><tr><th>Flag</th><th>Project</th><th>Enabled</th><th>Variant</th></tr></thead>
            <tbody>
              {result.features.map((f) => (
                <>
                  <tr data-flag={f.name}>
                    <td>{f.name}</td>
                    <td>{f.projectId}</td>
                    <td data-testid="result"><Verdict on={f.isEnabled} />{!f.isEnabledInCurrentEnvironment && <span class="muted"> (off in {environment})</span>}{f.hasUnsatisfiedDependency && <span class="muted"> (parent not satisfied)</span>}</td>
                    <td>{f.variant.name}{f.variant.payload ? `: ${f.variant.payload.value}` : ''}</td>
                  </tr>
                  <tr class="explain">
                    <td colSpan={4}>
                      <details>
                        <summary>Why</summary>
                        {f.strategies.data.length === 0 && <p class="muted">No strategies.</p>}
                        <ol>
                          {f.strategies.data.map((s) => (
                            <li>
                              <Verdict on={s.result.enabled} /> <strong>{s.title || s.name}</strong>{s.disabled && ' (disabled)'}{' '}
                              <span class="muted">{Object.entries(s.parameters).map(([k, v]) => `${k}=${v}`).join(' ')}</span>
                              <ConstraintResults constraints={s.constraints} />
                              {s.segments.map((seg) => (
                                <div class="segment-result"><Verdict on={seg.result} /> segment {seg.name}<ConstraintResults constraints={seg.constraints} /></div>
                              ))}
                            </li>
                          ))}
                        </ol>
                      </details>
                    </td>
                  </tr>
                </>
              ))}
            </tbody>
          </table>
        </Section>
      )}
    </>
  )
}
