/** The approvals inbox: pending high-risk tool calls, approved or rejected with a reason. */
import { useState } from 'preact/hooks';
import { call, describeError } from './api';
import { ErrorLine, Json, Section } from './components';
import { when } from './format';
import { usePoll } from './poll';

interface Approval {
  readonly approval_id: string;
  readonly execution_id: string;
  readonly workflow_slug: string;
  readonly tool_name: string;
  readonly tool_input: unknown;
  readonly requested_at: string;
  readonly expires_at: string;
}

function Decision({ approval, onDecided }: { approval: Approval; onDecided: () => void }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const decide = async (verb: 'approve' | 'reject'): Promise<void> => {
    setBusy(true);
    try {
      const path = `/v1/workflows/execute/${encodeURIComponent(approval.execution_id)}/${verb}/${encodeURIComponent(approval.approval_id)}`;
      await call('POST', path, reason.trim() === '' ? {} : { reason: reason.trim() });
      onDecided();
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <article class="approval" data-approval={approval.approval_id}>
      <h3>{approval.tool_name} <small>in {approval.workflow_slug}</small></h3>
      <p>Run <a href={`#/runs/${approval.execution_id}`}>{approval.execution_id}</a> · requested {when(approval.requested_at)} · expires {when(approval.expires_at)}</p>
      <Json value={approval.tool_input} />
      <input aria-label="Reason" placeholder="Reason (optional)" maxLength={1000} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
      <div class="buttons">
        <button class="approve" disabled={busy} onClick={() => void decide('approve')}>Approve</button>
        <button class="reject" disabled={busy} onClick={() => void decide('reject')}>Reject</button>
      </div>
      <ErrorLine message={error} />
    </article>
  );
}

export function Approvals() {
  const inbox = usePoll(() => call<{ approvals: Approval[] }>('GET', '/v1/approvals?status=pending'), 2_000, []);
  return (
    <Section title="Approvals">
      <ErrorLine message={inbox.error} />
      {(inbox.data?.approvals ?? []).map((a) => (
        <Decision key={a.approval_id} approval={a} onDecided={inbox.refresh} />
      ))}
      {inbox.data !== null && inbox.data.approvals.length === 0 && <p class="empty">Nothing waits for a decision.</p>}
    </Section>
  );
}
