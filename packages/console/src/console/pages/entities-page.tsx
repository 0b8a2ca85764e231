/**
 * Entities (people, organisations, agents) and card tokens. Card tokens are shown by token and last four digits
 * only: the service never holds a card number (SPEC non-goals). A principal credential sees its own card tokens;
 * the entity list is for administrators and auditors.
 */
import { readAll } from '../api-client.ts';
import { formatTime, shortId } from '../parts/format.ts';
import { LoadState } from '../parts/load-state.tsx';
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

function EntityTable() {
  const { api } = useSession();
  const entities = useApi(() => readAll<Entity>(api, '/v1/entities'), []);
  return (
    <section class="card" aria-labelledby="entities-heading">
      <h2 id="entities-heading">Entities</h2>
      <LoadState loaded={entities}>
        {(rows) => (
          <div class="table-wrap">
            <table>
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
                {rows.map((e) => (
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
      </LoadState>
    </section>
  );
}

function CardTokenTable() {
  const { api } = useSession();
  const tokens = useApi(() => readAll<CardToken>(api, '/v1/card-tokens'), []);
  return (
    <section class="card" aria-labelledby="cards-heading">
      <h2 id="cards-heading">Card tokens</h2>
      <LoadState loaded={tokens}>
        {(rows) =>
          rows.length === 0 ? (
            <p class="muted">No card token.</p>
          ) : (
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
                  {rows.map((t) => (
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
          )
        }
      </LoadState>
    </section>
  );
}
