export * from './dialect.ts';
export * from './open-store.ts';
export type * from './schema.ts';
