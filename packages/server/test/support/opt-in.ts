/**
 * Test support for opt-in capabilities and token scopes (CONTRACT section 22): a test runtime with capabilities
 * enabled, listening on a real socket, and tokens minted with a role, scopes and (for the principal role) a principal,
 * through the admin API as an operator would.
 */
import type { OptInCapability } from '../../src/config.ts';
import type { TokenScope } from '../../src/http/token-scopes.ts';
import type { Dialect } from '../../src/store/index.ts';
import type { Clock } from '../../src/clock.ts';
import { createApiCall, type ApiCall } from './api-call.ts';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime, type TestRuntimeOptions } from './test-runtime.ts';

export interface OptInRuntime extends TestRuntime {
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** JSON over HTTP; the admin token unless another is given */
  call: ApiCall;
}

export interface OptInRuntimeOptions extends Omit<TestRuntimeOptions, 'optIn'> {
  dialect?: Dialect;
  clock?: Clock;
}

/** A test runtime with `optIn` enabled (none: `[]`), listening on 127.0.0.1 on a free port. */
export async function startOptInRuntime(
  optIn: readonly OptInCapability[],
  options: OptInRuntimeOptions = {},
): Promise<OptInRuntime> {
  const rt = await startTestRuntime({ ...options, optIn });
  try {
    const base = await rt.app.listen({ host: '127.0.0.1', port: 0 });
    return { ...rt, base, call: createApiCall(base, ADMIN_TOKEN) };
  } catch (error) {
    await rt.close();
    throw error;
  }
}

export interface MintTokenOptions {
  role: 'admin' | 'runtime' | 'principal' | 'auditor' | 'pep';
  scopes?: readonly TokenScope[];
  /** required for the principal role: `ns:entity:person:<id>` (the entity must exist) */
  principal?: string;
  label?: string;
}

/** Creates a token through `POST /v1/tokens` (as the admin) and returns its secret; throws on any refusal. */
export async function mintToken(call: ApiCall, options: MintTokenOptions): Promise<string> {
  const res = await call('POST', '/v1/tokens', {
    role: options.role,
    ...(options.scopes ? { scopes: options.scopes } : {}),
    ...(options.principal ? { principal_entity_id: options.principal } : {}),
    ...(options.label ? { label: options.label } : {}),
  });
  if (res.status !== 201)
    throw new Error(`minting a ${options.role} token -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token as string;
}

/** Creates a person principal `ns:entity:person:<id>` (admin) and returns its entity id. */
export async function createPerson(call: ApiCall, id: string): Promise<string> {
  const res = await call('POST', '/v1/entities', { type: 'person', id, display_name: id });
  if (res.status !== 201) throw new Error(`creating person ${id} -> ${res.status} ${JSON.stringify(res.body)}`);
  return `ns:entity:person:${id}`;
}
