// The audit walk worker when the service runs from its TypeScript sources (tests, benchmarks, AAR_FROM_SOURCE=1):
// a worker thread does not inherit the loader hooks of its parent, so it registers what bin/aar.js registers (the
// workspace packages' `aar-source` condition, then tsx) before loading walk-worker.ts. The build runs walk-worker.js.
import { register } from 'node:module';

register(
  'data:text/javascript,export async function resolve(s,c,n){return n(s,{...c,conditions:[...c.conditions,"aar-source"]})}',
);
const { register: registerTsx } = await import('tsx/esm/api');
registerTsx();
await import('./walk-worker.ts');
