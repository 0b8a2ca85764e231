/**
 * The agent key file of `aar mcp`: PKCS#8 PEM and private JWK are read into the same Ed25519 JWK the SDK signs with;
 * a file others may read, a key of another algorithm, a public key and garbage are refused with words that say why.
 */
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentKeyError, loadAgentKey } from '../../src/mcp/agent-key.ts';

const dir = mkdtempSync(join(tmpdir(), 'aar-mcp-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function keyFile(name: string, text: string, mode = 0o600): string {
  const file = join(dir, name);
  writeFileSync(file, text, { mode });
  chmodSync(file, mode);
  return file;
}

describe('loadAgentKey', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' }) as { x: string; d: string };

  it('reads a PKCS#8 PEM and a private JWK into the same key', () => {
    const pem = keyFile('agent.pem', privateKey.export({ format: 'pem', type: 'pkcs8' }) as string);
    const json = keyFile('agent.jwk', JSON.stringify(jwk), 0o400);
    expect(loadAgentKey(pem)).toEqual({ kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d });
    expect(loadAgentKey(json)).toEqual(loadAgentKey(pem));
  });

  it('refuses a file the group or others may read, before reading it', () => {
    for (const mode of [0o644, 0o640, 0o604, 0o660]) {
      const file = keyFile(`loose-${mode.toString(8)}.jwk`, JSON.stringify(jwk), mode);
      expect(() => loadAgentKey(file)).toThrow(new RegExp(`mode 0${mode.toString(8)}.*chmod 600`));
    }
  });

  it('refuses other algorithms, public keys, garbage and missing files', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    const cases: Array<[string, RegExp]> = [
      [keyFile('rsa.pem', rsa.export({ format: 'pem', type: 'pkcs8' }) as string), /must be an Ed25519 key/],
      [keyFile('public.jwk', JSON.stringify(publicKey.export({ format: 'jwk' }))), /must be a private key/],
      [keyFile('public.pem', publicKey.export({ format: 'pem', type: 'spki' }) as string), /neither a PKCS#8 PEM/],
      [keyFile('garbage.jwk', '{ not json'), /not valid JSON/],
      [join(dir, 'absent.pem'), /cannot read the agent key.*ENOENT/],
    ];
    for (const [file, message] of cases) {
      expect(() => loadAgentKey(file)).toThrow(AgentKeyError);
      expect(() => loadAgentKey(file)).toThrow(message);
    }
  });
});
