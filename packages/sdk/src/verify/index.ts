export * from './trusted-key-source.ts';
export * from './verify-document.ts';
export * from './verify-decision-map.ts';
export * from './verify-evidence-pack.ts';
export * from './verify-delegation-chain.ts';
export * from './verify-checkpoint.ts';
export * from './verify-webhook.ts';
export * from './verify-bundle.ts';
