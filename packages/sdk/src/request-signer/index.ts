export * from './create-request-signer.ts';
export type { Ed25519PrivateJwk, RequestSignerPrivateKey } from './import-signing-key.ts';
