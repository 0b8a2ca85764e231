/**
 * `ns.report.*` (CONTRACT section 22, issue 30): compliance report schedules and the reports they generate
 * (docs/reports.md). Ids, periods and digests only: the report itself is fetched from `download_path` (with a
 * `reports.read` token) and checked against `digest`, which this signed envelope commits to, so a receiver holds
 * the report "linked" with the same assurance as attached.
 */
import { defineEventType } from '../event-type-definition.ts';
import { closedObject, nullable, TIMESTAMP, type JsonSchema } from '../schema-parts.ts';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const REPORT_ID = `ns:compliance_report:${UUID}`;
const SCHEDULE_ID = `ns:report_schedule:${UUID}`;
const reportId: JsonSchema = { type: 'string', pattern: `^${REPORT_ID}$`, description: 'the report' };
const scheduleId = (description: string): JsonSchema => ({ type: 'string', pattern: `^${SCHEDULE_ID}$`, description });
const EVERY: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 32,
  description: '`hour`, `day`, `week`, `month`, or an ISO 8601 duration of at least one hour (`PT6H`)',
};
const FRAMEWORKS: JsonSchema = {
  type: 'array',
  items: { type: 'string', pattern: '^[a-z0-9_]{2,40}$' },
  description: 'the frameworks whose control coverage each report carries',
};

export const REPORT_EVENTS = [
  defineEventType({
    event_type: 'ns.report.scheduled',
    description: 'a report schedule is created (`POST /v1/reports/schedules`)',
    subject_ref: { description: 'the schedule, `ns:report_schedule:<uuid>`', pattern: `^${SCHEDULE_ID}$` },
    reason_codes: ['report_scheduled'],
    principal_entity_id: 'never',
    actor_entity_id: 'always',
    data_schema: closedObject({
      schedule_id: scheduleId('the schedule'),
      every: EVERY,
      anchor: nullable({ ...TIMESTAMP, description: 'interval schedules: the instant periods run from' }),
      frameworks: FRAMEWORKS,
      first_period_start: { ...TIMESTAMP, description: 'the start of the first period it reports on' },
    }),
  }),
  defineEventType({
    event_type: 'ns.report.schedule_deleted',
    description: 'a report schedule is deleted (`DELETE /v1/reports/schedules/{id}`): it generates no more reports',
    subject_ref: { description: 'the schedule', pattern: `^${SCHEDULE_ID}$` },
    reason_codes: ['report_schedule_deleted'],
    principal_entity_id: 'never',
    actor_entity_id: 'always',
    data_schema: closedObject({ schedule_id: scheduleId('the schedule') }),
  }),
  defineEventType({
    event_type: 'ns.report.generated',
    description:
      'a compliance report is generated and stored, by its schedule at the end of a period (once per period, ' +
      'whatever the number of instances) or on demand (`POST /v1/reports`); written in the same transaction as ' +
      'the report. Fetch it from `download_path` and compare its SHA-256 with `digest`',
    subject_ref: { description: 'the report, `ns:compliance_report:<uuid>`', pattern: `^${REPORT_ID}$` },
    reason_codes: ['report_scheduled_period_ended', 'report_requested'],
    principal_entity_id: 'never',
    actor_entity_id: 'sometimes',
    data_schema: closedObject({
      report_id: reportId,
      schedule_id: nullable(scheduleId('the schedule that generated it; null on demand')),
      period_start: { ...TIMESTAMP, description: 'inclusive' },
      period_end: { ...TIMESTAMP, description: 'exclusive' },
      digest: {
        type: 'string',
        pattern: '^sha-256:[A-Za-z0-9_-]{43}$',
        description: 'SHA-256 of the signed report\u2019s RFC 8785 bytes (signature included), base64url',
      },
      download_path: {
        type: 'string',
        pattern: `^/v1/reports/${REPORT_ID}$`,
        description: 'where the signed report is downloaded, relative to the issuer URL',
      },
      frameworks: FRAMEWORKS,
    }),
  }),
];
