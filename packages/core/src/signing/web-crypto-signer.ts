import type { DocumentSigner } from './sign-document.ts';
import { ED25519_ALGORITHM, toBufferSource } from './ed25519.ts';

/** A DocumentSigner over a WebCrypto Ed25519 private key (`crypto.subtle.generateKey` / `importKey`). */
export function createWebCryptoSigner(keyId: string, privateKey: CryptoKey): DocumentSigner {
  return {
    keyId,
    async sign(message: Uint8Array): Promise<Uint8Array> {
      return new Uint8Array(
        await globalThis.crypto.subtle.sign(ED25519_ALGORITHM, privateKey, toBufferSource(message)),
      );
    },
  };
}
