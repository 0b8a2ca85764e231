/**
 * Webhook endpoints and their delivery attempts (administrators only). URLs are shown by origin in lists (a path or
 * query may hold a receiver's secret) and in full only on the selected endpoint. Secrets are never shown: the API
 * does not return them after creation.
 */
import { useState } from 'preact/hooks';
import { readAll } from '../api-client.ts';
import { formatTime } from '../parts/format.ts';
import { LoadState } from '../parts/load-state.tsx';
import { StateBadge } from '../parts/state-badge.tsx';
import { useSession } from '../session.tsx';
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
  const endpoints = useApi(() => readAll<Endpoint>(api, '/v1/webhook-endpoints'), []);
  const [selected, setSelected] = useState<string | undefined>();
  return (
    <>
      <h1>Webhooks</h1>
      <LoadState loaded={endpoints}>
        {(rows) =>
          rows.length === 0 ? (
            <p class="muted">No webhook endpoint is registered.</p>
          ) : (
            <>
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
                      {rows.map((e) => (
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
                              onClick={() => setSelected(e.endpoint_id)}
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
              </section>
              {selected && <Deliveries endpoint={rows.find((e) => e.endpoint_id === selected)!} />}
            </>
          )
        }
      </LoadState>
    </>
  );
}

function Deliveries({ endpoint }: { endpoint: Endpoint }) {
  const { api } = useSession();
  const attempts = useApi(
    () =>
      api.get<{ items: Attempt[] }>(`/v1/webhook-endpoints/${encodeURIComponent(endpoint.endpoint_id)}/deliveries`, {
        limit: '100',
      }),
    [endpoint.endpoint_id],
  );
  return (
    <section class="card" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries to {originOf(endpoint.url)}</h2>
      <p class="muted">
        <code>{endpoint.url}</code>
        {endpoint.disabled_reason ? ` — disabled: ${endpoint.disabled_reason}` : ''}
      </p>
      <LoadState loaded={attempts}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="muted">No delivery yet.</p>
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
          )
        }
      </LoadState>
    </section>
  );
}
