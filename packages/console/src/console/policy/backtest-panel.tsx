/**
 * A backtest of one pack version (CONTRACT section 19): a time range (and optionally one principal) posted as
 * `POST …/backtests`, then `GET /v1/backtests/{id}` polled until it is done or failed, with its progress while it
 * runs, and its report: how many decisions it read and would have changed, outcomes and reasons before and after
 * (BeforeAfterBars), and sample decisions linked to their pages. Polling stops when the panel goes away.
 */
import { useEffect, useState } from 'preact/hooks';
import { BeforeAfterBars } from '../charts/before-after-bars.tsx';
import { entityOrPerson } from '../parts/entity-input.ts';
import { ErrorMessage } from '../parts/load-state.tsx';
import { getBacktest, startBacktest, type Backtest } from './policy-api.ts';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';

const POLL_MS = 500;

/** A `datetime-local` value read as UTC (the console shows every time in UTC). */
function utc(local: string): string {
  return local.length === 16 ? `${local}:00Z` : `${local}Z`;
}

function localInput(date: Date): string {
  return date.toISOString().slice(0, 16);
}

export function BacktestPanel({ name, version }: { name: string; version: string }) {
  const { api } = useSession();
  const [from, setFrom] = useState(() => localInput(new Date(Date.now() - 30 * 24 * 3600 * 1000)));
  const [until, setUntil] = useState(() => localInput(new Date(Date.now() + 60 * 1000)));
  const [principal, setPrincipal] = useState('');
  const [id, setId] = useState<string | undefined>();
  const [report, setReport] = useState<Backtest | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!id) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const next = await getBacktest(api, id);
        if (!live) return;
        setReport(next);
        if (next.state === 'running') timer = setTimeout(() => void poll(), POLL_MS);
      } catch (err) {
        if (live) setError(err instanceof Error ? err : new Error(String(err)));
      }
    };
    void poll();
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [id]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setReport(undefined);
    try {
      const principalId = entityOrPerson(principal);
      setId(
        await startBacktest(api, name, version, {
          from: utc(from),
          until: utc(until),
          ...(principalId ? { principal_entity_id: principalId } : {}),
        }),
      );
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="backtest-heading">
      <h2 id="backtest-heading">Backtest</h2>
      <p class="muted">
        Runs this version against the stored decisions of a period, as if it had been enforced, and reports what it
        would have changed. Nothing is decided or recorded for those purchases.
      </p>
      <form class="search-form" onSubmit={submit} aria-label="Backtest this version">
        <div class="field">
          <label for="backtest-from">From (UTC)</label>
          <input
            id="backtest-from"
            type="datetime-local"
            required
            value={from}
            onInput={(e) => setFrom((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <div class="field">
          <label for="backtest-until">Until (UTC)</label>
          <input
            id="backtest-until"
            type="datetime-local"
            required
            value={until}
            onInput={(e) => setUntil((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <div class="field">
          <label for="backtest-principal">Principal (optional)</label>
          <input
            id="backtest-principal"
            type="text"
            placeholder="alice or ns:entity:person:…"
            value={principal}
            onInput={(e) => setPrincipal((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <div class="actions">
          <button type="submit" disabled={busy || (report?.state === 'running' && id !== undefined)}>
            {busy ? 'Starting…' : 'Run the backtest'}
          </button>
        </div>
      </form>
      {error && <ErrorMessage error={error} />}
      {report && id && <BacktestReport id={id} report={report} />}
    </section>
  );
}

function BacktestReport({ id, report }: { id: string; report: Backtest }) {
  const percent = report.total > 0 ? Math.floor((report.done / report.total) * 100) : report.state === 'done' ? 100 : 0;
  return (
    <div data-testid="backtest-report" data-state={report.state}>
      <h3>
        Report <code>{id}</code>
      </h3>
      <div class="progress-line" role="status">
        <label for="backtest-progress">
          {report.state === 'running' ? 'Running' : report.state === 'done' ? 'Done' : 'Failed'}:
        </label>
        <progress id="backtest-progress" max={100} value={percent} />
        <span data-testid="backtest-progress">
          {report.done} of {report.total} decisions
        </span>
      </div>
      {report.state === 'failed' && (
        <p class="error" role="alert">
          The backtest failed{report.error ? `: ${report.error}` : '.'}
        </p>
      )}
      {report.result && (
        <>
          <p data-testid="backtest-summary">
            <strong>{report.result.changed}</strong> of <strong>{report.result.decisions}</strong> decisions would have
            been decided differently.
          </p>
          <div class="grid-2">
            <BeforeAfterBars
              rows={report.result.by_outcome}
              label="outcome"
              caption="Outcomes, as decided and with this pack"
              testId="backtest-by-outcome"
            />
            <BeforeAfterBars
              rows={report.result.by_reason}
              label="reason"
              caption="Reasons, as decided and with this pack"
              testId="backtest-by-reason"
            />
          </div>
          {report.result.samples.length > 0 && (
            <details open>
              <summary>Sample decisions that would change</summary>
              <div class="table-wrap">
                <table data-testid="backtest-samples">
                  <thead>
                    <tr>
                      <th scope="col">Decision</th>
                      <th scope="col">As decided</th>
                      <th scope="col">With this pack</th>
                    </tr>
                  </thead>
                  <tbody>
                    {report.result.samples.map((s) => (
                      <tr key={s.policy_decision_id}>
                        <td>
                          <a href={href('decisions', s.policy_decision_id)}>
                            <code>{s.policy_decision_id}</code>
                          </a>
                        </td>
                        <td>
                          <code>{s.before}</code>
                        </td>
                        <td>
                          <code>{s.after}</code>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </details>
          )}
        </>
      )}
    </div>
  );
}
