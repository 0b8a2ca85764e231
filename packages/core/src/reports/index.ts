export * from './compliance-report.ts';
export * from './report-ids.ts';
export * from './report-period.ts';
export * from './control-coverage.ts';
export * from './assemble-report.ts';
export * from './report-oscal.ts';
