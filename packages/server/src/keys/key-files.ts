/**
 * Private signing keys live in files under `<dataDir>/keys/`, one JSON file per key, mode 0600 in a 0700 folder.
 * INVARIANT: a key file readable by group or others is refused at load (fail closed), never silently used.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface KeyFile {
  key_id: string;
  /** Ed25519 private JWK (kty OKP, crv Ed25519, x, d) */
  private_jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string; d: string };
  valid_from: string;
  valid_until: string | null;
}

export function keysDir(dataDir: string): string {
  return join(dataDir, 'keys');
}

export function readKeyFiles(dir: string): KeyFile[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names.sort().map((name) => {
    const path = join(dir, name);
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new Error(`key file ${path} has mode ${mode.toString(8)}; it must be 600 (chmod 600 ${path})`);
    }
    return JSON.parse(readFileSync(path, 'utf8')) as KeyFile;
  });
}

/** Writes atomically (temp file + rename) so a crash never leaves half a key. */
export function writeKeyFile(dir: string, key: KeyFile): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const name = `${key.key_id.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;
  const tmp = join(dir, `.${name}.tmp`);
  writeFileSync(tmp, JSON.stringify(key, null, 2), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, join(dir, name));
}
