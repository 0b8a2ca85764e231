/**
 * The authority graph of one principal (GET /v1/graph/principals/{id}, `ns.authority_graph.v1`): the principal at the
 * top, then each grant as a link to its agent, nested under the grant it was delegated from (an agent that delegated
 * on is an intermediary), every link with the effective limits that hold on it, its card token, its mandate and the
 * merchants it allows. A principal credential sees its own principal; an admin or auditor names one (kept in the URL).
 * The answer is a snapshot at a checkpoint, bounded in depth and size by the service: a cut tree says so.
 */
import { Fragment } from 'preact';
import { entityOrPerson } from '../parts/entity-input.ts';
import { formatTime, shortId } from '../parts/format.ts';
import { readPrincipalTree, type GraphLink, type PrincipalTree } from '../parts/graph-model.ts';
import { LoadState } from '../parts/load-state.tsx';
import { PageControls, usePages, useUrlFilter } from '../parts/paging.tsx';
import { StateBadge } from '../parts/state-badge.tsx';
import { href } from '../router.ts';
import { may, useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';
import { AgentCapabilities, CardSpenders } from './graph-queries.tsx';

const FILTERS = ['principal'] as const;

export function GraphPage() {
  const session = useSession();
  const filter = useUrlFilter(FILTERS);
  // a principal credential reads its own principal only (the API refuses any other)
  const chosen = may(session, 'auditor') ? entityOrPerson(filter.applied.principal) : (session.principal ?? undefined);
  return (
    <>
      <div class="page-head">
        <h1>Authority graph</h1>
      </div>
      <p class="muted">
        Who may act for a principal, and within what: each link is a grant from the principal or an intermediary agent
        to an agent, with the limits in force on that link (a delegated link can only narrow what it inherits). Preview.
      </p>
      {may(session, 'auditor') && (
        <form
          class="card search-form"
          role="search"
          aria-label="Whose authority graph"
          onSubmit={(e) => {
            e.preventDefault();
            filter.apply();
          }}
        >
          <div class="field">
            <label for="graph-principal">Principal</label>
            <input
              id="graph-principal"
              type="text"
              placeholder="alice or ns:entity:person:…"
              value={filter.draft.principal}
              onInput={(e) => filter.set('principal', (e.currentTarget as HTMLInputElement).value)}
            />
          </div>
          <div class="actions">
            <button type="submit">Show graph</button>
          </div>
        </form>
      )}
      {chosen === undefined ? (
        <p class="muted">Name a principal to draw who may act for it.</p>
      ) : (
        <PrincipalGraph principal={chosen} />
      )}
    </>
  );
}

function PrincipalGraph({ principal }: { principal: string }) {
  const { api } = useSession();
  const pages = usePages(principal);
  const graph = useApi(
    async () =>
      readPrincipalTree(
        await api.get(`/v1/graph/principals/${encodeURIComponent(principal)}`, { cursor: pages.cursor }),
        principal,
      ),
    [principal, pages.cursor],
  );
  return (
    <LoadState loaded={graph}>
      {(tree) => (
        <section class="card" aria-label={`Authority graph of ${shortId(principal)}`}>
          <div class="graph-principal" data-testid="graph-principal">
            <strong>{shortId(tree.principal_entity_id)}</strong> <span class="badge badge-neutral">principal</span>
            <code class="muted">{tree.principal_entity_id}</code>
          </div>
          <Summary tree={tree} />
          {tree.links.length === 0 ? (
            <p class="muted">No grant from this principal.</p>
          ) : (
            <ul class="tree graph-tree" aria-label="Delegation graph">
              {tree.links.map((link) => (
                <LinkNode key={link.grant_id} link={link} />
              ))}
            </ul>
          )}
          <PageControls pages={pages} page={{ items: tree.links, next_cursor: tree.next_cursor }} label="the graph" />
        </section>
      )}
    </LoadState>
  );
}

function Summary({ tree }: { tree: PrincipalTree }) {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const checkpoint =
    tree.as_of === undefined
      ? ''
      : `, as of the audit checkpoint of ${formatTime(tree.as_of)}${
          tree.checkpointSize === undefined
            ? ''
            : ` (${plural(tree.checkpointSize, 'entry').replace(/entrys$/, 'entries')})`
        }`;
  return (
    <p class="muted" data-testid="graph-summary">
      {`${plural(tree.grantCount, 'grant')} to ${plural(tree.agentCount, 'agent')} on this page${checkpoint}.`}
      {tree.graph_id ? (
        <>
          {' '}
          Signed graph <code>{tree.graph_id}</code>.
        </>
      ) : null}
      {tree.truncated ? ' Delegations deeper than the depth bound are left out.' : ''}
      {tree.next_cursor ? ' More grants follow on the next page.' : ''}
    </p>
  );
}

function LinkNode({ link }: { link: GraphLink }) {
  const agent = shortId(link.to);
  const intermediary = link.actorKind === 'intermediary' || link.children.length > 0;
  return (
    <li class="tree-node" data-grant={link.grant_id}>
      <article class={`grant-card graph-link ${link.state}`} aria-label={`Link from ${shortId(link.from)} to ${agent}`}>
        <div class="grant-head">
          <span class="muted">{shortId(link.from)} →</span>
          <strong>{agent}</strong>
          <span class="badge badge-neutral">{intermediary ? 'intermediary' : 'agent'}</span>
          <StateBadge state={link.state} />
          {!link.usable && link.state === 'active' && <span class="badge badge-deny">blocked</span>}
        </div>
        <code class="muted">{link.grant_id}</code>
        {link.parentMissing && (
          <p class="muted">Delegated from a grant on another page of this graph: drawn at the top here.</p>
        )}
        <dl class="facts graph-limits" aria-label={`Effective limits from ${shortId(link.from)} to ${agent}`}>
          {link.limits.map((line) => (
            <Fragment key={line.key}>
              <dt>{line.label}</dt>
              <dd data-limit={line.key}>{line.value}</dd>
            </Fragment>
          ))}
        </dl>
        <dl class="facts" aria-label={`What the link from ${shortId(link.from)} to ${agent} is bound to`}>
          {link.card_tokens.length > 0 && (
            <>
              <dt>Card token</dt>
              <dd>
                {link.card_tokens.map((id) => (
                  <CardSpenders key={id} cardTokenId={id} />
                ))}
              </dd>
            </>
          )}
          {link.mandates.length > 0 && (
            <>
              <dt>Mandate</dt>
              <dd>
                {link.mandates.map((id) => (
                  <code key={id}>{id} </code>
                ))}
              </dd>
            </>
          )}
          {link.merchants.length > 0 && !link.limits.some((l) => l.key === 'allowed_merchants') && (
            <>
              <dt>Merchants</dt>
              <dd>{link.merchants.map(shortId).join(', ')}</dd>
            </>
          )}
        </dl>
        <AgentCapabilities agentId={link.to} />
        <div class="actions">
          <a href={`${href('grants')}?agent=${encodeURIComponent(link.to)}`}>Grants of {agent}</a>
        </div>
      </article>
      {intermediary && (
        <ul aria-label={`Delegated by ${agent}`}>
          {link.children.map((child) => (
            <LinkNode key={child.grant_id} link={child} />
          ))}
        </ul>
      )}
    </li>
  );
}
