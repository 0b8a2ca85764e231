export * from './identifiers.ts';
export * from './ref-path.ts';
