/** The tables of reports and schedules (migration 0028), part of `Database` (schema.ts). Conventions as in schema.ts. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by issue 30's work
export interface ReportTables {}
