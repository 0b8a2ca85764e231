/**
 * The reference connector catalogue (GET /v1/connectors): what each connector is, what it may do (its side effect
 * level and risk), and what it requires of a deployment, filtered by family, type and status on the server (kept in
 * the URL). The API answers the catalogue in one piece (it is small and fixed per release); the page still shows it
 * PAGE_SIZE rows at a time, so the page stays bounded whatever the catalogue grows to.
 */
import { CONNECTOR_FAMILIES, CONNECTOR_STATUSES, CONNECTOR_TYPES } from '@aar/core';
import { LoadState } from '../parts/load-state.tsx';
import { PAGE_SIZE, PageControls, usePages, useUrlFilter } from '../parts/paging.tsx';
import { StateBadge } from '../parts/state-badge.tsx';
import { useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';

interface Manifest {
  connector_id: string;
  name: string;
  connector_type: string;
  category: string;
  version: string;
  risk: { risk_level: string; side_effect_level: string; requires_signature_verification: boolean };
  status: string;
}

const FILTERS = ['family', 'type', 'status'] as const;

export function ConnectorsPage() {
  const { api } = useSession();
  const filter = useUrlFilter(FILTERS);
  const pages = usePages(filter.key);
  const { family, type, status } = filter.applied;
  const catalogue = useApi(
    () =>
      api.get<{ items: Manifest[] }>('/v1/connectors', {
        family: family || undefined,
        connector_type: type || undefined,
        status: status || undefined,
      }),
    [filter.key],
  );
  const select = (name: (typeof FILTERS)[number], label: string, any: string, values: readonly string[]) => (
    <div class="field">
      <label for={`connector-${name}`}>{label}</label>
      <select
        id={`connector-${name}`}
        value={filter.draft[name]}
        onChange={(e) => filter.apply(name, (e.currentTarget as HTMLSelectElement).value)}
      >
        <option value="">{any}</option>
        {values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <>
      <h1>Connectors</h1>
      <div class="card search-form" role="search" aria-label="Filter connectors">
        {select('family', 'Family', 'All families', CONNECTOR_FAMILIES)}
        {select('type', 'Type', 'All types', Object.keys(CONNECTOR_TYPES))}
        {select('status', 'Status', 'Any status', CONNECTOR_STATUSES)}
      </div>
      <LoadState loaded={catalogue}>
        {({ items }) => {
          const offset = Number(pages.cursor ?? '0');
          const shown = items.slice(offset, offset + PAGE_SIZE);
          const next = offset + PAGE_SIZE < items.length ? String(offset + PAGE_SIZE) : null;
          return (
            <section class="card" aria-labelledby="catalogue-heading">
              <h2 id="catalogue-heading">
                Reference catalogue{' '}
                <span class="muted">
                  ({items.length} connector{items.length === 1 ? '' : 's'}
                  {items.length > shown.length ? `, ${offset + 1}-${offset + shown.length} shown` : ''})
                </span>
              </h2>
              {shown.length === 0 ? (
                <p class="muted">No connector matches.</p>
              ) : (
                <div class="table-wrap">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Connector</th>
                        <th scope="col">Type</th>
                        <th scope="col">Side effect</th>
                        <th scope="col">Risk</th>
                        <th scope="col">Status</th>
                      </tr>
                    </thead>
                    <tbody>
                      {shown.map((m) => (
                        <tr key={m.connector_id}>
                          <td>
                            {m.name} <span class="muted">{m.version}</span>
                            <div>
                              <code class="muted">{m.connector_id}</code>
                            </div>
                          </td>
                          <td>{m.connector_type}</td>
                          <td>{m.risk.side_effect_level}</td>
                          <td>{m.risk.risk_level}</td>
                          <td>
                            <StateBadge state={m.status} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
              <PageControls pages={pages} page={{ items: shown, next_cursor: next }} label="connectors" />
            </section>
          );
        }}
      </LoadState>
    </>
  );
}
