export * from './create-jwks-source.ts';
export * from './resolve-jwks-url.ts';
