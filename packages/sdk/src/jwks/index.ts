export * from './create-jwks-source.ts';
// the rule itself is core's (pure), shared with the aar CLI's offline verifiers
export { isJwksDocumentUrl, resolveJwksUrl, type JwksLocation } from '@aar/core';
