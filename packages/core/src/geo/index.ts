export * from './jurisdictions.ts';
