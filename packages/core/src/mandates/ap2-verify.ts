/**
 * verifyAp2Presentation (DESIGN-29 section 7): an AP2 v0.2 mandate presentation, verified hop by hop.
 * Libraries: @sd-jwt/decode decodes each SD-JWT and resolves its disclosures, jose verifies every JWS and computes
 * key thumbprints. Hand-written (the libraries have no Delegate SD-JWT chains): the '~~' split (ap2-hop.ts), the
 * RFC 9901 strictness checks (ap2-disclosures.ts), the chain rules below and the checkout<->payment bindings.
 * Chain rules: hop 0 is signed by a configured issuer key (ap2-signatures.ts); hop n > 0 is a `kb+sd-jwt` (or
 * `kb+sd-jwt+kb`, an intermediate hop the AP2 reference SDK types so) signed by a
 * `cnf.jwk` of hop n-1 (its top-level `cnf`, the user-credential model, or a disclosed mandate content's `cnf`),
 * with `sd_hash` = base64url(SHA-256(hop n-1's text with its trailing '~')), a string `nonce`, an `aud` among
 * `options.audiences` and a numeric `iat`. A presentation whose first hop is itself a `kb+sd-jwt` (a closed mandate
 * shown without its open parent) cannot name any key: issuer_key_unknown, its other checks still run.
 * Time (unless checkTime is false): an `exp` of a hop or a mandate content at or before now is `expired`, and so is an
 * `iat` or `nbf` more than 60 s ahead (a token from the future is not valid now either).
 * Every error is collected with its JSON pointer; nothing stops at the first one, so a refusal names every fault.
 * Attacker assumption: the presentation is hostile end to end (size bounded first, nesting bounded, every key it
 * carries untrusted except as a key-binding key endorsed by an already-checked hop); the options are trusted.
 * Pure: no clock (nowSeconds is given), no store (nonces are returned for the caller's replay check), no network.
 */
import { getClaims } from '@sd-jwt/decode';
import type { JWK } from 'jose';
import { checkDisclosures } from './ap2-disclosures.ts';
import { decodeHop, sha256Hasher, splitHops, type DecodedHop } from './ap2-hop.ts';
import { ALLOWED_ALGS, issuerCandidates, publicJwk, thumbprint, verifiesWith } from './ap2-signatures.ts';
import { checkBindings, classifyMandates } from './ap2-chain.ts';
import { mandateDigest } from './mandate-digest.ts';
import {
  AP2_VCTS,
  type Ap2Hop,
  type Ap2Mandate,
  type Ap2Vct,
  type Ap2VerifyOptions,
  type Ap2VerifyResult,
  type MandateError,
  type VerifiedAp2,
} from './mandate-types.ts';

export const DEFAULT_MAX_PRESENTATION_BYTES = 64 * 1024;
/** clock skew allowed on `iat` / `nbf` */
export const MAX_FUTURE_SKEW_SECONDS = 60;
/** 9999-12-31T23:59:59Z: the last second an ISO 8601 timestamp of four-digit years can name */
const MAX_TIME_SECONDS = 253_402_300_799;
const KB_TYP = 'kb+sd-jwt';
/** the typ of a key-binding hop that is itself key-bound by a further hop (AP2 reference vectors, multi-hop chains) */
const KB_TYPS: readonly string[] = [KB_TYP, 'kb+sd-jwt+kb'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function cnfKey(value: unknown): JWK | undefined {
  return isObject(value) ? publicJwk(value.jwk) : undefined;
}

interface HopState {
  hop: Ap2Hop;
  decoded?: DecodedHop;
  mandates: Ap2Mandate[];
}

function checkTimes(
  claims: Record<string, unknown>,
  path: string,
  options: Ap2VerifyOptions,
  errors: MandateError[],
): number | undefined {
  let exp: number | undefined;
  for (const name of ['exp', 'iat', 'nbf'] as const) {
    const value = claims[name];
    if (value === undefined) continue;
    // bounded to years 1970-9999, so every consumer can turn it into an ISO timestamp
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_TIME_SECONDS) {
      errors.push({
        path: `${path}/${name}`,
        code: 'schema_invalid',
        detail: 'must be a whole number of seconds from 1970 to 9999',
      });
      continue;
    }
    if (name === 'exp') exp = value;
    if (options.checkTime === false) continue;
    if (name === 'exp' && value <= options.nowSeconds) {
      errors.push({
        path: `${path}/exp`,
        code: 'expired',
        detail: `expired at ${new Date(value * 1000).toISOString()}`,
      });
    }
    if (name !== 'exp' && value > options.nowSeconds + MAX_FUTURE_SKEW_SECONDS) {
      errors.push({
        path: `${path}/${name}`,
        code: 'expired',
        detail: `not valid before ${new Date(value * 1000).toISOString()} (more than ${MAX_FUTURE_SKEW_SECONDS} s ahead)`,
      });
    }
  }
  return exp;
}

function extractMandates(hop: HopState, options: Ap2VerifyOptions, errors: MandateError[]): void {
  const path = `/presentation/hops/${hop.hop.index}`;
  const list = hop.hop.payload.delegate_payload;
  if (list === undefined) return;
  if (!Array.isArray(list)) {
    errors.push({ path: `${path}/payload/delegate_payload`, code: 'schema_invalid', detail: 'must be an array' });
    return;
  }
  list.forEach((item: unknown, i) => {
    const at = `${path}/mandates/${i}`;
    if (!isObject(item)) {
      errors.push({ path: at, code: 'schema_invalid', detail: 'a mandate content must be a JSON object' });
      return;
    }
    hop.hop.mandates.push(item);
    const vct = item.vct;
    if (typeof vct !== 'string' || !(AP2_VCTS as readonly string[]).includes(vct)) {
      errors.push({
        path: `${at}/vct`,
        code: 'unsupported_vct',
        detail: `\`vct\` must be one of ${AP2_VCTS.join(', ')}`,
      });
      return;
    }
    hop.mandates.push({ vct: vct as Ap2Vct, hop: hop.hop.index, path: at, content: item });
    for (const finding of options.validateContent?.(vct as Ap2Vct, item) ?? []) {
      errors.push({ path: `${at}${finding.path}`, code: 'schema_invalid', detail: finding.detail });
    }
  });
}

async function verifyHopSignature(
  state: HopState,
  previous: HopState | undefined,
  options: Ap2VerifyOptions,
  errors: MandateError[],
): Promise<string | undefined> {
  const { hop, decoded } = state;
  if (decoded === undefined) return undefined;
  const path = `/presentation/hops/${hop.index}`;
  if (!ALLOWED_ALGS.includes(hop.alg)) {
    errors.push({
      path: `${path}/header/alg`,
      code: 'signature_invalid',
      detail: `\`alg\` must be one of ${ALLOWED_ALGS.join(', ')}`,
    });
    return undefined;
  }
  if (hop.index === 0) {
    if (KB_TYPS.includes(hop.typ)) {
      errors.push({
        path: `${path}/header`,
        code: 'issuer_key_unknown',
        detail: 'hop 0 is a key-binding JWT: the key that signs it is the cnf of a mandate not presented',
      });
      return undefined;
    }
    const { candidates, reason } = issuerCandidates(options.issuers, hop.payload.iss, decoded.header.kid);
    if (candidates.length === 0) {
      errors.push({ path: `${path}/header/kid`, code: 'issuer_key_unknown', detail: reason ?? 'no configured key' });
      return undefined;
    }
    for (const candidate of candidates) {
      const key = publicJwk(candidate.key);
      if (key !== undefined && (await verifiesWith(decoded.jws, key, hop.alg))) {
        hop.signerKey = key;
        return candidate.issuer;
      }
    }
    errors.push({
      path: `${path}/jws/signature`,
      code: 'signature_invalid',
      detail: 'no key of the configured issuer verifies the signature',
    });
    return undefined;
  }
  if (!KB_TYPS.includes(hop.typ)) {
    errors.push({
      path: `${path}/header/typ`,
      code: 'key_binding_invalid',
      detail: `a hop after the first must be \`${KB_TYP}\` (or \`kb+sd-jwt+kb\`)`,
    });
    return undefined;
  }
  const keys: JWK[] = [];
  if (previous !== undefined) {
    const top = cnfKey(previous.hop.payload.cnf);
    if (top !== undefined) keys.push(top);
    for (const mandate of previous.hop.mandates) {
      const key = cnfKey(mandate.cnf);
      if (key !== undefined) keys.push(key);
    }
  }
  if (keys.length === 0) {
    errors.push({
      path: `${path}/jws/signature`,
      code: 'key_binding_invalid',
      detail: `hop ${hop.index - 1} discloses no cnf key to bind this hop to`,
    });
    return undefined;
  }
  for (const key of keys) {
    if (await verifiesWith(decoded.jws, key, hop.alg)) {
      hop.signerKey = key;
      return undefined;
    }
  }
  errors.push({
    path: `${path}/jws/signature`,
    code: 'key_binding_invalid',
    detail: `not signed by a cnf key that hop ${hop.index - 1} discloses`,
  });
  return undefined;
}

function checkKeyBindingClaims(
  state: HopState,
  previous: HopState | undefined,
  options: Ap2VerifyOptions,
  errors: MandateError[],
): void {
  const { hop } = state;
  if (!KB_TYPS.includes(hop.typ)) return;
  const path = `/presentation/hops/${hop.index}/payload`;
  const { nonce, aud, iat, sd_hash } = hop.payload;
  if (typeof nonce !== 'string' || nonce.length === 0) {
    errors.push({
      path: `${path}/nonce`,
      code: 'key_binding_invalid',
      detail: 'a key-binding hop needs a string nonce',
    });
  } else hop.nonce = nonce;
  if (typeof iat !== 'number') {
    errors.push({ path: `${path}/iat`, code: 'key_binding_invalid', detail: 'a key-binding hop needs a numeric iat' });
  } else hop.iat = iat;
  if (typeof aud !== 'string') {
    errors.push({ path: `${path}/aud`, code: 'key_binding_invalid', detail: 'a key-binding hop needs a string aud' });
  } else {
    hop.aud = aud;
    if (options.checkAudience !== false && !options.audiences.includes(aud)) {
      errors.push({ path: `${path}/aud`, code: 'audience_mismatch', detail: 'the audience is not this service' });
    }
  }
  if (typeof sd_hash !== 'string') {
    errors.push({ path: `${path}/sd_hash`, code: 'key_binding_invalid', detail: 'a key-binding hop needs sd_hash' });
  } else if (previous !== undefined && sd_hash !== mandateDigest(previous.hop.text)) {
    errors.push({
      path: `${path}/sd_hash`,
      code: 'sd_hash_mismatch',
      detail: `does not match the SHA-256 of hop ${hop.index - 1}`,
    });
  }
}

/**
 * Verifies an AP2 presentation; see the file comment for every rule. Never throws: anything unforeseen while reading
 * a hostile presentation is a refusal (fail closed), not an exception.
 */
export async function verifyAp2Presentation(presentation: string, options: Ap2VerifyOptions): Promise<Ap2VerifyResult> {
  try {
    return await verify(presentation, options);
  } catch {
    return {
      ok: false,
      errors: [{ path: '/presentation', code: 'schema_invalid', detail: 'unreadable presentation' }],
    };
  }
}

async function verify(presentation: string, options: Ap2VerifyOptions): Promise<Ap2VerifyResult> {
  const errors: MandateError[] = [];
  if (typeof presentation !== 'string' || presentation.length === 0) {
    return {
      ok: false,
      errors: [{ path: '/presentation', code: 'schema_invalid', detail: 'must be a non-empty string' }],
    };
  }
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_PRESENTATION_BYTES;
  // a UTF-16 length above maxBytes is already too many UTF-8 bytes; below it, count them
  if (presentation.length > maxBytes || new TextEncoder().encode(presentation).length > maxBytes) {
    return {
      ok: false,
      errors: [{ path: '/presentation', code: 'schema_invalid', detail: `larger than ${maxBytes} bytes` }],
    };
  }
  let digest: string;
  try {
    digest = mandateDigest(presentation);
  } catch {
    return { ok: false, errors: [{ path: '/presentation', code: 'schema_invalid', detail: 'not valid UTF-8 text' }] };
  }
  const split = splitHops(presentation);
  errors.push(...split.errors);
  const states: HopState[] = [];
  let issuer = '';
  const exps: number[] = [];
  for (const part of split.hops) {
    const { decoded, errors: decodeErrors } = await decodeHop(part);
    errors.push(...decodeErrors);
    const hop: Ap2Hop = {
      index: part.index,
      typ: typeof decoded?.header.typ === 'string' ? decoded.header.typ : '',
      alg: typeof decoded?.header.alg === 'string' ? decoded.header.alg : '',
      payload: decoded?.payload ?? {},
      mandates: [],
      text: part.text,
    };
    const state: HopState = { hop, decoded, mandates: [] };
    const previous = states[states.length - 1];
    states.push(state);
    if (decoded === undefined) continue;
    const path = `/presentation/hops/${part.index}`;
    const checked = checkDisclosures(decoded.payload, decoded.disclosures, path, decoded.incomplete);
    errors.push(...checked.errors);
    // unresolvable (digest algorithm refused, nesting too deep): the hop's mandates are not read at all
    if (!checked.depthExceeded && !decodeErrors.some((e) => e.path.endsWith('/_sd_alg'))) {
      hop.payload = await getClaims<Record<string, unknown>>(decoded.payload, decoded.libraryDisclosures, sha256Hasher);
      extractMandates(state, options, errors);
    }
    const named = await verifyHopSignature(state, previous, options, errors);
    if (part.index === 0) issuer = named ?? (typeof hop.payload.iss === 'string' ? hop.payload.iss : '');
    checkKeyBindingClaims(state, previous, options, errors);
    hop.exp = checkTimes(hop.payload, `${path}/payload`, options, errors);
    if (hop.exp !== undefined) exps.push(hop.exp);
    for (const mandate of state.mandates) {
      const exp = checkTimes(mandate.content, mandate.path, options, errors);
      if (exp !== undefined) exps.push(exp);
    }
  }
  const mandates = states.flatMap((state) => state.mandates);
  const { open, closed } = classifyMandates(mandates);
  checkBindings(closed, errors);
  const hops = states.map((state) => state.hop);
  const last = hops[hops.length - 1];
  const closes =
    hops.length > 1 &&
    last !== undefined &&
    last.mandates.length > 0 &&
    states[states.length - 1]?.mandates.length === last.mandates.length &&
    states[states.length - 1]?.mandates.every((m) => m.vct === 'mandate.payment.1' || m.vct === 'mandate.checkout.1');
  const nonces: VerifiedAp2['nonces'] = [];
  for (const hop of hops) {
    if (hop.nonce === undefined || hop.signerKey === undefined) continue;
    const keyThumbprint = await thumbprint(hop.signerKey);
    if (keyThumbprint !== undefined) nonces.push({ keyThumbprint, nonce: hop.nonce, hop: hop.index });
  }
  const value: VerifiedAp2 = {
    digest,
    issuer,
    hops,
    ...(closes ? { openPart: presentation.slice(0, presentation.lastIndexOf('~~') + 1) } : {}),
    mandates,
    open,
    closed,
    ...(exps.length > 0 ? { expiresAt: Math.min(...exps) } : {}),
    nonces,
  };
  return errors.length === 0 ? { ok: true, value } : { ok: false, errors, partial: value };
}
