/**
 * The conformance fixture format (CONTRACT section 14, docs/conformance.md): a black-box story of HTTP requests and
 * what each answer must show. Strings anywhere in `request`, `expect` and `vars` are templates (resolve-template.ts),
 * resolved just before the step runs, so a step can use what earlier steps captured.
 */
import type { PointerPredicate } from './check-predicate.ts';

export interface Fixture {
  fixture_id: string;
  profile: string;
  title: string;
  description?: string;
  /** a world file (`conformance/worlds/<name>.json`) whose steps run first */
  world?: string;
  /** template variables; they override the world's */
  vars?: Record<string, unknown>;
  /** Ed25519 key pairs generated for this execution, by name: `{{keys.<name>.public_jwk}}`, `sign.key` */
  keys?: string[];
  /**
   * What the deployment must be for the fixture's expectations to hold; the runner finds out before the fixture runs
   * and skips it, with the reason, when the deployment is not so (or when it cannot tell).
   */
  requires?: FixtureRequirement[];
  steps: FixtureStep[];
  /** run after the steps whatever happened (revoking the credentials a fixture made); their failures are ignored */
  cleanup?: FixtureStep[];
}

/**
 * `webhook_target_guard`: the deployment refuses webhook targets that are not https or that are at a loopback,
 * private, link-local… address (its SSRF guard is on: not `AAR_WEBHOOK_ALLOW_INSECURE`). Fixtures that register
 * such targets and expect a refusal need it; where the guard is off those targets would be registered and delivered to.
 */
export const FIXTURE_REQUIREMENTS = ['webhook_target_guard'] as const;
export type FixtureRequirement = (typeof FIXTURE_REQUIREMENTS)[number];

/** A world: the set-up shared by many fixtures (entities, grants, credentials), run before a fixture's own steps. */
export interface FixtureWorld {
  world: string;
  description?: string;
  vars?: Record<string, unknown>;
  keys?: string[];
  steps: FixtureStep[];
  /** run after the fixture's own cleanup */
  cleanup?: FixtureStep[];
}

export interface FixtureStep {
  /** names the step for `repeat` and in failure messages */
  id?: string;
  title?: string;
  /** waits before the request (for a grant or an approval to expire) */
  wait?: StepWait;
  request: StepRequest;
  expect?: StepExpect;
  /** variable name -> JSON pointer into the response body (`""`: the whole body) */
  capture?: Record<string, string>;
}

export interface StepWait {
  /** an ISO 8601 instant to wait until (plus `pad_ms`) */
  until: string;
  /** a wait longer than this skips the fixture (the deployment's setting is longer than the kit waits) */
  max_seconds: number;
  /** default 1000: clocks of the runner and the deployment differ a little */
  pad_ms?: number;
}

export interface StepRequest {
  method?: string;
  path?: string;
  query?: Record<string, string | number | boolean>;
  /** the bearer token; default the runner's token (`{{$token}}`); null: no Authorization header */
  auth?: string | null;
  headers?: Record<string, string>;
  /** JSON body, sent as `application/json` */
  body?: unknown;
  /** a body sent byte for byte (malformed JSON); `headers` should then name its content type */
  raw_body?: string;
  idempotency_key?: string;
  /** RFC 9421-sign the request (CONTRACT section 7) with a key of `keys` */
  sign?: StepSignature;
  /** resend the exact request of an earlier step (same bytes, same signature, same nonce) */
  repeat?: string;
  /** add the delegator's signed statement (`delegator_proof`, CONTRACT section 5) over the body, made with a key */
  delegator_proof?: { key: string; delegator: string };
  /**
   * sign `document` per CONTRACT section 4 with a key of `keys` (its `key_id` being `keyid`) and put the signature in
   * body member `member` (an agent's signature over a payload artefact statement); without `member` the body becomes
   * the signed document itself, merged over `body` (an agent's metadata attestation)
   */
  document_signature?: { key: string; keyid: string; member?: string; document: unknown };
}

export interface StepSignature {
  /** a name in the fixture's (or world's) `keys` */
  key: string;
  /** the `keyid` parameter: the agent's entity id */
  keyid: string;
  /** seconds added to the runner's clock for `created` (negative: an old signature) */
  created_offset?: number;
  nonce?: string;
  components?: string[];
  label?: string;
}

export interface HeaderExpectation {
  equals?: string;
  matches?: string;
  /** true: the header must not be sent */
  absent?: boolean;
}

export type Verification =
  /** a signed JSON document (CONTRACT section 4) at this pointer, against the deployment's JWKS */
  | { signed_document: string }
  /** an evidence pack at this pointer, verified and replayed offline by core against the JWKS */
  | { evidence_pack: string }
  /** an inclusion proof at this pointer leads to `root_hash` (base64) */
  | { inclusion_proof: string; root_hash: string }
  /** a consistency proof at this pointer leads from `old_root` to `new_root` */
  | { consistency_proof: string; old_root: string; new_root: string }
  /** an audit entry at this pointer: its `leaf_hash` is SHA-256(0x00 ‖ entry bytes) */
  | { audit_entry: string };

export interface StepExpect {
  status?: number | number[];
  headers?: Record<string, string | HeaderExpectation>;
  /** the body contains this (match-subset.ts) */
  body?: unknown;
  pointers?: PointerPredicate[];
  /** an RFC 9457 problem document; a string: with this `code` */
  problem?: true | string;
  /** the body (or the value at `pointer`) is valid against this JSON Schema */
  schema?: string | { name: string; pointer?: string };
  verify?: Verification[];
}
