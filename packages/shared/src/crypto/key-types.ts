/**
 * WebCrypto's key types, named through the global `crypto` so the same code checks under the DOM, WebWorker and Node
 * typings (Node's declare no global CryptoKey).
 */
export type CryptoKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

export interface CryptoKeyPair {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}
