export * from './request-signer/index.ts';
