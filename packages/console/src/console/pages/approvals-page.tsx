/**
 * The principal's pending approvals: what the agent asks to buy, why it needs approval, until when. A principal
 * credential approves or rejects (only the principal may, CONTRACT section 6); other roles see the list read-only.
 */
import { useState } from 'preact/hooks';
import { readAll } from '../api-client.ts';
import { formatAmount, formatMinorAmount, formatTime, shortId } from '../parts/format.ts';
import { ErrorMessage, LoadState } from '../parts/load-state.tsx';
import { StateBadge } from '../parts/state-badge.tsx';
import { reasonText } from '../../shared/reason-text.ts';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';

interface Approval {
  approval_id: string;
  policy_decision_id: string;
  principal_entity_id: string;
  actor_entity_id: string;
  status: string;
  reason: string;
  request: { merchant_id?: string; amount?: { minor?: number; amount?: number; currency: string } };
  expires_at: string;
  created_at: string;
}

const STATES = ['pending', 'approved', 'rejected', 'expired', 'consumed'] as const;

export function ApprovalsPage() {
  const { api, role } = useSession();
  const [state, setState] = useState<string>('pending');
  const approvals = useApi(() => readAll<Approval>(api, '/v1/approvals', { state }), [state]);
  return (
    <>
      <div class="page-head">
        <h1>Approvals</h1>
        <div class="field">
          <label for="approval-state">Show</label>
          <select
            id="approval-state"
            value={state}
            onChange={(e) => setState((e.currentTarget as HTMLSelectElement).value)}
          >
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
      </div>
      {role !== 'principal' && (
        <p class="notice">
          Only the principal decides an approval: sign in with a principal token to approve or reject.
        </p>
      )}
      <LoadState loaded={approvals}>
        {(rows) =>
          rows.length === 0 ? (
            <p class="muted">No {state} approval.</p>
          ) : (
            <ul class="tree" aria-label={`${state} approvals`}>
              {[...rows].reverse().map((a) => (
                <ApprovalCard key={a.approval_id} approval={a} onDecided={approvals.reload} />
              ))}
            </ul>
          )
        }
      </LoadState>
    </>
  );
}

function ApprovalCard({ approval, onDecided }: { approval: Approval; onDecided: () => void }) {
  const { api, role } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const amount = approval.request.amount;
  const shownAmount =
    amount === undefined
      ? '—'
      : typeof amount.minor === 'number'
        ? formatMinorAmount({ minor: amount.minor, currency: amount.currency })
        : formatAmount({ amount: amount.amount ?? 0, currency: amount.currency });
  const what = `${shownAmount} at ${approval.request.merchant_id ?? 'an unnamed merchant'}`;

  const decide = async (approve: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      await api.post(`/v1/approvals/${encodeURIComponent(approval.approval_id)}/decision`, { approve });
      onDecided();
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <li class="tree-node">
      <article class="grant-card" aria-label={`Approval for ${what}`} data-approval={approval.approval_id}>
        <div class="grant-head">
          <strong>{what}</strong>
          <StateBadge state={approval.status} />
        </div>
        <dl class="facts">
          <dt>Agent</dt>
          <dd>{shortId(approval.actor_entity_id)}</dd>
          <dt>Why</dt>
          <dd>{reasonText(approval.reason)}</dd>
          <dt>Asked</dt>
          <dd>{formatTime(approval.created_at)}</dd>
          <dt>Expires</dt>
          <dd>{formatTime(approval.expires_at)}</dd>
          <dt>Decision</dt>
          <dd>
            <a href={href('decisions', approval.policy_decision_id)}>{approval.policy_decision_id}</a>
          </dd>
        </dl>
        {error && <ErrorMessage error={error} />}
        {role === 'principal' && approval.status === 'pending' && (
          <div class="actions">
            <button type="button" disabled={busy} onClick={() => decide(true)} aria-label={`Approve ${what}`}>
              Approve
            </button>
            <button
              type="button"
              class="secondary"
              disabled={busy}
              onClick={() => decide(false)}
              aria-label={`Reject ${what}`}
            >
              Reject
            </button>
          </div>
        )}
      </article>
    </li>
  );
}
