/**
 * Webhook endpoints and their delivery attempts (administrators only). URLs are shown by origin in lists (a path or
 * query may hold a receiver's secret) and in full only on the selected endpoint. Secrets are never shown: the API
 * does not return them after creation. Endpoints and attempts are listed a page at a time; the endpoint shown and the
 * attempts' status filter are kept in the URL.
 */
import { formatTime } from '../parts/format.ts';
import { LoadState } from '../parts/load-state.tsx';
import { PAGE_SIZE, PageControls, usePages, useUrlFilter, type Page } from '../parts/paging.tsx';
import { StateBadge } from '../parts/state-badge.tsx';
import { useSession } from '../session.tsx';
import { setQuery, useQuery } from '../router.ts';
import { useApi } from '../use-api.ts';
import { originOf } from './overview-page.tsx';

interface Endpoint {
  endpoint_id: string;
  url: string;
  profile: string;
  event_types: string[] | null;
  description: string | null;
  state: string;
  failing_since: string | null;
  disabled_reason: string | null;
}

interface Attempt {
  event_id: string;
  event_type: string;
  attempt: number;
  status: string;
  response_status: number | null;
  duration_ms: number | null;
  attempted_at: string | null;
  next_attempt_at: string | null;
  error: string | null;
  replay: boolean;
}

export function WebhooksPage() {
  const { api } = useSession();
  const query = useQuery();
  const selected = query.endpoint || undefined;
  const pages = usePages('');
  const endpoints = useApi(
    () => api.get<Page<Endpoint>>('/v1/webhook-endpoints', { limit: String(PAGE_SIZE), cursor: pages.cursor }),
    [pages.cursor],
  );
  return (
    <>
      <h1>Webhooks</h1>
      <LoadState loaded={endpoints}>
        {(page) =>
          page.items.length === 0 && pages.number === 1 ? (
            <p class="muted">No webhook endpoint is registered.</p>
          ) : (
            <section class="card" aria-labelledby="endpoints-heading">
              <h2 id="endpoints-heading">Endpoints</h2>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Endpoint</th>
                      <th scope="col">Profile</th>
                      <th scope="col">Events</th>
                      <th scope="col">State</th>
                      <th scope="col">Deliveries</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.items.map((e) => (
                      <tr key={e.endpoint_id}>
                        <td>
                          {originOf(e.url)}
                          {e.description && <div class="muted">{e.description}</div>}
                        </td>
                        <td>{e.profile}</td>
                        <td>{e.event_types ? e.event_types.join(', ') : 'all'}</td>
                        <td>
                          <StateBadge state={e.failing_since && e.state === 'enabled' ? 'failing' : e.state} />
                        </td>
                        <td>
                          <button
                            type="button"
                            class="secondary"
                            aria-pressed={selected === e.endpoint_id}
                            onClick={() => setQuery({ endpoint: e.endpoint_id })}
                            aria-label={`Show deliveries to ${originOf(e.url)}`}
                          >
                            Show
                          </button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <PageControls pages={pages} page={page} label="endpoints" />
            </section>
          )
        }
      </LoadState>
      {selected && <Deliveries key={selected} endpointId={selected} />}
    </>
  );
}

const DELIVERY_STATES = ['succeeded', 'failed', 'pending', 'exhausted'];

/** One endpoint's delivery attempts, newest first, a page at a time, optionally of one status (in the URL). */
function Deliveries({ endpointId }: { endpointId: string }) {
  const { api } = useSession();
  const filter = useUrlFilter(['status'] as const, ['endpoint']);
  const pages = usePages(filter.key);
  const path = `/v1/webhook-endpoints/${encodeURIComponent(endpointId)}`;
  const endpoint = useApi(() => api.get<Endpoint>(path), [endpointId]);
  const attempts = useApi(
    () =>
      api.get<Page<Attempt>>(`${path}/deliveries`, {
        status: filter.applied.status || undefined,
        limit: String(PAGE_SIZE),
        cursor: pages.cursor,
      }),
    [endpointId, filter.key, pages.cursor],
  );
  const origin = endpoint.data ? originOf(endpoint.data.url) : endpointId;
  return (
    <section class="card" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries to {origin}</h2>
      {endpoint.data && (
        <p class="muted">
          <code>{endpoint.data.url}</code>
          {endpoint.data.disabled_reason ? ` — disabled: ${endpoint.data.disabled_reason}` : ''}
        </p>
      )}
      <div class="search-form" role="search" aria-label="Filter deliveries">
        <div class="field">
          <label for="delivery-status">Status</label>
          <select
            id="delivery-status"
            value={filter.draft.status}
            onChange={(e) => filter.apply('status', (e.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">Any status</option>
            {DELIVERY_STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
      </div>
      <LoadState loaded={attempts}>
        {(page) => (
          <>
            {page.items.length === 0 ? (
              <p class="muted">
                {filter.applied.status ? `No ${filter.applied.status} delivery.` : 'No delivery yet.'}
              </p>
            ) : (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Event</th>
                      <th scope="col">Attempt</th>
                      <th scope="col">Status</th>
                      <th scope="col">Response</th>
                      <th scope="col">Next try</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.items.map((a) => (
                      <tr key={`${a.event_id}-${a.attempt}-${a.replay}`}>
                        <td>{formatTime(a.attempted_at)}</td>
                        <td>
                          <code>{a.event_type}</code>
                        </td>
                        <td>
                          {a.attempt}
                          {a.replay ? ' (replay)' : ''}
                        </td>
                        <td>
                          <StateBadge state={a.status} />
                        </td>
                        <td>
                          {a.response_status ?? '—'}
                          {a.duration_ms !== null ? ` in ${a.duration_ms} ms` : ''}
                          {a.error ? <div class="muted">{a.error}</div> : null}
                        </td>
                        <td>{formatTime(a.next_attempt_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <PageControls pages={pages} page={page} label="deliveries" />
          </>
        )}
      </LoadState>
    </section>
  );
}
