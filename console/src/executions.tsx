/** Live executions (GET /v1/executions, re-read every 2 s) and one execution's detail. */
import { useState } from 'preact/hooks';
import { call } from './api';
import { ErrorLine, Json, Section, Status } from './components';
import { usd, when } from './format';
import { usePoll } from './poll';

interface Execution {
  readonly id: string;
  readonly status: string;
  readonly query: string;
  readonly estimatedCost: number;
  readonly progress?: { completed: number; total: number; currentAgent: string | null };
  readonly metadata?: { actualCost: number; actualDuration: number; agentsUsed: number };
  readonly createdAt: string;
}

const STATUSES = ['', 'PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'];

function progressText(e: Execution): string {
  if (e.progress !== undefined) return `${e.progress.completed}/${e.progress.total}${e.progress.currentAgent === null ? '' : ` · ${e.progress.currentAgent}`}`;
  return e.metadata !== undefined ? `${e.metadata.agentsUsed} agent(s), ${e.metadata.actualDuration} ms` : '–';
}

export function Executions() {
  const [status, setStatus] = useState('');
  const list = usePoll(() => call<{ executions: Execution[]; nextCursor: string | null }>('GET', `/v1/executions?limit=50${status === '' ? '' : `&status=${status}`}`), 2_000, [status]);
  const filter = (
    <select aria-label="Status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
      {STATUSES.map((s) => (
        <option value={s}>{s === '' ? 'all statuses' : s}</option>
      ))}
    </select>
  );
  return (
    <Section title="Executions" actions={filter}>
      <ErrorLine message={list.error} />
      <table>
        <thead>
          <tr><th>Execution</th><th>Status</th><th>Progress</th><th>Cost (est. / actual)</th><th>Query</th><th>Created</th></tr>
        </thead>
        <tbody>
          {(list.data?.executions ?? []).map((e) => (
            <tr key={e.id}>
              <td><a href={`#/executions/${e.id}`}>{e.id}</a></td>
              <td><Status value={e.status} /></td>
              <td>{progressText(e)}</td>
              <td>{usd(e.estimatedCost)} / {usd(e.metadata?.actualCost)}</td>
              <td class="clip">{e.query}</td>
              <td>{when(e.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data !== null && list.data.executions.length === 0 && <p class="empty">No executions yet: POST /v1/orchestrate starts one.</p>}
    </Section>
  );
}

export function ExecutionDetail({ id }: { id: string }) {
  const execution = usePoll(() => call<Execution>('GET', `/v1/executions/${encodeURIComponent(id)}`), 2_000, [id]);
  const webhooks = usePoll(() => call<{ deliveries: unknown[] }>('GET', `/v1/executions/${encodeURIComponent(id)}/webhooks`), 5_000, [id]);
  const [cancelError, setCancelError] = useState<string | null>(null);
  const live = execution.data?.status === 'PENDING' || execution.data?.status === 'RUNNING';
  const cancel = async (): Promise<void> => {
    try {
      await call('POST', `/v1/executions/${encodeURIComponent(id)}/cancel`);
      execution.refresh();
    } catch (e) {
      setCancelError(String(e));
    }
  };
  return (
    <Section title={`Execution ${id}`} actions={live ? <button onClick={() => void cancel()}>Cancel</button> : null}>
      <p><a href="#/executions">← all executions</a></p>
      <ErrorLine message={execution.error ?? cancelError} />
      {execution.data !== null && (
        <dl class="facts">
          <dt>Status</dt><dd><Status value={execution.data.status} /></dd>
          <dt>Progress</dt><dd>{progressText(execution.data)}</dd>
          <dt>Estimated cost</dt><dd>{usd(execution.data.estimatedCost)}</dd>
          <dt>Actual cost</dt><dd>{usd(execution.data.metadata?.actualCost)}</dd>
        </dl>
      )}
      {execution.data !== null && <Json value={execution.data} />}
      <h3>Webhook deliveries</h3>
      {webhooks.data !== null && (webhooks.data.deliveries.length === 0 ? <p class="empty">None.</p> : <Json value={webhooks.data.deliveries} />)}
    </Section>
  );
}
