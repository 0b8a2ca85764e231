// The attempt-signing thread when the service runs from its TypeScript sources (tests, benchmarks,
// AAR_FROM_SOURCE=1): a worker thread does not inherit the loader hooks of its parent, so it registers what
// bin/aar.js registers (the workspace packages' `aar-source` condition, then tsx) before loading
// attempt-signing-worker.ts. The build runs attempt-signing-worker.js. (The same as audit/verify/walk-worker-source.mjs.)
import { register } from 'node:module';

register(
  'data:text/javascript,export async function resolve(s,c,n){return n(s,{...c,conditions:[...c.conditions,"aar-source"]})}',
);
const { register: registerTsx } = await import('tsx/esm/api');
registerTsx();
await import('./attempt-signing-worker.ts');
