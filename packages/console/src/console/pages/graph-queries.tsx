/**
 * The graph's two point queries, each opened on demand under a link of the Graph page: who can spend on a card token
 * and how much today (GET /v1/graph/card-tokens/{id}/spenders), and what an agent may do, with its limits, through
 * every path (GET /v1/graph/agents/{id}/capabilities). Loaded only when opened, so drawing a tree costs one request.
 */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { shortId } from '../parts/format.ts';
import { readCapabilities, readSpenders } from '../parts/graph-queries-model.ts';
import { LoadState } from '../parts/load-state.tsx';
import { useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';

function OnOpen({ summary, children }: { summary: string; children: () => preact.ComponentChildren }) {
  const [open, setOpen] = useState(false);
  return (
    <details class="graph-query" onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>{summary}</summary>
      {open ? children() : null}
    </details>
  );
}

export function CardSpenders({ cardTokenId }: { cardTokenId: string }) {
  return (
    <OnOpen summary={`${shortId(cardTokenId)}: who can spend on it`}>{() => <Spenders id={cardTokenId} />}</OnOpen>
  );
}

function Spenders({ id }: { id: string }) {
  const { api } = useSession();
  const loaded = useApi(
    async () => readSpenders(await api.get(`/v1/graph/card-tokens/${encodeURIComponent(id)}/spenders`)),
    [id],
  );
  return (
    <LoadState loaded={loaded}>
      {(rows) =>
        rows.length === 0 ? (
          <p class="muted">No agent may spend on this card now.</p>
        ) : (
          <ul class="graph-answer" aria-label={`Who can spend on ${shortId(id)}`}>
            {rows.map((row) => (
              <li key={`${row.agent}-${row.grant_id ?? ''}`} data-spender={row.agent}>
                <strong>{shortId(row.agent)}</strong>
                {row.blocked ? <span>: cannot spend now. {row.blocked}</span> : <span>: {row.today}</span>}
                {row.grant_id ? <code class="muted"> {row.grant_id}</code> : null}
              </li>
            ))}
          </ul>
        )
      }
    </LoadState>
  );
}

export function AgentCapabilities({ agentId }: { agentId: string }) {
  return <OnOpen summary={`What ${shortId(agentId)} may do`}>{() => <Capabilities id={agentId} />}</OnOpen>;
}

function Capabilities({ id }: { id: string }) {
  const { api } = useSession();
  const loaded = useApi(
    async () => readCapabilities(await api.get(`/v1/graph/agents/${encodeURIComponent(id)}/capabilities`)),
    [id],
  );
  return (
    <LoadState loaded={loaded}>
      {(rows) =>
        rows.length === 0 ? (
          <p class="muted">This agent may do nothing now.</p>
        ) : (
          <ul class="graph-answer" aria-label={`What ${shortId(id)} may do`}>
            {rows.map((row, i) => (
              <li key={i}>
                <strong>{shortId(row.capability)}</strong>
                {row.via ? <span class="muted"> through {row.via}</span> : null}
                {row.blocked ? <p>Cannot be used now: {row.blocked}</p> : null}
                {row.limits.length > 0 && (
                  <dl class="facts">
                    {row.limits.map((line) => (
                      <Fragment key={line.key}>
                        <dt>{line.label}</dt>
                        <dd>{line.value}</dd>
                      </Fragment>
                    ))}
                  </dl>
                )}
              </li>
            ))}
          </ul>
        )
      }
    </LoadState>
  );
}
