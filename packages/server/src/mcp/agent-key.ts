/**
 * The agent's signing key for `aar mcp`: a file holding an Ed25519 private key, as PKCS#8 PEM or as a private JWK
 * (RFC 8037). Whoever reads that file can sign purchases as the agent, so the file must be readable by its owner
 * only: a key file that the group or others may read, write or execute is refused before it is read (mode 0600 or
 * 0400). The key never leaves this process: it is handed to the SDK's signer, never logged, never returned by a tool.
 * Attacker model: another local user who could read a loosely protected key file; a key of another algorithm slipped
 * in (refused: the service verifies Ed25519 only).
 */
import { createPrivateKey } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { Ed25519PrivateJwk } from '@aar/sdk';

export class AgentKeyError extends Error {
  override readonly name = 'AgentKeyError';
}

/** Group and other permission bits: any of them set means the key is exposed to other users. */
const EXPOSED_BITS = 0o077;
const MAX_KEY_FILE_BYTES = 16 * 1024;

export function loadAgentKey(file: string): Ed25519PrivateJwk {
  let mode: number;
  let size: number;
  try {
    ({ mode, size } = statSync(file));
  } catch (error) {
    throw new AgentKeyError(
      `cannot read the agent key \`${file}\`: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  if (process.platform !== 'win32' && (mode & EXPOSED_BITS) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(4, '0');
    throw new AgentKeyError(
      `the agent key \`${file}\` has mode ${octal}: other users may read it; make it readable by its owner only ` +
        `(chmod 600)`,
    );
  }
  if (size > MAX_KEY_FILE_BYTES) throw new AgentKeyError(`the agent key \`${file}\` is too large to be a key`);
  const text = readFileSync(file, 'utf8').trim();
  return text.startsWith('{') ? fromJwk(text, file) : fromPem(text, file);
}

function fromPem(text: string, file: string): Ed25519PrivateJwk {
  if (!text.startsWith('-----BEGIN PRIVATE KEY-----')) {
    throw new AgentKeyError(`the agent key \`${file}\` is neither a PKCS#8 PEM ("BEGIN PRIVATE KEY") nor a JWK`);
  }
  let jwk: Record<string, unknown>;
  try {
    jwk = createPrivateKey({ key: text, format: 'pem' }).export({ format: 'jwk' }) as Record<string, unknown>;
  } catch {
    throw new AgentKeyError(`the agent key \`${file}\` is not a readable PKCS#8 private key`);
  }
  return asEd25519(jwk, file);
}

function fromJwk(text: string, file: string): Ed25519PrivateJwk {
  let jwk: unknown;
  try {
    jwk = JSON.parse(text);
  } catch {
    throw new AgentKeyError(`the agent key \`${file}\` is not valid JSON`);
  }
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) {
    throw new AgentKeyError(`the agent key \`${file}\` must be a JWK object`);
  }
  return asEd25519(jwk as Record<string, unknown>, file);
}

function asEd25519(jwk: Record<string, unknown>, file: string): Ed25519PrivateJwk {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519') {
    throw new AgentKeyError(`the agent key \`${file}\` must be an Ed25519 key (OKP / Ed25519)`);
  }
  if (typeof jwk.d !== 'string' || typeof jwk.x !== 'string') {
    throw new AgentKeyError(`the agent key \`${file}\` must be a private key (with \`d\` and \`x\`)`);
  }
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d };
}
