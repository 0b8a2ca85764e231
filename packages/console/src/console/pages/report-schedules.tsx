/**
 * The deployment's report schedules (GET /v1/reports/schedules, when the API offers a list): how often a report is
 * generated and over which period. Read-only here; a list the API does not offer (404) is left out silently.
 */
import { ApiError } from '../api-client.ts';
import { formatTime } from '../parts/format.ts';
import { CapabilityNotice } from '../parts/capability-notice.tsx';
import { readSchedules } from '../parts/report-schedule-model.ts';
import { useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';

export function ReportSchedules() {
  const { api } = useSession();
  const loaded = useApi(async () => readSchedules(await api.get<unknown>('/v1/reports/schedules')), []);
  if (loaded.error instanceof ApiError && (loaded.error.status === 404 || loaded.error.status === 405)) return null;
  return (
    <section class="card" aria-labelledby="report-schedules">
      <h2 id="report-schedules">Schedules</h2>
      {loaded.error ? (
        <CapabilityNotice error={loaded.error} capability="reports" scope="reports.read" what="Report schedules" />
      ) : loaded.data === undefined ? (
        <p class="muted" role="status">
          Loading…
        </p>
      ) : loaded.data.length === 0 ? (
        <p class="muted">No schedule: reports are generated only when asked for.</p>
      ) : (
        <div class="table-wrap">
          <table aria-label="Report schedules">
            <thead>
              <tr>
                <th scope="col">Schedule</th>
                <th scope="col">Every</th>
                <th scope="col">Frameworks</th>
                <th scope="col">Next run</th>
              </tr>
            </thead>
            <tbody>
              {loaded.data.map((s) => (
                <tr key={s.schedule_id} data-schedule-id={s.schedule_id}>
                  <td>
                    <code>{s.schedule_id}</code>
                    {s.state ? <span class="muted"> ({s.state})</span> : null}
                  </td>
                  <td>{s.every ?? '—'}</td>
                  <td>{s.frameworks.length > 0 ? s.frameworks.join(', ') : '—'}</td>
                  <td>{formatTime(s.next_run_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
