import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { getReportOscal, getReportText, listReports } from '../services/reports/read-reports.ts';
import { createSchedule, deleteSchedule, getSchedule, listSchedules } from '../services/reports/report-schedules.ts';
import { requestReport } from '../services/reports/request-report.ts';
import { pageQueryProperties, pageRequest, pageSchema } from './pagination.ts';
import { IdParams, SINGLE_LINE_TEXT, Timestamp } from './schemas.ts';

const PREVIEW =
  'PREVIEW (SPEC "Preview"): compliance reports may change incompatibly until the v1.1 set is frozen; an opt-in ' +
  'capability (AAR_OPT_IN=reports) whose every operation needs its token scope, for every role. ';

const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Framework = Type.String({ pattern: '^[a-z0-9_]{2,40}$', description: '`soc2`, `iso27001`, `eu_ai_act`, …' });
const Frameworks = Type.Array(Framework, {
  maxItems: 16,
  description: 'frameworks whose control coverage the report carries (GET /v1/compliance/frameworks), each once',
});
const Period = Type.Object({ start: Timestamp, end: Timestamp }, { additionalProperties: false });

const ScheduleBody = Type.Object(
  {
    every: Type.String({
      minLength: 1,
      maxLength: 32,
      description:
        '`hour`, `day`, `week`, `month`, or an ISO 8601 duration (`PT6H`, `P2D`, `P1W`) of at least one hour: ' +
        'anything more often than hourly is 400 naming `/every`',
    }),
    frameworks: Type.Optional(Frameworks),
    description: Type.Optional(Type.String({ maxLength: 200, pattern: SINGLE_LINE_TEXT })),
    starts_at: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'where reporting starts (default now): at most 31 days back (past periods are generated at once)',
      }),
    ),
  },
  { additionalProperties: false },
);

const Schedule = Type.Object(
  {
    schedule_id: Type.String({ description: '`ns:report_schedule:<uuid>`' }),
    every: Type.String(),
    frameworks: Type.Array(Type.String()),
    description: Nullable(Type.String()),
    anchor: Nullable(Type.String({ description: 'interval schedules: the instant periods run from' })),
    next_period: Period,
    created_at: Timestamp,
    deleted_at: Nullable(Timestamp),
  },
  { additionalProperties: false },
);

const ReportBody = Type.Object(
  { from: Timestamp, to: Timestamp, frameworks: Type.Optional(Frameworks) },
  { additionalProperties: false },
);

const ReportSummary = Type.Object(
  {
    report_id: Type.String(),
    schedule_id: Nullable(Type.String()),
    period: Period,
    generated_at: Timestamp,
    digest: Type.String({ description: '`sha-256:` + base64url SHA-256 of the stored bytes' }),
    download_path: Type.String(),
  },
  { additionalProperties: false },
);

const ListQuery = Type.Object(
  { ...pageQueryProperties, schedule_id: Type.Optional(Type.String({ maxLength: 128 })) },
  { additionalProperties: false },
);

const ReportQuery = Type.Object(
  {
    format: Type.Optional(
      Type.Union([Type.Literal('json'), Type.Literal('oscal')], {
        description: '`json` (default): the signed report; `oscal`: one framework as OSCAL 1.1.2 assessment-results',
      }),
    ),
    framework: Type.Optional(Framework),
  },
  { additionalProperties: false },
);

const JSON_TYPE = 'application/json; charset=utf-8';

/** compliance reports and their schedules, opt-in (CONTRACT 22, docs/reports.md); every operation `x-preview: true`. */
export async function reportRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['reports'];
  const preview = { 'x-preview': true };

  r.post('/v1/reports/schedules', {
    config: { scope: 'reports.write', errors: ['capability_not_enabled', 'scope_missing'] },
    schema: {
      ...preview,
      tags,
      summary: 'Schedule compliance reports for this deployment (preview)',
      operationId: 'createReportSchedule',
      description:
        PREVIEW +
        'A report (`ns.compliance_report.v1`) is generated at the end of every period (`every`: calendar hour, ' +
        'day, ISO week, month, all UTC, or a fixed interval from `starts_at`), once per period whatever the number ' +
        'of instances, and announced by `ns.report.generated`. More often than once an hour is 400 naming ' +
        '`/every`; an unknown framework is 400 naming `/frameworks/<i>`; nothing is written then.',
      body: ScheduleBody,
      response: { 201: Schedule },
    },
    handler: async (req, reply) => reply.code(201).send(await createSchedule(ctx, req.credential, req.body)),
  });

  r.get('/v1/reports/schedules', {
    config: { roles: ['auditor'], scope: 'reports.read', errors: ['capability_not_enabled', 'scope_missing'] },
    schema: {
      ...preview,
      tags,
      summary: 'The report schedules, oldest first (preview)',
      operationId: 'listReportSchedules',
      description: PREVIEW + 'Every schedule, deleted ones included (with `deleted_at`), paginated.',
      querystring: Type.Object(pageQueryProperties, { additionalProperties: false }),
      response: { 200: pageSchema(Schedule) },
    },
    handler: async (req) => listSchedules(ctx, pageRequest(req.query)),
  });

  r.get('/v1/reports/schedules/:id', {
    config: { roles: ['auditor'], scope: 'reports.read', errors: ['capability_not_enabled', 'scope_missing'] },
    schema: {
      ...preview,
      tags,
      summary: 'One report schedule (preview)',
      operationId: 'getReportSchedule',
      description: PREVIEW + 'The schedule `ns:report_schedule:<uuid>` with the next period it will report on.',
      params: IdParams,
      response: { 200: Schedule },
    },
    handler: async (req) => getSchedule(ctx, req.params.id),
  });

  r.delete('/v1/reports/schedules/:id', {
    config: { scope: 'reports.write', errors: ['capability_not_enabled', 'scope_missing'] },
    schema: {
      ...preview,
      tags,
      summary: 'Stop a report schedule (preview)',
      operationId: 'deleteReportSchedule',
      description:
        PREVIEW +
        'Sets `deleted_at` (emitting `ns.report.schedule_deleted`); the schedule generates nothing more and its ' +
        'reports stay. Deleting a deleted schedule answers it unchanged and writes nothing.',
      params: IdParams,
      response: { 200: Schedule },
    },
    handler: async (req) => deleteSchedule(ctx, req.credential, req.params.id),
  });

  r.post('/v1/reports', {
    config: {
      roles: ['auditor'],
      scope: 'reports.write',
      errors: ['capability_not_enabled', 'scope_missing', 'audit_unavailable'],
    },
    schema: {
      ...preview,
      tags,
      summary: 'Generate a compliance report for a past period now (preview)',
      operationId: 'createReport',
      description:
        PREVIEW +
        'Counts [`from`, `to`) and projects its evidence packs onto `frameworks`, signs the `ns.compliance_report.v1`, ' +
        'stores it with its `ns.report.generated` (reason `report_requested`) and answers it (201). `to` may not be ' +
        'in the future, `from` must be before it, the period at most 366 days: 400 naming the field otherwise. ' +
        'Packs not yet assembled are assembled on the way (which may sign a checkpoint).',
      body: ReportBody,
      response: { 201: Open('`ns.compliance_report.v1`, signed') },
    },
    handler: async (req, reply) => {
      const { text } = await requestReport(ctx, req.credential, req.body);
      return reply
        .code(201)
        .type(JSON_TYPE)
        .send(text as unknown as Record<string, unknown>);
    },
  });

  r.get('/v1/reports', {
    config: { roles: ['auditor'], scope: 'reports.read', errors: ['capability_not_enabled', 'scope_missing'] },
    schema: {
      ...preview,
      tags,
      summary: 'The stored compliance reports, newest first (preview)',
      operationId: 'listReports',
      description:
        PREVIEW +
        'Summaries `{ report_id, schedule_id, period, generated_at, digest, download_path }`, newest first, ' +
        'paginated; `schedule_id` keeps one schedule\u2019s.',
      querystring: ListQuery,
      response: { 200: pageSchema(ReportSummary) },
    },
    handler: async (req) => listReports(ctx, pageRequest(req.query), req.query.schedule_id),
  });

  r.get('/v1/reports/:id', {
    config: { roles: ['auditor'], scope: 'reports.read', errors: ['capability_not_enabled', 'scope_missing'] },
    schema: {
      ...preview,
      tags,
      summary: 'A compliance report: the signed document, or OSCAL (preview)',
      operationId: 'getReport',
      description:
        PREVIEW +
        'The signed `ns.compliance_report.v1` byte for byte as stored (its SHA-256 is the `digest` of its ' +
        '`ns.report.generated`). `?format=oscal` answers one framework\u2019s coverage as an OSCAL 1.1.2 ' +
        '`assessment-results` document with the signed report in its back-matter: `framework` names it (optional ' +
        'when the report covers exactly one; otherwise 400 naming `/query/framework`); a report covering no ' +
        'framework has no OSCAL form (404).',
      params: IdParams,
      querystring: ReportQuery,
      response: { 200: Open('`ns.compliance_report.v1` (signed), or an OSCAL `assessment-results` document') },
    },
    handler: async (req, reply) => {
      if (req.query.format === 'oscal') return getReportOscal(ctx, req.params.id, req.query.framework);
      const text: unknown = await getReportText(ctx, req.params.id);
      return reply.type(JSON_TYPE).send(text as Record<string, unknown>);
    },
  });
}
