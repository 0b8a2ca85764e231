/**
 * Approvals: what the agent asks to buy (the action, the amount, the merchant, the card token and the basket's items,
 * for whom and by which agent), why it needs approval and until when. A principal credential approves or rejects
 * (only the principal may, CONTRACT section 6); other roles see the list read-only. Listed a page at a time, oldest
 * first (the first to expire on top), filtered by state (kept in the URL).
 * The basket is shown as the API gives it: only when it hashes to the approval's bound `basket_hash` (the server
 * checks, approval-basket.ts). Its members are the agent's words, rendered as text, never as markup.
 */
import { useState } from 'preact/hooks';
import { formatAmount, formatTime, shortId } from '../parts/format.ts';
import { ErrorMessage, LoadState } from '../parts/load-state.tsx';
import { PAGE_SIZE, PageControls, usePages, useUrlFilter, type Page } from '../parts/paging.tsx';
import { StateBadge } from '../parts/state-badge.tsx';
import { reasonText } from '../../shared/reason-text.ts';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';

interface Money {
  amount: number;
  currency: string;
}

export interface Approval {
  approval_id: string;
  policy_decision_id: string;
  principal_entity_id: string;
  actor_entity_id: string;
  status: string;
  reason: string;
  request: {
    subject: string;
    action?: string;
    merchant_id?: string;
    amount?: Money;
    instrument_id?: string;
    basket_hash?: string;
    basket?: Record<string, unknown>;
  };
  expires_at: string;
  created_at: string;
}

const STATES = ['pending', 'approved', 'rejected', 'expired', 'consumed'] as const;

/** The purchase actions in words (SPEC: the purchase sub-capabilities). */
const ACTIONS: Record<string, string> = {
  search: 'Search',
  compare: 'Compare',
  prepare: 'Prepare a purchase',
  request_approval: 'Ask for approval',
  execute: 'Purchase',
  refund_request: 'Request a refund',
  dispute_prepare: 'Prepare a dispute',
};

export function actionText(request: Approval['request']): string {
  return request.action ? `${ACTIONS[request.action] ?? request.action} (${request.action})` : request.subject;
}

export function ApprovalsPage() {
  const { api, role } = useSession();
  const filter = useUrlFilter(['state'] as const);
  const state = filter.applied.state || 'pending';
  const pages = usePages(filter.key);
  const approvals = useApi(
    () =>
      api.get<Page<Approval>>('/v1/approvals', {
        state: state === 'any' ? undefined : state,
        limit: String(PAGE_SIZE),
        cursor: pages.cursor,
      }),
    [state, pages.cursor],
  );
  const named = state === 'any' ? '' : `${state} `;
  return (
    <>
      <div class="page-head">
        <h1>Approvals</h1>
        <div class="field">
          <label for="approval-state">Show</label>
          <select
            id="approval-state"
            value={state}
            onChange={(e) => filter.apply('state', (e.currentTarget as HTMLSelectElement).value)}
          >
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
            <option value="any">any state</option>
          </select>
        </div>
      </div>
      {role !== 'principal' && (
        <p class="notice">
          Only the principal decides an approval: sign in with a principal token to approve or reject.
        </p>
      )}
      <LoadState loaded={approvals}>
        {(page) => (
          <>
            {page.items.length === 0 ? (
              <p class="muted">No {named}approval.</p>
            ) : (
              <ul class="tree" aria-label={`${named}approvals`}>
                {page.items.map((a) => (
                  <ApprovalCard key={a.approval_id} approval={a} onDecided={approvals.reload} />
                ))}
              </ul>
            )}
            <PageControls pages={pages} page={page} label="approvals" />
          </>
        )}
      </LoadState>
    </>
  );
}

function ApprovalCard({ approval, onDecided }: { approval: Approval; onDecided: () => void }) {
  const { api, role } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const { request } = approval;
  const amount = request.amount ? formatAmount(request.amount) : 'no amount';
  const what = `${amount} at ${request.merchant_id ?? 'an unnamed merchant'}`;

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
        <dl class="facts" data-testid="approval-facts">
          <dt>Action</dt>
          <dd data-fact="action">{actionText(request)}</dd>
          <dt>Amount</dt>
          <dd data-fact="amount">{amount}</dd>
          <dt>Merchant</dt>
          <dd data-fact="merchant">{request.merchant_id ?? '—'}</dd>
          <dt>Basket</dt>
          <dd data-fact="basket">
            <Basket request={request} />
          </dd>
          <dt>Card token</dt>
          <dd>{request.instrument_id ? <code>{request.instrument_id}</code> : '—'}</dd>
          <dt>Principal</dt>
          <dd data-fact="principal">{shortId(approval.principal_entity_id)}</dd>
          <dt>Agent</dt>
          <dd data-fact="agent">{shortId(approval.actor_entity_id)}</dd>
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

interface BasketLine {
  label: string;
  quantity: string | undefined;
  price: string | undefined;
}

/** The basket's `items` as lines (name or sku, quantity, unit price), whatever else a basket may carry. */
export function basketLines(basket: Record<string, unknown>): BasketLine[] | undefined {
  const items = basket.items;
  if (!Array.isArray(items)) return undefined;
  return items.map((item: unknown) => {
    const it = (typeof item === 'object' && item !== null ? item : { name: item }) as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : undefined);
    const label = text(it.name) ?? text(it.title) ?? text(it.description) ?? text(it.sku) ?? JSON.stringify(item);
    const sku = text(it.sku);
    const price = it.unit_price ?? it.price;
    return {
      label: sku && sku !== label ? `${label} (${sku})` : label,
      quantity: text(it.qty) ?? text(it.quantity),
      price:
        typeof price === 'object' && price !== null && 'amount' in price && 'currency' in price
          ? formatAmount(price as Money)
          : text(price),
    };
  });
}

function Basket({ request }: { request: Approval['request'] }) {
  if (request.basket === undefined) {
    return request.basket_hash ? (
      <span>
        bound by hash <code>{request.basket_hash}</code>; its items cannot be shown
      </span>
    ) : (
      <span class="muted">none given</span>
    );
  }
  const lines = basketLines(request.basket);
  if (lines === undefined) return <code>{JSON.stringify(request.basket)}</code>;
  if (lines.length === 0) return <span class="muted">no items</span>;
  return (
    <ul class="basket" aria-label="Basket">
      {lines.map((line, i) => (
        <li key={i}>
          {line.quantity !== undefined ? `${line.quantity} × ` : ''}
          {line.label}
          {line.price ? ` at ${line.price}` : ''}
        </li>
      ))}
    </ul>
  );
}
