/**
 * The service's Ed25519 signing keys: generated on first start into the data dir, published (public part only) in
 * the `signing_keys` table so every instance's JWKS lists every instance's keys, current and rotated.
 * Signing uses node:crypto (native, ~35 us); verification of what we sign is core's WebCrypto verifier.
 */
import { createPrivateKey, generateKeyPairSync, randomBytes, sign as edSign, type KeyObject } from 'node:crypto';
import { keyId as toKeyId } from '@aar/core';
import type { Clock } from '../clock.ts';
import type { Store } from '../store/index.ts';
import { keysDir, readKeyFiles, writeKeyFile, type KeyFile } from './key-files.ts';

export interface PublishedKey {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
  valid_from: string;
  valid_until?: string;
}

export interface ServiceSigner {
  readonly keyId: string;
  sign(message: Uint8Array): Promise<Uint8Array>;
  signSync(message: Uint8Array): Uint8Array;
  /**
   * The private key itself, for a signing thread of this process (webhook delivery signs on one: signing-thread.ts).
   * Never serialised, logged or sent outside the process.
   */
  readonly privateKey: KeyObject;
}

export interface KeyRing {
  /** the key that signs now */
  current(): ServiceSigner;
  /** every key of every instance, current and rotated, with validity (public parts only) */
  jwks(): Promise<{ keys: PublishedKey[] }>;
  /** this instance's keys, for `aar keys list` */
  localKeys(): readonly KeyFile[];
  /** makes a new current key; the old one stops signing but stays published */
  rotate(): Promise<{ retired: string; current: string }>;
  /** re-reads the key files (after `aar keys rotate` from another process: SIGHUP) */
  reload(): Promise<void>;
}

export interface OpenKeyRingOptions {
  dataDir: string;
  store: Store;
  clock: Clock;
}

export async function openKeyRing(options: OpenKeyRingOptions): Promise<KeyRing> {
  const dir = keysDir(options.dataDir);
  let files: KeyFile[] = [];
  let signer: ServiceSigner;

  const load = async (): Promise<void> => {
    files = readKeyFiles(dir);
    if (!files.some((f) => f.valid_until === null)) {
      files.push(createKey(dir, options.clock));
    }
    const current = files
      .filter((f) => f.valid_until === null)
      .sort((a, b) => b.valid_from.localeCompare(a.valid_from))[0];
    if (!current) throw new Error('no current signing key');
    signer = makeSigner(current);
    await publish(options.store, files);
  };
  await load();

  return {
    current: () => signer,
    localKeys: () => files,
    reload: load,
    async jwks() {
      const rows = await options.store.db.selectFrom('signing_keys').selectAll().orderBy('valid_from').execute();
      return {
        keys: rows.map((row) => {
          const key: PublishedKey = { ...(JSON.parse(row.public_jwk) as PublishedKey), valid_from: row.valid_from };
          if (row.valid_until) key.valid_until = row.valid_until;
          else delete key.valid_until;
          return key;
        }),
      };
    },
    async rotate() {
      const now = options.clock.now().toISOString();
      const retired = signer.keyId;
      for (const f of files) {
        if (f.valid_until === null) {
          f.valid_until = now;
          writeKeyFile(dir, f);
        }
      }
      const fresh = createKey(dir, options.clock);
      files.push(fresh);
      signer = makeSigner(fresh);
      await publish(options.store, files);
      return { retired, current: fresh.key_id };
    },
  };
}

/**
 * `ed25519-d<yyyymmdd>-k<8 hex>`. INVARIANT: no run of 12 or more digits joined by single separators, so a key id is
 * never read as a card number by the PAN guard (CONTRACT section 7), which refuses any request that holds one: the
 * earlier form `ed25519-<yyyymmdd>-<hex>` joined "25519", the date and leading hex digits, and about 7 % of keys
 * made every POST carrying their signed documents (POST /v1/bundles/verify, /v1/evidence-packs/verify) a 400.
 * Keys already minted keep their ids.
 */
export function keyNameFor(now: Date, hex: string): string {
  return `ed25519-d${now.toISOString().slice(0, 10).replaceAll('-', '')}-k${hex}`;
}

function createKey(dir: string, clock: Clock): KeyFile {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' }) as KeyFile['private_jwk'];
  const now = clock.now();
  const name = keyNameFor(now, randomBytes(4).toString('hex'));
  const key: KeyFile = { key_id: toKeyId(name), private_jwk: jwk, valid_from: now.toISOString(), valid_until: null };
  writeKeyFile(dir, key);
  return key;
}

function makeSigner(file: KeyFile): ServiceSigner {
  const privateKey: KeyObject = createPrivateKey({ key: file.private_jwk, format: 'jwk' });
  const signSync = (message: Uint8Array): Uint8Array => new Uint8Array(edSign(null, message, privateKey));
  return { keyId: file.key_id, signSync, sign: async (message) => signSync(message), privateKey };
}

export function publicJwkOf(file: KeyFile): PublishedKey {
  const { x } = file.private_jwk;
  const key: PublishedKey = {
    kty: 'OKP',
    crv: 'Ed25519',
    x,
    kid: file.key_id,
    alg: 'EdDSA',
    use: 'sig',
    valid_from: file.valid_from,
  };
  if (file.valid_until) key.valid_until = file.valid_until;
  return key;
}

/** Upserts every local key's public part; validity changes (rotation) are written too. */
async function publish(store: Store, files: readonly KeyFile[]): Promise<void> {
  for (const f of files) {
    const pub = publicJwkOf(f);
    delete pub.valid_until;
    await store.db
      .insertInto('signing_keys')
      .values({
        key_id: f.key_id,
        public_jwk: JSON.stringify(pub),
        valid_from: f.valid_from,
        valid_until: f.valid_until,
        created_at: f.valid_from,
      })
      .onConflict((oc) => oc.column('key_id').doUpdateSet({ valid_until: f.valid_until }))
      .execute();
  }
}
