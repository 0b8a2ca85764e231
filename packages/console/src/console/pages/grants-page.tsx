/**
 * Grants as delegation trees: each root grant of a principal with its sub-delegations below it, every link showing
 * its effective limits (an omitted field inherits the parent's, CONTRACT section 5) and which of them this link
 * narrowed. Revoking a grant revokes its whole active subtree in one transaction; the console says how many grants
 * that is before asking for confirmation, and how many the server revoked after.
 */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, readAll } from '../api-client.ts';
import { formatAmount, formatTime, shortId } from '../parts/format.ts';
import { ErrorMessage, LoadState } from '../parts/load-state.tsx';
import { StateBadge } from '../parts/state-badge.tsx';
import { may, useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';

interface Money {
  amount: number;
  currency: string;
}

interface Scope {
  max_amount_per_purchase?: Money;
  max_daily_amount?: Money;
  requires_approval_above?: Money;
  allowed_merchant_categories?: string[];
  blocked_merchant_categories?: string[];
  allowed_jurisdictions?: string[];
  allowed_actions?: string[];
  valid_until?: string;
  may_delegate?: boolean;
  max_delegation_depth?: number;
}

export interface GrantRow {
  grant_id: string;
  parent_grant_id: string | null;
  principal_entity_id: string;
  actor_entity_id: string;
  resource_id: string;
  scope: Scope;
  state: 'active' | 'revoked';
  depth: number;
  created_at: string;
  revoked_at: string | null;
}

interface TreeNode {
  grant: GrantRow;
  effective: Scope;
  /** how many further levels may still be delegated below this grant (0: none) */
  delegableLevels: number;
  /** the scope fields this link set to something other than what it inherited */
  narrowed: Set<keyof Scope>;
  children: TreeNode[];
}

interface RevokeResult {
  revoked_count: number;
  already_revoked: boolean;
  elapsed_ms: number;
}

const FIELDS: [keyof Scope, string][] = [
  ['max_amount_per_purchase', 'Per purchase'],
  ['max_daily_amount', 'Per day'],
  ['requires_approval_above', 'Approval above'],
  ['allowed_merchant_categories', 'Allowed categories'],
  ['blocked_merchant_categories', 'Blocked categories'],
  ['allowed_jurisdictions', 'Countries'],
  ['allowed_actions', 'Actions'],
  ['valid_until', 'Valid until'],
];

/** Builds the forest, roots first in creation order; a child whose parent is not listed is shown as a root. */
export function buildForest(grants: readonly GrantRow[]): TreeNode[] {
  const byParent = new Map<string | null, GrantRow[]>();
  const ids = new Set(grants.map((g) => g.grant_id));
  for (const grant of grants) {
    const parent = grant.parent_grant_id !== null && ids.has(grant.parent_grant_id) ? grant.parent_grant_id : null;
    byParent.set(parent, [...(byParent.get(parent) ?? []), grant]);
  }
  const grow = (grant: GrantRow, inherited: Scope | undefined, parentLevels: number): TreeNode => {
    const effective: Scope = { ...(inherited ?? {}), ...grant.scope };
    // each link uses one level of its parent's allowance, and may lower it further with its own depth
    const own = grant.scope.max_delegation_depth ?? Infinity;
    const delegableLevels = effective.may_delegate === true ? Math.max(0, Math.min(own, parentLevels - 1)) : 0;
    const narrowed = new Set<keyof Scope>();
    if (inherited) {
      for (const key of Object.keys(grant.scope) as (keyof Scope)[]) {
        if (JSON.stringify(grant.scope[key]) !== JSON.stringify(inherited[key])) narrowed.add(key);
      }
    }
    const children = (byParent.get(grant.grant_id) ?? []).map((child) => grow(child, effective, delegableLevels));
    return { grant, effective, delegableLevels, narrowed, children };
  };
  return (byParent.get(null) ?? []).map((root) => grow(root, undefined, Infinity));
}

/** How many grants a revoke of this node revokes: itself and every active grant below it. */
export function cascadeCount(node: TreeNode): number {
  const own = node.grant.state === 'active' ? 1 : 0;
  return own + node.children.reduce((n, child) => n + cascadeCount(child), 0);
}

export function GrantsPage() {
  const { api } = useSession();
  const grants = useApi(() => readAll<GrantRow>(api, '/v1/grants'), []);
  return (
    <>
      <div class="page-head">
        <h1>Grants</h1>
        <button type="button" class="secondary" onClick={grants.reload}>
          Refresh
        </button>
      </div>
      <p class="muted">
        Each tree starts at a principal's grant to an agent; below it, what that agent delegated on. A child can only
        narrow its parent: narrowed limits are marked.
      </p>
      <LoadState loaded={grants}>
        {(rows) => {
          const forest = buildForest(rows);
          if (forest.length === 0) return <p class="muted">No grant yet.</p>;
          return (
            <ul class="tree" aria-label="Delegation trees">
              {forest.map((node) => (
                <GrantNode key={node.grant.grant_id} node={node} onChanged={grants.reload} />
              ))}
            </ul>
          );
        }}
      </LoadState>
    </>
  );
}

function GrantNode({ node, onChanged }: { node: TreeNode; onChanged: () => void }) {
  const session = useSession();
  const { grant } = node;
  const [confirming, setConfirming] = useState(false);
  const [outcome, setOutcome] = useState<{ result?: RevokeResult; error?: Error }>({});
  const [busy, setBusy] = useState(false);
  const count = cascadeCount(node);
  const agent = shortId(grant.actor_entity_id);

  const revoke = async () => {
    setBusy(true);
    try {
      const result = await session.api.post<RevokeResult>(`/v1/grants/${encodeURIComponent(grant.grant_id)}/revoke`);
      setOutcome({ result });
      setConfirming(false);
      onChanged();
    } catch (error) {
      setOutcome({ error: error instanceof Error ? error : new ApiError(0, 'error', String(error)) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <li class="tree-node" data-grant={grant.grant_id}>
      <article class={`grant-card ${grant.state}`} aria-label={`Grant to ${agent}`}>
        <div class="grant-head">
          <strong>{agent}</strong>
          <StateBadge state={grant.state} />
          <span class="muted">
            {grant.parent_grant_id
              ? `delegated, depth ${grant.depth}`
              : `root grant from ${shortId(grant.principal_entity_id)}`}
          </span>
        </div>
        <code class="muted">{grant.grant_id}</code>
        <dl class="facts">
          {FIELDS.filter(([key]) => node.effective[key] !== undefined).map(([key, label]) => (
            <Fragment key={key}>
              <dt>{label}</dt>
              <dd class={node.narrowed.has(key) ? 'narrowed' : undefined}>
                {show(key, node.effective)}
                {node.narrowed.has(key) ? ' (narrowed here)' : ''}
              </dd>
            </Fragment>
          ))}
          <dt>Further delegation</dt>
          <dd>
            {node.delegableLevels === 0
              ? 'not allowed'
              : node.delegableLevels === Infinity
                ? 'allowed'
                : `${node.delegableLevels} more level${node.delegableLevels === 1 ? '' : 's'}`}
          </dd>
        </dl>
        {grant.state === 'revoked' && <p class="muted">Revoked {formatTime(grant.revoked_at)}</p>}
        {outcome.result && (
          <p role="status" class="ok-text">
            Revoked {outcome.result.revoked_count} grant{outcome.result.revoked_count === 1 ? '' : 's'} in{' '}
            {Math.round(outcome.result.elapsed_ms)} ms.
          </p>
        )}
        {outcome.error && <ErrorMessage error={outcome.error} />}
        {grant.state === 'active' && may(session, 'principal') && !confirming && (
          <div class="actions">
            <button
              type="button"
              class="danger"
              onClick={() => setConfirming(true)}
              aria-label={`Revoke the grant to ${agent}`}
            >
              Revoke…
            </button>
          </div>
        )}
        {confirming && (
          <div class="confirm" role="group" aria-label={`Confirm revoking the grant to ${agent}`}>
            <p>
              This revokes <strong>{count}</strong> grant{count === 1 ? '' : 's'}: this one
              {count > 1 ? ` and ${count - 1} active delegation${count === 2 ? '' : 's'} below it` : ''}. Agents using
              them are denied from the next request on.
            </p>
            <div class="actions">
              <button type="button" class="danger" disabled={busy} onClick={revoke}>
                Revoke {count} grant{count === 1 ? '' : 's'}
              </button>
              <button type="button" class="secondary" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </div>
          </div>
        )}
      </article>
      {node.children.length > 0 && (
        <ul aria-label={`Delegated by ${agent}`}>
          {node.children.map((child) => (
            <GrantNode key={child.grant.grant_id} node={child} onChanged={onChanged} />
          ))}
        </ul>
      )}
    </li>
  );
}

function show(key: keyof Scope, scope: Scope): string {
  const value = scope[key];
  if (value === undefined) return '—';
  if (key === 'valid_until') return formatTime(value as string);
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(', ');
  if (typeof value === 'object') return formatAmount(value as Money);
  return String(value);
}
