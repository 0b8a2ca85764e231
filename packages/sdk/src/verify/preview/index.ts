export * from './preview-verification.ts';
export * from './canonical-digest.ts';
export * from './verify-payload-artefact.ts';
export * from './verify-memory-record.ts';
export * from './verify-memory-chain.ts';
export * from './verify-compliance-report.ts';
