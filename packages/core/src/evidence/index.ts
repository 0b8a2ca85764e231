export * from './audit-entry-json.ts';
export * from './decision-record.ts';
export * from './evidence-pack.ts';
export * from './replay-decision.ts';
export * from './verification-result.ts';
export * from './verify-evidence-pack.ts';
