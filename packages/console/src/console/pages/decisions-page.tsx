/**
 * Decisions: a search by agent, principal, reason, decision and time (GET /v1/decisions, newest first), and one
 * decision with its signed map drawn as the spec's chain, what was asked, the checks in order, and its evidence.
 */
import { useState } from 'preact/hooks';
import { REASON_CODES, type DecisionMapNode } from '@aar/core';
import { DecisionBadge } from '../../shared/decision-badge.tsx';
import { DecisionChain } from '../../shared/decision-chain.tsx';
import { DecisionPacks, decidingRule, type DecisionPackInputs } from '../../shared/decision-packs.tsx';
import { reasonText } from '../../shared/reason-text.ts';
import { entityOrAgent, entityOrPerson } from '../parts/entity-input.ts';
import { formatMinorAmount, formatTime, shortId } from '../parts/format.ts';
import { LoadState } from '../parts/load-state.tsx';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';

interface Summary {
  policy_decision_id: string;
  decision: string;
  reason: string;
  actor_entity_id: string;
  principal_entity_id: string;
  action: string;
  created_at: string;
}

interface Filter {
  actor: string;
  principal: string;
  reason: string;
  decision: string;
  since: string;
  until: string;
}

const EMPTY: Filter = { actor: '', principal: '', reason: '', decision: '', since: '', until: '' };

export function DecisionsPage({ id }: { id: string | undefined }) {
  return id ? <DecisionDetail id={id} /> : <DecisionSearch />;
}

/** A `datetime-local` value read as UTC (the console shows every time in UTC). */
function utc(local: string): string | undefined {
  if (!local) return undefined;
  return local.length === 16 ? `${local}:00Z` : `${local}Z`;
}

function DecisionSearch() {
  const { api } = useSession();
  const [draft, setDraft] = useState<Filter>(EMPTY);
  const [filter, setFilter] = useState<Filter>(EMPTY);
  const [pages, setPages] = useState<string[]>([]);
  const cursor = pages[pages.length - 1];
  const results = useApi(
    () =>
      api.get<{ items: Summary[]; next_cursor: string | null }>('/v1/decisions', {
        actor_entity_id: entityOrAgent(filter.actor),
        principal_entity_id: entityOrPerson(filter.principal),
        reason: filter.reason || undefined,
        decision: filter.decision || undefined,
        since: utc(filter.since),
        until: utc(filter.until),
        limit: '25',
        cursor,
      }),
    [filter, cursor],
  );
  const field = (key: keyof Filter) => ({
    id: `filter-${key}`,
    value: draft[key],
    onInput: (e: Event) => setDraft({ ...draft, [key]: (e.currentTarget as HTMLInputElement).value }),
  });

  return (
    <>
      <h1>Decisions</h1>
      <form
        class="card search-form"
        role="search"
        aria-label="Search decisions"
        onSubmit={(e) => {
          e.preventDefault();
          setPages([]);
          setFilter(draft);
        }}
      >
        <div class="field">
          <label for="filter-actor">Agent</label>
          <input type="text" placeholder="shopper-1 or ns:entity:agent:…" {...field('actor')} />
        </div>
        <div class="field">
          <label for="filter-principal">Principal</label>
          <input type="text" placeholder="alice or ns:entity:person:…" {...field('principal')} />
        </div>
        <div class="field">
          <label for="filter-reason">Reason</label>
          <select
            id="filter-reason"
            value={draft.reason}
            onChange={(e) => setDraft({ ...draft, reason: (e.currentTarget as HTMLSelectElement).value })}
          >
            <option value="">Any reason</option>
            {Object.keys(REASON_CODES).map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-decision">Decision</label>
          <select
            id="filter-decision"
            value={draft.decision}
            onChange={(e) => setDraft({ ...draft, decision: (e.currentTarget as HTMLSelectElement).value })}
          >
            <option value="">Any decision</option>
            <option value="allow_with_constraints">Allow with constraints</option>
            <option value="require_approval">Approval required</option>
            <option value="deny">Deny</option>
          </select>
        </div>
        <div class="field">
          <label for="filter-since">From (UTC)</label>
          <input type="datetime-local" {...field('since')} />
        </div>
        <div class="field">
          <label for="filter-until">Until (UTC)</label>
          <input type="datetime-local" {...field('until')} />
        </div>
        <div class="actions">
          <button type="submit">Search</button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setDraft(EMPTY);
              setPages([]);
              setFilter(EMPTY);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <LoadState loaded={results}>
        {(page) => (
          <section class="card" aria-label="Results">
            {page.items.length === 0 ? (
              <p class="muted">No decision matches.</p>
            ) : (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Time</th>
                      <th scope="col">Agent</th>
                      <th scope="col">Principal</th>
                      <th scope="col">Decision</th>
                      <th scope="col">Reason</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.items.map((d) => (
                      <tr key={d.policy_decision_id} data-decision-id={d.policy_decision_id}>
                        <td>
                          <a href={href('decisions', d.policy_decision_id)}>{formatTime(d.created_at)}</a>
                        </td>
                        <td>{shortId(d.actor_entity_id)}</td>
                        <td>{shortId(d.principal_entity_id)}</td>
                        <td>
                          <DecisionBadge decision={d.decision} />
                        </td>
                        <td>
                          <code>{d.reason}</code>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <div class="actions">
              {pages.length > 0 && (
                <button type="button" class="secondary" onClick={() => setPages(pages.slice(0, -1))}>
                  Newer
                </button>
              )}
              {page.next_cursor && (
                <button type="button" class="secondary" onClick={() => setPages([...pages, page.next_cursor!])}>
                  Older
                </button>
              )}
            </div>
          </section>
        )}
      </LoadState>
    </>
  );
}

interface DecisionRecord {
  policy_decision_id: string;
  decision: string;
  reason: string;
  obligations: { type: string }[];
  stop_conditions: string[];
  diagnostics: DecisionPackInputs['diagnostics'] & {
    checks: { check: string; outcome: string; reason?: string; detail?: string }[];
  };
  shadow?: DecisionPackInputs['shadow'];
  snapshot?: DecisionPackInputs['snapshot'];
  request: {
    actor_entity_id: string;
    principal_entity_id: string;
    action: string;
    merchant_id?: string;
    amount?: { minor: number; currency: string };
    instrument_id?: string;
  };
  decision_map_ref: string;
  audit_ref: string;
  evidence_refs: string[];
  created_at: string;
}

function DecisionDetail({ id }: { id: string }) {
  const { api } = useSession();
  const loaded = useApi(async () => {
    const record = await api.get<DecisionRecord>(`/v1/decisions/${encodeURIComponent(id)}`);
    const map = await api.get<{ nodes: DecisionMapNode[] }>(
      `/v1/decision-maps/${encodeURIComponent(record.decision_map_ref)}`,
    );
    return { record, map };
  }, [id]);
  return (
    <>
      <p>
        <a href={href('decisions')}>Back to the search</a>
      </p>
      <LoadState loaded={loaded}>
        {({ record, map }) => (
          <>
            <div class="page-head">
              <h1>
                Decision <DecisionBadge decision={record.decision} />
              </h1>
              <code>{record.policy_decision_id}</code>
            </div>
            <section class="card" aria-labelledby="why-heading">
              <h2 id="why-heading">
                <code data-testid="decision-reason">{record.reason}</code>
              </h2>
              <p>{reasonText(record.reason, declaredMeaning(record))}</p>
              <DecisionChain id="decision-map" nodes={map.nodes} decision={record.decision} reason={record.reason} />
            </section>
            <div class="grid-2">
              <section class="card" aria-labelledby="asked-heading">
                <h2 id="asked-heading">What was asked</h2>
                <dl class="facts">
                  <dt>Time</dt>
                  <dd>{formatTime(record.created_at)}</dd>
                  <dt>Agent</dt>
                  <dd>{record.request.actor_entity_id}</dd>
                  <dt>Principal</dt>
                  <dd>{record.request.principal_entity_id}</dd>
                  <dt>Action</dt>
                  <dd>purchase.{record.request.action}</dd>
                  <dt>Merchant</dt>
                  <dd>{record.request.merchant_id ?? '—'}</dd>
                  <dt>Amount</dt>
                  <dd>{formatMinorAmount(record.request.amount)}</dd>
                  <dt>Card token</dt>
                  <dd>{record.request.instrument_id ?? '—'}</dd>
                  <dt>Obligations</dt>
                  <dd>{record.obligations.map((o) => o.type).join(', ') || '—'}</dd>
                  <dt>Stop conditions</dt>
                  <dd>{record.stop_conditions.join(', ') || '—'}</dd>
                </dl>
              </section>
              <section class="card" aria-labelledby="checks-heading">
                <h2 id="checks-heading">Checks, in order</h2>
                <ol class="check-list">
                  {record.diagnostics.checks.map((c) => (
                    <li key={c.check}>
                      <span class={c.outcome === 'fail' ? 'fail-text' : c.outcome === 'pass' ? 'ok-text' : 'muted'}>
                        {c.outcome}
                      </span>
                      <span>{c.check}</span>
                      <span class="muted">{[c.reason, c.detail].filter(Boolean).join(': ')}</span>
                    </li>
                  ))}
                </ol>
                <h3>Evidence</h3>
                {record.evidence_refs.length === 0 ? (
                  <p class="muted">No evidence pack.</p>
                ) : (
                  <ul>
                    {record.evidence_refs.map((ref) => (
                      <li key={ref}>
                        <a href={href('evidence', ref)}>Verify {ref}</a>
                      </li>
                    ))}
                  </ul>
                )}
                <p class="muted">
                  Audit entry <code>{record.audit_ref}</code>
                </p>
              </section>
            </div>
            <DecisionPacks
              record={record}
              nodes={map.nodes}
              packHref={(name, version) => href('rule-packs', name, version)}
            />
          </>
        )}
      </LoadState>
    </>
  );
}

/** A rule reason's meaning as the deciding pack declares it. */
function declaredMeaning(record: DecisionRecord): string | undefined {
  const decided = decidingRule(record);
  const code = record.reason.slice(record.reason.indexOf('.') + 1);
  return decided?.document.reasons?.find((r) => r.code === code)?.description;
}
