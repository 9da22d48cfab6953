/** Agents the key sees, with health and circuit state (GET /v1/agents, re-read every 5 s). */
import { call } from './api';
import { ErrorLine, Section, Status } from './components';
import { usd } from './format';
import { usePoll } from './poll';

interface Agent {
  readonly id: string;
  readonly name: string;
  readonly vertical: string;
  readonly scope: string;
  readonly capabilities: readonly string[];
  readonly pricing: { basePrice: number };
  readonly status?: { healthy: boolean; circuit: string; successRate: number; latencyMs: number | null; inFlight: number; lastHealthError: string | null };
}

export function Agents() {
  const list = usePoll(() => call<{ agents: Agent[] }>('GET', '/v1/agents?limit=200'), 5_000, []);
  return (
    <Section title="Agents">
      <ErrorLine message={list.error} />
      <table>
        <thead>
          <tr><th>Agent</th><th>Health</th><th>Circuit</th><th>Success</th><th>Latency</th><th>In flight</th><th>Price</th><th>Capabilities</th></tr>
        </thead>
        <tbody>
          {(list.data?.agents ?? []).map((a) => (
            <tr key={a.id}>
              <td><strong>{a.name}</strong><br /><small>{a.id} · {a.vertical} · {a.scope}</small></td>
              <td><Status value={a.status === undefined ? 'unknown' : a.status.healthy ? 'healthy' : 'unhealthy'} />{a.status?.lastHealthError ? <small class="error"> {a.status.lastHealthError}</small> : null}</td>
              <td><Status value={a.status?.circuit ?? 'unknown'} /></td>
              <td>{a.status === undefined ? '–' : `${Math.round(a.status.successRate * 100)}%`}</td>
              <td>{a.status?.latencyMs == null ? '–' : `${a.status.latencyMs} ms`}</td>
              <td>{a.status?.inFlight ?? '–'}</td>
              <td>{usd(a.pricing.basePrice)}</td>
              <td>{a.capabilities.join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data !== null && list.data.agents.length === 0 && <p class="empty">No agents registered: POST /v1/agents adds one.</p>}
    </Section>
  );
}
