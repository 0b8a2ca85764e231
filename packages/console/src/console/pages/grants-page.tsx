/**
 * Grants as delegation trees: each root grant of a principal with its sub-delegations below it, every link showing
 * its effective limits (an omitted field inherits the parent's, CONTRACT section 5) and which of them this link
 * narrowed. Listed a page at a time in creation order, filtered by state, principal and agent (GET /v1/grants): the
 * trees are drawn from the grants of the page, so a delegation whose parent is on another page (or filtered out)
 * stands at the top, marked "delegated". Revoking a grant revokes its whole active subtree in one transaction; the
 * console counts that subtree on the server before asking for confirmation, shows the graph's blast radius (the
 * grants, mandates, agents and card tokens the revoke would cut, GET /v1/graph/grants/{id}/blast-radius) in that
 * confirmation, and says how many the server revoked. Nothing is sent to revoke before the confirming click.
 */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, readAll, type ApiClient } from '../api-client.ts';
import { BlastRadiusView, readBlastRadius, type BlastRadius } from '../parts/blast-radius.tsx';
import { entityOrAgent, entityOrPerson } from '../parts/entity-input.ts';
import { formatAmount, formatTime, shortId } from '../parts/format.ts';
import { ErrorMessage, LoadState } from '../parts/load-state.tsx';
import { PAGE_SIZE, PageControls, usePages, useUrlFilter, type Page } from '../parts/paging.tsx';
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
  /** a delegation drawn at the top because its parent is not on this page: its inherited limits are not shown */
  parentElsewhere: boolean;
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
    const parentElsewhere = inherited === undefined && grant.parent_grant_id !== null;
    return { grant, effective, delegableLevels, narrowed, children, parentElsewhere };
  };
  return (byParent.get(null) ?? []).map((root) => grow(root, undefined, Infinity));
}

/**
 * How many grants a revoke of `grant` revokes: itself if active, and every active grant delegated below it. Counted
 * from the server (each level by `parent_grant_id`), not from the page shown: a paginated or filtered page may hold
 * only part of the subtree, and the count is what the confirmation promises.
 */
export async function cascadeCount(api: ApiClient, grant: GrantRow): Promise<number> {
  let count = grant.state === 'active' ? 1 : 0;
  let level = [grant.grant_id];
  while (level.length > 0) {
    const children = (
      await Promise.all(level.map((id) => readAll<GrantRow>(api, '/v1/grants', { parent_grant_id: id })))
    ).flat();
    count += children.filter((child) => child.state === 'active').length;
    level = children.map((child) => child.grant_id);
  }
  return count;
}

const FILTERS = ['state', 'principal', 'agent'] as const;

export function GrantsPage() {
  const session = useSession();
  const { api } = session;
  const filter = useUrlFilter(FILTERS);
  const pages = usePages(filter.key);
  const { state, principal, agent } = filter.applied;
  const grants = useApi(
    () =>
      api.get<Page<GrantRow>>('/v1/grants', {
        state: state || undefined,
        principal_entity_id: entityOrPerson(principal),
        actor_entity_id: entityOrAgent(agent),
        limit: String(PAGE_SIZE),
        cursor: pages.cursor,
      }),
    [filter.key, pages.cursor],
  );
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
        narrow its parent: narrowed limits are marked. Grants are listed {PAGE_SIZE} at a time, oldest first.
      </p>
      <form
        class="card search-form"
        role="search"
        aria-label="Filter grants"
        onSubmit={(e) => {
          e.preventDefault();
          filter.apply();
        }}
      >
        <div class="field">
          <label for="grant-state">State</label>
          <select
            id="grant-state"
            value={filter.draft.state}
            onChange={(e) => filter.apply('state', (e.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">Any state</option>
            <option value="active">active</option>
            <option value="revoked">revoked</option>
          </select>
        </div>
        {may(session, 'auditor') && (
          <div class="field">
            <label for="grant-principal">Principal</label>
            <input
              id="grant-principal"
              type="text"
              placeholder="alice or ns:entity:person:…"
              value={filter.draft.principal}
              onInput={(e) => filter.set('principal', (e.currentTarget as HTMLInputElement).value)}
            />
          </div>
        )}
        <div class="field">
          <label for="grant-agent">Agent</label>
          <input
            id="grant-agent"
            type="text"
            placeholder="shopper-1 or ns:entity:agent:…"
            value={filter.draft.agent}
            onInput={(e) => filter.set('agent', (e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <div class="actions">
          <button type="submit">Filter</button>
          <button type="button" class="secondary" onClick={filter.clear}>
            Clear
          </button>
        </div>
      </form>
      <LoadState loaded={grants}>
        {(page) => {
          const forest = buildForest(page.items);
          return (
            <>
              {forest.length === 0 ? (
                <p class="muted">{pages.number === 1 ? 'No grant matches.' : 'No more grants.'}</p>
              ) : (
                <ul class="tree" aria-label="Delegation trees">
                  {forest.map((node) => (
                    <GrantNode key={node.grant.grant_id} node={node} onChanged={grants.reload} />
                  ))}
                </ul>
              )}
              <PageControls pages={pages} page={page} label="grants" />
            </>
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
  const [count, setCount] = useState<number | undefined>();
  const [radius, setRadius] = useState<{ radius?: BlastRadius; error?: Error }>({});
  const agent = shortId(grant.actor_entity_id);

  const askToConfirm = async () => {
    setConfirming(true);
    setCount(undefined);
    setRadius({});
    setOutcome({});
    // read-only: what the revoke would cut, drawn beside the count; its failure is shown, the count still stands
    const blast = session.api.get(`/v1/graph/grants/${encodeURIComponent(grant.grant_id)}/blast-radius`).then(
      (answer) => ({ radius: readBlastRadius(answer) }),
      (error: unknown) => ({ error: error instanceof Error ? error : new ApiError(0, 'error', String(error)) }),
    );
    try {
      const [counted, read] = await Promise.all([cascadeCount(session.api, grant), blast]);
      setRadius(read);
      setCount(counted);
    } catch (error) {
      setConfirming(false);
      setOutcome({ error: error instanceof Error ? error : new ApiError(0, 'error', String(error)) });
    }
  };

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
        {node.parentElsewhere && (
          <p class="muted">
            Its parent <code>{grant.parent_grant_id}</code> is not on this page: the limits it inherits are not shown.
          </p>
        )}
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
            <button type="button" class="danger" onClick={askToConfirm} aria-label={`Revoke the grant to ${agent}`}>
              Revoke…
            </button>
          </div>
        )}
        {confirming && (
          <div class="confirm" role="group" aria-label={`Confirm revoking the grant to ${agent}`}>
            {count === undefined ? (
              <p role="status">Counting the grants delegated below it…</p>
            ) : (
              <>
                <p>
                  This revokes <strong>{count}</strong> grant{count === 1 ? '' : 's'}: this one
                  {count > 1 ? ` and ${count - 1} active delegation${count === 2 ? '' : 's'} below it` : ''}. Agents
                  using them are denied from the next request on.
                </p>
                {radius.radius && <BlastRadiusView radius={radius.radius} />}
                {radius.error && (
                  <p class="muted" data-testid="blast-radius-error">
                    What else it would cut could not be read: {radius.error.message}
                  </p>
                )}
                <div class="actions">
                  <button type="button" class="danger" disabled={busy} onClick={revoke}>
                    Revoke {count} grant{count === 1 ? '' : 's'}
                  </button>
                  <button type="button" class="secondary" onClick={() => setConfirming(false)}>
                    Cancel
                  </button>
                </div>
              </>
            )}
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
