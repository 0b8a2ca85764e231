export * from './create-jwks-source.ts';
