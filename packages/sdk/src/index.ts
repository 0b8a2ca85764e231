export * from './client/index.ts';
export * from './request-signer/index.ts';
export * from './delegation/index.ts';
export * from './jwks/index.ts';
export * from './verify/index.ts';
export * from './core-exports.ts';
export type * from './generated/api-types.ts';
export { OPERATIONS, type OperationSpec } from './generated/operations.ts';
