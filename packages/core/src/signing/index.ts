export * from './ed25519.ts';
export * from './ed25519-jwk.ts';
export * from './sign-document.ts';
export * from './verify-document.ts';
export * from './web-crypto-signer.ts';
export * from './resolve-jwks-url.ts';
