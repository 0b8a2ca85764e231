/**
 * Overview: decisions over time and per reason (the last 24 hours by hour, or 30 days by day), the most recent
 * revocations, and the health of webhook delivery (administrators only: endpoints are admin-only).
 */
import { useMemo, useState } from 'preact/hooks';
import { readAll } from '../api-client.ts';
import { DecisionsOverTime, fillBuckets, type TimeBucket } from '../charts/decisions-over-time.tsx';
import { ReasonBars, type ReasonCount } from '../charts/reason-bars.tsx';
import { formatTime, shortId } from '../parts/format.ts';
import { LoadState } from '../parts/load-state.tsx';
import { StateBadge } from '../parts/state-badge.tsx';
import { href } from '../router.ts';
import { may, useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';

interface Stats {
  total: number;
  by_reason: ReasonCount[];
  over_time: TimeBucket[];
}

const PERIODS = {
  day: { label: 'Last 24 hours, by hour', bucket: 'hour', ms: 24 * 3600_000, step: 3600_000 },
  month: { label: 'Last 30 days, by day', bucket: 'day', ms: 30 * 86_400_000, step: 86_400_000 },
} as const;

export function OverviewPage() {
  const session = useSession();
  const [period, setPeriod] = useState<keyof typeof PERIODS>('day');
  const spec = PERIODS[period];
  const range = useMemo(() => {
    const to = new Date(Math.ceil(Date.now() / spec.step) * spec.step);
    return { from: new Date(to.getTime() - spec.ms), to };
  }, [period]);
  const stats = useApi(
    () =>
      session.api.get<Stats>('/v1/decisions/stats', {
        bucket: spec.bucket,
        since: range.from.toISOString(),
        until: range.to.toISOString(),
      }),
    [range],
  );
  return (
    <>
      <div class="page-head">
        <h1>Overview</h1>
        <div class="field">
          <label for="period">Period</label>
          <select
            id="period"
            value={period}
            onChange={(e) => setPeriod((e.currentTarget as HTMLSelectElement).value as keyof typeof PERIODS)}
          >
            {Object.entries(PERIODS).map(([key, p]) => (
              <option key={key} value={key}>
                {p.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <LoadState loaded={stats}>
        {(data) => (
          <div class="grid-2">
            <section class="card" aria-labelledby="over-time-heading">
              <h2 id="over-time-heading">
                Decisions over time <span class="muted">({data.total} in all)</span>
              </h2>
              <DecisionsOverTime
                unit={spec.bucket}
                buckets={fillBuckets(data.over_time, range.from, range.to, spec.step)}
              />
            </section>
            <section class="card" aria-labelledby="reasons-heading">
              <h2 id="reasons-heading">Decisions per reason</h2>
              <ReasonBars rows={data.by_reason} />
              <p>
                <a href={href('decisions')}>Search the decisions</a>
              </p>
            </section>
          </div>
        )}
      </LoadState>
      <div class="grid-2">
        <RecentRevocations />
        {may(session) ? <DeliveryHealth /> : null}
      </div>
    </>
  );
}

interface GrantRow {
  grant_id: string;
  actor_entity_id: string;
  principal_entity_id: string;
  parent_grant_id: string | null;
  revoked_at: string | null;
}

function RecentRevocations() {
  const { api } = useSession();
  // listed in creation order: the newest revocations are found by sorting on revoked_at
  const revoked = useApi(() => readAll<GrantRow>(api, '/v1/grants', { state: 'revoked' }), []);
  return (
    <section class="card" aria-labelledby="revocations-heading">
      <h2 id="revocations-heading">Recent revocations</h2>
      <LoadState loaded={revoked}>
        {(rows) => {
          const recent = [...rows].sort((a, b) => (b.revoked_at ?? '').localeCompare(a.revoked_at ?? '')).slice(0, 6);
          if (recent.length === 0) return <p class="muted">No grant has been revoked.</p>;
          return (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Revoked at</th>
                    <th scope="col">Agent</th>
                    <th scope="col">Principal</th>
                    <th scope="col">Link</th>
                  </tr>
                </thead>
                <tbody>
                  {recent.map((g) => (
                    <tr key={g.grant_id}>
                      <td>{formatTime(g.revoked_at)}</td>
                      <td>{shortId(g.actor_entity_id)}</td>
                      <td>{shortId(g.principal_entity_id)}</td>
                      <td>{g.parent_grant_id ? 'sub-delegation' : 'root grant'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          );
        }}
      </LoadState>
    </section>
  );
}

interface EndpointRow {
  endpoint_id: string;
  url: string;
  state: string;
  failing_since: string | null;
  disabled_reason: string | null;
}

function DeliveryHealth() {
  const { api } = useSession();
  const endpoints = useApi(() => readAll<EndpointRow>(api, '/v1/webhook-endpoints'), []);
  return (
    <section class="card" aria-labelledby="delivery-heading">
      <h2 id="delivery-heading">Webhook delivery health</h2>
      <LoadState loaded={endpoints}>
        {(rows) => {
          if (rows.length === 0) return <p class="muted">No webhook endpoint is registered.</p>;
          const failing = rows.filter((r) => r.failing_since !== null || r.state !== 'enabled');
          return (
            <>
              <p>
                {rows.length - failing.length} of {rows.length} endpoints delivering normally.
              </p>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Endpoint</th>
                      <th scope="col">State</th>
                      <th scope="col">Failing since</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((r) => (
                      <tr key={r.endpoint_id}>
                        <td>
                          <a href={href('webhooks', r.endpoint_id)}>{originOf(r.url)}</a>
                        </td>
                        <td>
                          <StateBadge state={r.failing_since && r.state === 'enabled' ? 'failing' : r.state} />
                        </td>
                        <td>{formatTime(r.failing_since)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          );
        }}
      </LoadState>
    </section>
  );
}

/** The URL's origin only: a path or query may carry a receiver's secret. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid url)';
  }
}
