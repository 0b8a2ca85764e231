/**
 * The deployment's report schedules (GET /v1/reports/schedules: how often a report is made, for which frameworks,
 * and the next period it covers) and, for a token with `reports.write`, a new schedule or a report on a past period
 * now (POST /v1/reports/schedules, POST /v1/reports). The service refuses a schedule more often than once an hour;
 * the form offers none, and any refusal is shown as the service words it, naming the field.
 */
import { useState } from 'preact/hooks';
import { ApiError, readAll } from '../api-client.ts';
import { CapabilityNotice } from '../parts/capability-notice.tsx';
import { formatTime } from '../parts/format.ts';
import { ErrorMessage } from '../parts/load-state.tsx';
import { readSchedules } from '../parts/report-schedule-model.ts';
import { href } from '../router.ts';
import { may, useSession } from '../session.tsx';
import { useApi } from '../use-api.ts';

/** The frameworks a report can cover (docs/compliance.md, docs/reports.md). */
export const FRAMEWORKS = ['soc2', 'iso27001', 'eu_ai_act', 'psd3', 'dora', 'nist_ai_rmf'] as const;

export function ReportSchedules({ onReport }: { onReport: () => void }) {
  const session = useSession();
  const loaded = useApi(
    async () => readSchedules({ items: await readAll<unknown>(session.api, '/v1/reports/schedules', {}, 500) }),
    [],
  );
  return (
    <>
      <section class="card" aria-labelledby="report-schedules">
        <h2 id="report-schedules">Schedules</h2>
        {loaded.error ? (
          <CapabilityNotice error={loaded.error} capability="reports" scope="reports.read" what="Report schedules" />
        ) : loaded.data === undefined ? (
          <p class="muted" role="status">
            Loading…
          </p>
        ) : loaded.data.length === 0 ? (
          <p class="muted">No schedule: reports are made only when asked for.</p>
        ) : (
          <div class="table-wrap">
            <table aria-label="Report schedules">
              <thead>
                <tr>
                  <th scope="col">Every</th>
                  <th scope="col">Frameworks</th>
                  <th scope="col">Next period (UTC)</th>
                  <th scope="col">Schedule</th>
                </tr>
              </thead>
              <tbody>
                {loaded.data.map((s) => (
                  <tr key={s.schedule_id} data-schedule-id={s.schedule_id}>
                    <td>
                      {s.every ?? '—'}
                      {s.description ? <div class="muted">{s.description}</div> : null}
                    </td>
                    <td>{s.frameworks.length > 0 ? s.frameworks.join(', ') : 'none'}</td>
                    <td>{s.deleted ? 'stopped' : `${formatTime(s.next_start)} to ${formatTime(s.next_end)}`}</td>
                    <td>
                      <a href={`${href('reports')}?schedule=${encodeURIComponent(s.schedule_id)}`}>
                        <code>{s.schedule_id}</code>
                      </a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {may(session, 'admin') && <NewSchedule onCreated={loaded.reload} />}
      {may(session, 'auditor') && <ReportNow onCreated={onReport} />}
    </>
  );
}

function FrameworkChoice({
  id,
  chosen,
  onChange,
}: {
  id: string;
  chosen: string[];
  onChange: (next: string[]) => void;
}) {
  return (
    <fieldset class="framework-choice">
      <legend>Frameworks</legend>
      {FRAMEWORKS.map((f) => (
        <label key={f} for={`${id}-${f}`}>
          <input
            id={`${id}-${f}`}
            type="checkbox"
            checked={chosen.includes(f)}
            onChange={(e) =>
              onChange((e.currentTarget as HTMLInputElement).checked ? [...chosen, f] : chosen.filter((x) => x !== f))
            }
          />{' '}
          {f}
        </label>
      ))}
    </fieldset>
  );
}

function NewSchedule({ onCreated }: { onCreated: () => void }) {
  const { api } = useSession();
  const [every, setEvery] = useState('day');
  const [frameworks, setFrameworks] = useState<string[]>([]);
  const [description, setDescription] = useState('');
  const [state, setState] = useState<{ busy?: boolean; error?: Error; done?: string }>({});
  const submit = async (event: Event) => {
    event.preventDefault();
    setState({ busy: true });
    try {
      const created = await api.post<{ schedule_id: string }>('/v1/reports/schedules', {
        every,
        frameworks: FRAMEWORKS.filter((f) => frameworks.includes(f)),
        ...(description.trim() ? { description: description.trim() } : {}),
      });
      setState({ done: created.schedule_id });
      onCreated();
    } catch (error) {
      setState({ error: error instanceof Error ? error : new ApiError(0, 'error', String(error)) });
    }
  };
  return (
    <form class="card" aria-labelledby="new-schedule" onSubmit={submit}>
      <h2 id="new-schedule">New schedule</h2>
      <p class="muted">Needs a token with the reports.write scope. At most one report an hour.</p>
      <div class="search-form">
        <div class="field">
          <label for="schedule-every">Every</label>
          <select
            id="schedule-every"
            value={every}
            onChange={(e) => setEvery((e.currentTarget as HTMLSelectElement).value)}
          >
            <option value="hour">hour</option>
            <option value="day">day</option>
            <option value="week">week (from Monday)</option>
            <option value="month">month (from the 1st)</option>
          </select>
        </div>
        <div class="field">
          <label for="schedule-description">Description</label>
          <input
            id="schedule-description"
            type="text"
            maxLength={200}
            value={description}
            onInput={(e) => setDescription((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
      </div>
      <FrameworkChoice id="schedule-framework" chosen={frameworks} onChange={setFrameworks} />
      <div class="actions">
        <button type="submit" disabled={state.busy === true}>
          Create the schedule
        </button>
      </div>
      {state.done && (
        <p role="status" class="ok-text">
          Schedule <code>{state.done}</code> created.
        </p>
      )}
      {state.error && <ScopedError error={state.error} />}
    </form>
  );
}

/** A `datetime-local` value read as UTC (the console shows every time in UTC). */
function utc(local: string): string | undefined {
  if (!local) return undefined;
  return local.length === 16 ? `${local}:00Z` : `${local}Z`;
}

function ReportNow({ onCreated }: { onCreated: () => void }) {
  const { api } = useSession();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [frameworks, setFrameworks] = useState<string[]>([]);
  const [state, setState] = useState<{ busy?: boolean; error?: Error; done?: string }>({});
  const submit = async (event: Event) => {
    event.preventDefault();
    setState({ busy: true });
    try {
      const report = await api.post<{ report_id: string }>('/v1/reports', {
        from: utc(from),
        to: utc(to),
        frameworks: FRAMEWORKS.filter((f) => frameworks.includes(f)),
      });
      setState({ done: report.report_id });
      onCreated();
    } catch (error) {
      setState({ error: error instanceof Error ? error : new ApiError(0, 'error', String(error)) });
    }
  };
  return (
    <form class="card" aria-labelledby="report-now" onSubmit={submit}>
      <h2 id="report-now">Report on a past period now</h2>
      <p class="muted">Needs a token with the reports.write scope. The period ends now at the latest.</p>
      <div class="search-form">
        <div class="field">
          <label for="report-from">From (UTC)</label>
          <input
            id="report-from"
            type="datetime-local"
            required
            value={from}
            onInput={(e) => setFrom((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <div class="field">
          <label for="report-to">Until (UTC)</label>
          <input
            id="report-to"
            type="datetime-local"
            required
            value={to}
            onInput={(e) => setTo((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
      </div>
      <FrameworkChoice id="report-framework" chosen={frameworks} onChange={setFrameworks} />
      <div class="actions">
        <button type="submit" disabled={state.busy === true}>
          Make the report
        </button>
      </div>
      {state.done && (
        <p role="status" class="ok-text">
          Report <a href={href('reports', state.done)}>{state.done}</a> made.
        </p>
      )}
      {state.error && <ScopedError error={state.error} />}
    </form>
  );
}

/** A write refused for want of `reports.write` is said as such; anything else as the service words it. */
function ScopedError({ error }: { error: Error }) {
  if (error instanceof ApiError && error.status === 403 && error.code === 'scope_missing') {
    return (
      <p class="notice" role="alert">
        This token may not make reports or schedules: it lacks the <code>reports.write</code> scope.
      </p>
    );
  }
  return <ErrorMessage error={error} />;
}
