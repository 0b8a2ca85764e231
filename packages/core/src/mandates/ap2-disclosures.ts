/**
 * The strictness checks RFC 9901 section 7.1 asks of a verifier and @sd-jwt/decode does not make (its `unpack`
 * silently skips an unreferenced disclosure, collapses duplicates, accepts a digest referenced twice, a claim
 * disclosure in an array slot or a disclosed claim that overwrites a plain one, and recurses without a bound).
 * Hand-written here, and only this: decoding and resolving stay the library's (ap2-hop.ts).
 * Attacker assumption: every byte of the hop and its disclosures is chosen by the attacker, including the nesting
 * depth (bounded: MAX_NESTING) and digests that point at each other (a digest names a hash of its disclosure's text,
 * so a cycle would need a SHA-256 pre-image; each disclosure is still walked at most once).
 * INVARIANT: after a hop passes, every disclosure is referenced exactly once, from a place of its kind (a
 * `[salt, key, value]` from an object's `_sd`, a `[salt, value]` from an array's `{"...": digest}`).
 */
import type { MandateError } from './mandate-types.ts';

/** The deepest nesting of arrays and objects accepted, counted through disclosed values (a doc mandate uses 7). */
export const MAX_NESTING = 16;

/** What the walk needs of a decoded disclosure (a subset of @sd-jwt/utils' Disclosure). */
export interface DisclosureLike {
  salt: unknown;
  key?: unknown;
  value: unknown;
  /** base64url SHA-256 of the disclosure's text as presented */
  digest: string;
  /** its position among the hop's disclosures as presented (the `/disclosures/<index>` of error paths) */
  index: number;
}

interface WalkState {
  byDigest: Map<string, number>;
  disclosures: readonly DisclosureLike[];
  used: Array<number>;
  errors: MandateError[];
  hopPath: string;
  depthExceeded: boolean;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `k` is the position in state.disclosures; the path names the disclosure's place in the hop as presented. */
function disclosurePath(state: WalkState, k: number): string {
  return `${state.hopPath}/disclosures/${state.disclosures[k]?.index ?? k}`;
}

function reference(state: WalkState, digest: string, where: string, kind: 'array' | 'object'): number | undefined {
  const index = state.byDigest.get(digest);
  if (index === undefined) return undefined; // undisclosed or a decoy: normal
  const path = disclosurePath(state, index);
  state.used[index] = (state.used[index] ?? 0) + 1;
  if ((state.used[index] ?? 0) > 1) {
    state.errors.push({
      path,
      code: 'disclosure_digest_mismatch',
      detail: `its digest is referenced more than once (again at ${where})`,
    });
    return undefined;
  }
  const disclosure = state.disclosures[index] as DisclosureLike;
  const isClaim = disclosure.key !== undefined;
  if (kind === 'array' && isClaim) {
    state.errors.push({
      path,
      code: 'disclosure_digest_mismatch',
      detail: `an array element digest (${where}) names a [salt, name, value] claim disclosure`,
    });
    return undefined;
  }
  if (kind === 'object' && !isClaim) {
    state.errors.push({
      path,
      code: 'disclosure_digest_mismatch',
      detail: `an _sd digest (${where}) names a [salt, value] array element disclosure`,
    });
    return undefined;
  }
  return index;
}

function walk(value: unknown, depth: number, where: string, state: WalkState): void {
  if (!Array.isArray(value) && !isPlainObject(value)) return;
  if (depth > MAX_NESTING) {
    if (!state.depthExceeded) {
      state.errors.push({
        path: where,
        code: 'schema_invalid',
        detail: `arrays and objects nested deeper than ${MAX_NESTING} levels`,
      });
    }
    state.depthExceeded = true;
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const itemPath = `${where}/${i}`;
      if (isPlainObject(item) && '...' in item) {
        const digest = item['...'];
        if (typeof digest !== 'string' || Object.keys(item).length !== 1) {
          state.errors.push({
            path: itemPath,
            code: 'disclosure_digest_mismatch',
            detail: 'an array element digest must be an object with the single string member `...`',
          });
          return;
        }
        const index = reference(state, digest, itemPath, 'array');
        if (index !== undefined) walk(state.disclosures[index]?.value, depth + 1, disclosurePath(state, index), state);
        return;
      }
      walk(item, depth + 1, itemPath, state);
    });
    return;
  }
  const names = new Set(Object.keys(value).filter((name) => name !== '_sd'));
  if (names.has('...')) {
    state.errors.push({
      path: `${where}/...`,
      code: 'disclosure_digest_mismatch',
      detail: 'the member `...` is allowed only as an array element digest',
    });
  }
  for (const name of names) walk(value[name], depth + 1, `${where}/${name}`, state);
  const sd = value._sd;
  if (sd === undefined) return;
  if (!Array.isArray(sd) || !sd.every((digest) => typeof digest === 'string')) {
    state.errors.push({
      path: `${where}/_sd`,
      code: 'disclosure_digest_mismatch',
      detail: 'must be an array of digests',
    });
    return;
  }
  sd.forEach((digest: string, i) => {
    const index = reference(state, digest, `${where}/_sd/${i}`, 'object');
    if (index === undefined) return;
    const disclosure = state.disclosures[index] as DisclosureLike;
    const key = disclosure.key as string;
    if (key === '_sd' || key === '...' || key === '_sd_alg' || names.has(key)) {
      state.errors.push({
        path: disclosurePath(state, index),
        code: 'disclosure_digest_mismatch',
        detail: `discloses the claim \`${key}\`, which the object already has or which is reserved`,
      });
      return;
    }
    names.add(key);
    walk(disclosure.value, depth + 1, disclosurePath(state, index), state);
  });
}

/**
 * Checks the disclosures of one hop against its (signed) payload. `hopPath` is the hop's pointer
 * (`/presentation/hops/<i>`); `incomplete`: some disclosure of the hop could not be read (already reported). Returns the errors, each naming the disclosure or the payload member at fault, and
 * whether the nesting limit was hit (then the hop must not be resolved).
 */
export function checkDisclosures(
  payload: Record<string, unknown>,
  disclosures: readonly DisclosureLike[],
  hopPath: string,
  incomplete = false,
): { errors: MandateError[]; depthExceeded: boolean } {
  const state: WalkState = {
    byDigest: new Map(),
    disclosures,
    used: [],
    errors: [],
    hopPath,
    depthExceeded: false,
  };
  disclosures.forEach((disclosure, i) => {
    const path = disclosurePath(state, i);
    if (typeof disclosure.salt !== 'string' || (disclosure.key !== undefined && typeof disclosure.key !== 'string')) {
      state.errors.push({ path, code: 'disclosure_digest_mismatch', detail: 'salt and claim name must be strings' });
    }
    const first = state.byDigest.get(disclosure.digest);
    if (first !== undefined) {
      state.errors.push({
        path,
        code: 'disclosure_digest_mismatch',
        detail: `duplicate of disclosure ${disclosures[first]?.index ?? first}`,
      });
      return;
    }
    state.byDigest.set(disclosure.digest, i);
  });
  walk(payload, 0, `${hopPath}/payload`, state);
  disclosures.forEach((disclosure, i) => {
    if (state.byDigest.get(disclosure.digest) !== i) return; // a duplicate, already reported
    // when a disclosure of the hop was unreadable (incomplete), the digests it held are unknown: no orphan is certain
    if ((state.used[i] ?? 0) === 0 && !state.depthExceeded && !incomplete) {
      state.errors.push({
        path: disclosurePath(state, i),
        code: 'disclosure_digest_mismatch',
        detail: 'its digest matches no digest of the hop (altered, or not part of this SD-JWT)',
      });
    }
  });
  return { errors: state.errors, depthExceeded: state.depthExceeded };
}
