/**
 * What `import("crypto")` gives in the browser build. @hpke/core reaches for Node's module only where
 * `globalThis.crypto` is missing, which no browser this app runs in lacks; aliasing it here keeps the build from
 * externalizing a Node module (and saying so four times).
 */
export const webcrypto = globalThis.crypto;
export default { webcrypto };
