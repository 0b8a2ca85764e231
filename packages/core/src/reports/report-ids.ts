/** The ids of reports and schedules (`ns:compliance_report:<uuid>`, `ns:report_schedule:<uuid>`), minted by the server. */
import { fieldError } from '../errors/aar-error.ts';
import { UUID_PATTERN } from '../ids/identifiers.ts';

export const REPORT_ID_PREFIX = 'ns:compliance_report:';
export const REPORT_SCHEDULE_ID_PREFIX = 'ns:report_schedule:';

export const reportId = (uuid: string): string => `${REPORT_ID_PREFIX}${uuid}`;
export const reportScheduleId = (uuid: string): string => `${REPORT_SCHEDULE_ID_PREFIX}${uuid}`;

function parse(prefix: string, value: unknown, path: string): string {
  if (typeof value !== 'string' || !value.startsWith(prefix) || !UUID_PATTERN.test(value.slice(prefix.length))) {
    throw fieldError('invalid_id', path, `must be an id of the form \`${prefix}<uuid>\``);
  }
  return value;
}

/** Throws 400 `invalid_id` naming `path` unless `value` is a report id. */
export const parseReportId = (value: unknown, path: string): string => parse(REPORT_ID_PREFIX, value, path);
/** Throws 400 `invalid_id` naming `path` unless `value` is a schedule id. */
export const parseReportScheduleId = (value: unknown, path: string): string =>
  parse(REPORT_SCHEDULE_ID_PREFIX, value, path);
