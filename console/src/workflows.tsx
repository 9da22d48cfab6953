/** Workflows the key sees, a form to run one, the account's runs, and one run's live event stream. */
import { useEffect, useState } from 'preact/hooks';
import { call, describeError, storedKey } from './api';
import { ErrorLine, Json, Section, Status } from './components';
import { when } from './format';
import { usePoll } from './poll';
import { followRun, type RunEvent } from './sse';

interface Workflow {
  readonly slug: string;
  readonly name: string;
  readonly description?: string;
  readonly scope: string;
  readonly steps: ReadonlyArray<{ id: string; agent: string; tools?: ReadonlyArray<{ name: string; risk: string }> }>;
}

interface Run {
  readonly execution_id: string;
  readonly status: string;
  readonly workflow_slug: string;
  readonly created_at: string;
  readonly completed_at: string | null;
  readonly final_answer: string | null;
  readonly waiting_for_approval: string | null;
  readonly error: { code: string; message: string } | null;
}

function RunForm({ workflows }: { workflows: readonly Workflow[] }) {
  const [slug, setSlug] = useState('');
  const [task, setTask] = useState('');
  const [error, setError] = useState<string | null>(null);
  const chosen = slug === '' ? (workflows[0]?.slug ?? '') : slug;
  const run = async (event: Event): Promise<void> => {
    event.preventDefault();
    try {
      const started = await call<{ execution_id: string }>('POST', `/v1/workflows/${encodeURIComponent(chosen)}/run`, { task });
      location.hash = `#/runs/${started.execution_id}`;
    } catch (e) {
      setError(describeError(e));
    }
  };
  if (workflows.length === 0) return <p class="empty">No workflows: POST /v1/workflows (or BATON_WORKFLOWS_DIR) adds one.</p>;
  return (
    <form class="run-form" onSubmit={(e) => void run(e)}>
      <select aria-label="Workflow" value={chosen} onChange={(e) => setSlug(e.currentTarget.value)}>
        {workflows.map((w) => (
          <option value={w.slug}>{w.name} ({w.slug})</option>
        ))}
      </select>
      <input aria-label="Task" placeholder="Task" maxLength={10000} value={task} onInput={(e) => setTask(e.currentTarget.value)} required />
      <button type="submit">Run</button>
      <ErrorLine message={error} />
    </form>
  );
}

export function Workflows() {
  const defs = usePoll(() => call<{ workflows: Workflow[] }>('GET', '/v1/workflows'), 10_000, []);
  const runs = usePoll(() => call<{ runs: Run[] }>('GET', '/v1/workflow-runs?limit=50'), 2_000, []);
  return (
    <>
      <Section title="Workflows">
        <ErrorLine message={defs.error} />
        <ul class="workflows">
          {(defs.data?.workflows ?? []).map((w) => (
            <li key={w.slug}>
              <strong>{w.name}</strong> <small>{w.slug} · {w.scope}</small>
              <br />
              <small>{w.steps.map((s) => `${s.id} → ${s.agent}${(s.tools ?? []).length > 0 ? ` [${(s.tools ?? []).map((t) => `${t.name}${t.risk === 'high' ? ' (high risk)' : ''}`).join(', ')}]` : ''}`).join(' · ')}</small>
            </li>
          ))}
        </ul>
        {defs.data !== null && <RunForm workflows={defs.data.workflows} />}
      </Section>
      <Section title="Runs">
        <ErrorLine message={runs.error} />
        <table>
          <thead>
            <tr><th>Run</th><th>Workflow</th><th>Status</th><th>Waiting for</th><th>Created</th></tr>
          </thead>
          <tbody>
            {(runs.data?.runs ?? []).map((r) => (
              <tr key={r.execution_id}>
                <td><a href={`#/runs/${r.execution_id}`}>{r.execution_id}</a></td>
                <td>{r.workflow_slug}</td>
                <td><Status value={r.status} /></td>
                <td>{r.waiting_for_approval === null ? '–' : <a href="#/approvals">{r.waiting_for_approval}</a>}</td>
                <td>{when(r.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
    </>
  );
}

export function RunDetail({ id }: { id: string }) {
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [state, setState] = useState('connecting');
  const run = usePoll(() => call<Run>('GET', `/v1/workflows/execute/${encodeURIComponent(id)}`), 3_000, [id]);
  useEffect(() => {
    setEvents([]);
    const key = storedKey();
    if (key === null) return undefined;
    return followRun(id, key, (event) => setEvents((list) => [...list, event]), setState);
  }, [id]);
  const done = events.find((e) => e.type === 'done');
  return (
    <Section title={`Run ${id}`}>
      <p><a href="#/workflows">← workflows and runs</a></p>
      <ErrorLine message={run.error} />
      <dl class="facts">
        <dt>Status</dt><dd><Status value={done?.data.status ?? run.data?.status} /></dd>
        <dt>Stream</dt><dd class="stream-state">{state}</dd>
        {run.data?.waiting_for_approval ? (<><dt>Waiting for</dt><dd><a href="#/approvals">{run.data.waiting_for_approval}</a></dd></>) : null}
        {done?.data.final_answer != null ? (<><dt>Final answer</dt><dd class="final-answer">{String(done.data.final_answer)}</dd></>) : null}
      </dl>
      <ol class="events">
        {events.map((e) => (
          <li key={`${e.id ?? 'x'}-${e.type}`} class={`event event-${e.type}`}>
            <span class="event-id">{e.id ?? ''}</span> <strong>{e.type}</strong>
            <Json value={e.data} />
          </li>
        ))}
      </ol>
    </Section>
  );
}
