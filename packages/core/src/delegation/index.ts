export * from './chain-documents.ts';
export * from './chain-problem.ts';
export * from './read-wire-scope.ts';
export * from './find-attenuation-violations.ts';
export * from './delegation-statement.ts';
export * from './verify-link-delegation.ts';
export * from './verify-delegation-chain.ts';
