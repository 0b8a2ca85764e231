/**
 * Entities (people, organisations, agents) and card tokens. Card tokens are shown by token and last four digits
 * only: the service never holds a card number (SPEC non-goals). A principal credential sees its own card tokens;
 * the entity list is for administrators and auditors. Both are listed a page at a time; entities filter by type and
 * state (kept in the URL).
 */
import { formatTime, shortId } from '../parts/format.ts';
import { LoadState } from '../parts/load-state.tsx';
import { PAGE_SIZE, PageControls, usePages, useUrlFilter, type Page } from '../parts/paging.tsx';
import { StateBadge } from '../parts/state-badge.tsx';
import { may, useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';

interface Entity {
  entity_id: string;
  type: string;
  display_name: string | null;
  key_thumbprint: string | null;
  state: string;
  created_at: string;
}

interface CardToken {
  card_token_id: string;
  principal_entity_id: string;
  network: string | null;
  last4: string | null;
  state: string;
}

export function EntitiesPage() {
  const session = useSession();
  return (
    <>
      <h1>Entities and card tokens</h1>
      {may(session, 'auditor') && <EntityTable />}
      <CardTokenTable />
    </>
  );
}

const ENTITY_FILTERS = ['type', 'state'] as const;

function EntityTable() {
  const { api } = useSession();
  const filter = useUrlFilter(ENTITY_FILTERS, ['cards']);
  const pages = usePages(filter.key);
  const entities = useApi(
    () =>
      api.get<Page<Entity>>('/v1/entities', {
        type: filter.applied.type || undefined,
        state: filter.applied.state || undefined,
        limit: String(PAGE_SIZE),
        cursor: pages.cursor,
      }),
    [filter.key, pages.cursor],
  );
  return (
    <section class="card" aria-labelledby="entities-heading">
      <h2 id="entities-heading">Entities</h2>
      <div class="search-form" role="search" aria-label="Filter entities">
        <div class="field">
          <label for="entity-type">Type</label>
          <select
            id="entity-type"
            value={filter.draft.type}
            onChange={(e) => filter.apply('type', (e.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">Any type</option>
            <option value="person">person</option>
            <option value="organisation">organisation</option>
            <option value="agent">agent</option>
          </select>
        </div>
        <div class="field">
          <label for="entity-state">State</label>
          <select
            id="entity-state"
            value={filter.draft.state}
            onChange={(e) => filter.apply('state', (e.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">Any state</option>
            <option value="active">active</option>
            <option value="suspended">suspended</option>
            <option value="tombstoned">tombstoned</option>
          </select>
        </div>
      </div>
      <LoadState loaded={entities}>
        {(page) => (
          <>
            {page.items.length === 0 ? (
              <p class="muted">No entity matches.</p>
            ) : (
              <div class="table-wrap">
                <table aria-label="Entities">
                  <thead>
                    <tr>
                      <th scope="col">Entity</th>
                      <th scope="col">Type</th>
                      <th scope="col">Name</th>
                      <th scope="col">Key</th>
                      <th scope="col">State</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.items.map((e) => (
                      <tr key={e.entity_id}>
                        <td>
                          <code>{e.entity_id}</code>
                        </td>
                        <td>{e.type}</td>
                        <td>{e.display_name ?? '—'}</td>
                        <td>{e.key_thumbprint ? 'registered' : 'none'}</td>
                        <td>
                          <StateBadge state={e.state} />
                        </td>
                        <td>{formatTime(e.created_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <PageControls pages={pages} page={page} label="entities" />
          </>
        )}
      </LoadState>
    </section>
  );
}

function CardTokenTable() {
  const { api } = useSession();
  const pages = usePages('');
  const tokens = useApi(
    () => api.get<Page<CardToken>>('/v1/card-tokens', { limit: String(PAGE_SIZE), cursor: pages.cursor }),
    [pages.cursor],
  );
  return (
    <section class="card" aria-labelledby="cards-heading">
      <h2 id="cards-heading">Card tokens</h2>
      <LoadState loaded={tokens}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="muted">No card token.</p>
          ) : (
            <>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Card token</th>
                      <th scope="col">Principal</th>
                      <th scope="col">Card</th>
                      <th scope="col">State</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.items.map((t) => (
                      <tr key={t.card_token_id}>
                        <td>
                          <code>{t.card_token_id}</code>
                        </td>
                        <td>{shortId(t.principal_entity_id)}</td>
                        <td>{t.last4 ? `${t.network ?? 'card'} ending ${t.last4}` : (t.network ?? '—')}</td>
                        <td>
                          <StateBadge state={t.state} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <PageControls pages={pages} page={page} label="card tokens" />
            </>
          )
        }
      </LoadState>
    </section>
  );
}
