export * from './bundle-document.ts';
export * from './bundle-references.ts';
export * from './bundle-verification.ts';
export { decidingChainOf } from './bundle-context.ts';
export * from './verify-bundle.ts';
