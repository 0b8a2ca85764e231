/**
 * Compliance reports (`ns.compliance_report.v1`, an opt-in preview capability): the list (GET /v1/reports, newest
 * first as the API answers, a page at a time), one report with its figures (the period, decisions by outcome,
 * denials by reason as a chart, approvals, revocations, control coverage per framework), its download as the signed
 * JSON and as OSCAL, and the deployment's schedules. When the deployment has not enabled reports, or the token lacks
 * `reports.read`, the page says which, and what to do.
 */
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError } from '../api-client.ts';
import { DenialBars } from '../charts/denial-bars.tsx';
import { CapabilityNotice } from '../parts/capability-notice.tsx';
import { downloadJson, fileNameFor } from '../parts/download.ts';
import { formatTime } from '../parts/format.ts';
import { ErrorMessage, LoadState } from '../parts/load-state.tsx';
import { PAGE_SIZE, PageControls, usePages, useUrlFilter, type Page } from '../parts/paging.tsx';
import {
  readReport,
  readReportRow,
  type AmountRow,
  type Figure,
  type FrameworkCoverage,
  type ReportRow,
  type ReportView,
  wordsFor,
} from '../parts/report-model.ts';
import { href } from '../router.ts';
import { useSession } from '../session.tsx';
import { useApi, type Loaded } from '../use-api.ts';
import { ReportSchedules } from './report-schedules.tsx';

const WHAT = 'Compliance reports';

export function ReportsPage({ id }: { id: string | undefined }) {
  return id ? <ReportDetail id={id} /> : <ReportList />;
}

/** Like LoadState, but a capability refusal is said as such. */
function CapabilityLoad<T>({
  loaded,
  children,
}: {
  loaded: Loaded<T>;
  children: (data: T) => preact.ComponentChildren;
}) {
  if (loaded.error)
    return <CapabilityNotice error={loaded.error} capability="reports" scope="reports.read" what={WHAT} />;
  return <LoadState loaded={loaded}>{children}</LoadState>;
}

function period(row: { period_start: string | undefined; period_end: string | undefined }): string {
  return `${formatTime(row.period_start)} to ${formatTime(row.period_end)}`;
}

const FILTERS = ['schedule'] as const;

function ReportList() {
  const { api } = useSession();
  const filter = useUrlFilter(FILTERS);
  const pages = usePages(filter.key);
  const reports = useApi(async () => {
    const page = await api.get<Page<unknown>>('/v1/reports', {
      schedule_id: filter.applied.schedule || undefined,
      limit: String(PAGE_SIZE),
      cursor: pages.cursor,
    });
    return {
      items: page.items.map(readReportRow).filter((r): r is ReportRow => r !== undefined),
      next_cursor: page.next_cursor,
    };
  }, [filter.key, pages.cursor]);
  return (
    <>
      <div class="page-head">
        <h1>Reports</h1>
        <button type="button" class="secondary" onClick={reports.reload}>
          Refresh
        </button>
      </div>
      <p class="muted">
        Signed compliance reports over a period: decisions, denials by reason, approvals, revocations and the coverage
        of each framework's controls. Preview, opt-in.
      </p>
      <CapabilityLoad loaded={reports}>
        {(page) => (
          <>
            <section class="card" aria-label="Reports">
              {filter.applied.schedule && (
                <p>
                  Made by schedule <code>{filter.applied.schedule}</code>.{' '}
                  <button type="button" class="secondary" onClick={filter.clear}>
                    Show every report
                  </button>
                </p>
              )}
              {page.items.length === 0 ? (
                <p class="muted">{pages.number === 1 ? 'No report has been made yet.' : 'No more reports.'}</p>
              ) : (
                <div class="table-wrap">
                  <table aria-label="Reports">
                    <thead>
                      <tr>
                        <th scope="col">Period (UTC)</th>
                        <th scope="col">Generated</th>
                        <th scope="col">Report</th>
                      </tr>
                    </thead>
                    <tbody>
                      {page.items.map((row) => (
                        <tr key={row.report_id} data-report-id={row.report_id}>
                          <td>
                            <a href={href('reports', row.report_id)}>{period(row)}</a>
                          </td>
                          <td>{formatTime(row.generated_at)}</td>
                          <td>
                            <code>{row.report_id}</code>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
              <PageControls pages={pages} page={page} label="reports" />
            </section>
            <ReportSchedules onReport={reports.reload} />
          </>
        )}
      </CapabilityLoad>
    </>
  );
}

function ReportDetail({ id }: { id: string }) {
  const { api } = useSession();
  const loaded = useApi(async () => {
    const document = await api.get<unknown>(`/v1/reports/${encodeURIComponent(id)}`);
    return { document, view: readReport(document) };
  }, [id]);
  return (
    <>
      <div class="page-head">
        <h1>Report</h1>
        <a href={href('reports')}>All reports</a>
      </div>
      <CapabilityLoad loaded={loaded}>
        {({ document, view }) => <ReportBody document={document} view={view} />}
      </CapabilityLoad>
    </>
  );
}

function FigureList({ rows, label, empty }: { rows: readonly Figure[]; label: string; empty: string }) {
  if (rows.length === 0) return <p class="muted">{empty}</p>;
  return (
    <dl class="facts" aria-label={label}>
      {rows.map((f) => (
        <Fragment key={f.key}>
          <dt>{f.label}</dt>
          <dd data-figure={f.key}>{f.count}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

function ReportBody({ document, view }: { document: unknown; view: ReportView }) {
  return (
    <>
      <section class="card" aria-label="Period">
        <dl class="facts">
          <dt>Period</dt>
          <dd data-testid="report-period">{period(view)}</dd>
          <dt>Made</dt>
          <dd>
            {view.schedule_id ? (
              <>
                by schedule <code>{view.schedule_id}</code>
                {view.every ? `, every ${view.every}` : ''}
              </>
            ) : (
              'on demand'
            )}
            , {formatTime(view.generated_at)}
          </dd>
          <dt>Report</dt>
          <dd>
            <code>{view.report_id}</code>
          </dd>
        </dl>
        <Downloads document={document} view={view} />
      </section>
      <section class="card" aria-labelledby="report-decisions">
        <h2 id="report-decisions">
          Decisions{view.decisionsTotal !== undefined ? `: ${view.decisionsTotal} in all` : ''}
        </h2>
        <FigureList rows={view.outcomes} label="Decisions by outcome" empty="No decision in this period." />
        {view.allowedAmounts.length > 0 && (
          <>
            <h3>Amounts allowed</h3>
            <Amounts rows={view.allowedAmounts} label="Amounts allowed" />
          </>
        )}
        {view.executions.some((f) => f.count > 0) && (
          <>
            <h3>Execution outcomes</h3>
            <FigureList rows={view.executions} label="Execution outcomes" empty="" />
          </>
        )}
        {view.executedAmounts.length > 0 && (
          <>
            <h3>Amounts executed</h3>
            <Amounts rows={view.executedAmounts} label="Amounts executed" />
          </>
        )}
      </section>
      <section class="card" aria-labelledby="report-denials">
        <h2 id="report-denials">
          Denials by reason{view.denialsTotal !== undefined ? `: ${view.denialsTotal} in all` : ''}
        </h2>
        <DenialBars rows={view.denials} label="Denials by reason" />
      </section>
      <div class="report-pair">
        <section class="card" aria-labelledby="report-approvals">
          <h2 id="report-approvals">Approvals</h2>
          <FigureList rows={view.approvals} label="Approvals" empty="No approval in this period." />
        </section>
        <section class="card" aria-labelledby="report-revocations">
          <h2 id="report-revocations">Revocations</h2>
          <FigureList rows={view.revocations} label="Revocations" empty="No revocation in this period." />
        </section>
      </div>
      <section class="card" aria-labelledby="report-coverage">
        <h2 id="report-coverage">Control coverage per framework</h2>
        {view.coverage.length === 0 ? (
          <p class="muted">This report covers no framework (its schedule or request named none).</p>
        ) : (
          <>
            <div class="table-wrap">
              <table aria-label="Control coverage per framework">
                <thead>
                  <tr>
                    <th scope="col">Framework</th>
                    <th scope="col">Evidence packs</th>
                    {coverageColumns(view).map((c) => (
                      <th scope="col" key={c.key}>
                        {c.label}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {view.coverage.map((fw) => (
                    <tr key={fw.framework} data-framework={fw.framework}>
                      <th scope="row">
                        <code>{fw.framework}</code>
                      </th>
                      <td>
                        {fw.packsProjected ?? '—'}
                        {fw.packsInPeriod !== undefined && fw.packsInPeriod !== fw.packsProjected
                          ? ` of ${fw.packsInPeriod}`
                          : ''}
                      </td>
                      {coverageColumns(view).map((c) => (
                        <td key={c.key} data-status={c.key}>
                          {fw.figures.find((f) => f.key === c.key)?.count ?? 0}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {view.coverage.map((fw) => (
              <FrameworkControls key={fw.framework} coverage={fw} reportId={view.report_id} />
            ))}
          </>
        )}
      </section>
    </>
  );
}

function Amounts({ rows, label }: { rows: readonly AmountRow[]; label: string }) {
  return (
    <ul class="plain-list" aria-label={label}>
      {rows.map((row) => (
        <li key={row.currency}>
          <strong>{row.amount}</strong>
          {row.count !== undefined ? ` over ${row.count} decision${row.count === 1 ? '' : 's'}` : ''}
        </li>
      ))}
    </ul>
  );
}

/** One framework's controls, folded: each control's status in words, why, and how many packs held its evidence. */
function FrameworkControls({ coverage, reportId }: { coverage: FrameworkCoverage; reportId: string }) {
  return (
    <details class="framework-controls" data-framework-controls={coverage.framework}>
      <summary>
        {coverage.framework}: {coverage.controls.length} control{coverage.controls.length === 1 ? '' : 's'}
        {coverage.rule_pack ? ` (${coverage.rule_pack})` : ''}
      </summary>
      <ul class="control-list">
        {coverage.controls.map((c) => (
          <li key={c.control_id} data-control={c.control_id}>
            <span class="control-head">
              <ControlStatus status={c.status} />
              <code>{c.control_id}</code>
            </span>
            <span>
              {c.title}
              {c.reason ? <span class="muted"> {c.reason}</span> : null}
              {c.applicable !== undefined ? (
                <span class="muted">
                  {' '}
                  ({c.satisfying ?? 0} of {c.applicable} applicable pack{c.applicable === 1 ? '' : 's'})
                </span>
              ) : null}
            </span>
          </li>
        ))}
      </ul>
      <OscalDownload reportId={reportId} framework={coverage.framework} />
    </details>
  );
}

const STATUS_TONE: Record<string, string> = {
  satisfied: 'allow',
  partially_satisfied: 'approval',
  not_satisfied: 'deny',
  gap: 'deny',
  not_applicable: 'neutral',
};

/** A control's status in words and a tone (colour never the only carrier: the words are there). */
function ControlStatus({ status }: { status: string }) {
  return <span class={`badge badge-${STATUS_TONE[status] ?? 'neutral'}`}>{wordsFor(status).toLowerCase()}</span>;
}

/** The union of the frameworks' statuses, in the order of the first framework's: one column each. */
function coverageColumns(view: ReportView): Figure[] {
  const seen = new Map<string, Figure>();
  for (const fw of view.coverage) for (const f of fw.figures) if (!seen.has(f.key)) seen.set(f.key, f);
  return [...seen.values()];
}

function Downloads({ document, view }: { document: unknown; view: ReportView }) {
  return (
    <div class="actions">
      <button
        type="button"
        class="secondary"
        onClick={() => downloadJson(fileNameFor(view.report_id, '.json'), document)}
      >
        Download JSON (signed)
      </button>
      {view.coverage.length === 1 && (
        <OscalDownload reportId={view.report_id} framework={view.coverage[0]!.framework} />
      )}
      {view.coverage.length > 1 && <span class="muted">OSCAL: one document per framework, under each below.</span>}
    </div>
  );
}

/** `GET /v1/reports/{id}?format=oscal&framework=` (OSCAL 1.1.2 assessment-results carrying the signed report). */
function OscalDownload({ reportId, framework }: { reportId: string; framework: string }) {
  const { api } = useSession();
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const answer = await api.get<unknown>(`/v1/reports/${encodeURIComponent(reportId)}`, {
        format: 'oscal',
        framework,
      });
      downloadJson(fileNameFor(reportId, `.${framework}.oscal.json`), answer);
    } catch (err) {
      setError(err instanceof Error ? err : new ApiError(0, 'error', String(err)));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" class="secondary" disabled={busy} onClick={download}>
        {busy ? 'Preparing OSCAL…' : `Download OSCAL (${framework})`}
      </button>
      {error && <ErrorMessage error={error} />}
    </>
  );
}
