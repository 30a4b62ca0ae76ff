/**
 * The home network's certificate authority (issue 43): made once under `DATA_DIR/tls` and kept, so a device that
 * trusts it keeps trusting the server; the server's own certificate is issued by it for the addresses of the day,
 * and issued again when they change or when it nears its end.
 */
import { createHash, generateKeyPairSync, randomBytes, X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import path from "node:path";
import forge from "node-forge";

const DAY_MS = 24 * 60 * 60 * 1000;
/** Ten years: installed once on each device. */
const AUTHORITY_DAYS = 3650;
/** Under Apple's limit of 825 days for a server certificate of an authority a person installed. */
const SERVER_DAYS = 365;
/** A server certificate with less left than this is issued again at start. */
const RENEW_BEFORE_DAYS = 30;

export const AUTHORITY_NAME = "Daysync home network authority";

export interface Authority {
  /** The common name devices show for it. */
  name: string;
  certPem: string;
  keyPem: string;
  /** DER bytes of the certificate, the form Android and Windows install as `.crt`. */
  certDer: Buffer;
  /** SHA-256 of the certificate, shown so a person can compare it with what their device shows. */
  fingerprint: string;
}

export interface ServerCertificate {
  /** The server's certificate, then the authority's. */
  certPem: string;
  keyPem: string;
  /** base64 SHA-256 of the server key's SubjectPublicKeyInfo (what Chromium's --ignore-certificate-errors-spki-list takes). */
  spkiHash: string;
}

function newKeys() {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  return { publicKey: forge.pki.publicKeyFromPem(publicKey), privateKey: forge.pki.privateKeyFromPem(privateKey), keyPem: privateKey };
}

function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f; // a positive number
  return bytes.toString("hex");
}

function writeSecret(file: string, text: string) {
  writeFileSync(file, text, { mode: 0o600 });
}

function describe(certPem: string, keyPem: string): Authority {
  const x509 = new X509Certificate(certPem);
  const name = /CN=([^\n]+)/.exec(x509.subject)?.[1] ?? AUTHORITY_NAME;
  return { name, certPem, keyPem, certDer: x509.raw, fingerprint: x509.fingerprint256 };
}

/** The authority kept in `dir`, made (and written there) the first time. `created` says which. */
export function loadOrCreateAuthority(dir: string, now = new Date()): { authority: Authority; created: boolean } {
  const certFile = path.join(dir, "ca.crt");
  const keyFile = path.join(dir, "ca.key");
  if (existsSync(certFile) && existsSync(keyFile)) {
    return { authority: describe(readFileSync(certFile, "utf8"), readFileSync(keyFile, "utf8")), created: false };
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const keys = newKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(now.getTime() - DAY_MS);
  cert.validity.notAfter = new Date(now.getTime() + AUTHORITY_DAYS * DAY_MS);
  const subject = [
    { name: "commonName", value: `${AUTHORITY_NAME} ${serial().slice(0, 8)}` },
    { name: "organizationName", value: "Daysync" },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: "basicConstraints", cA: true, pathLenConstraint: 0, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  const certPem = forge.pki.certificateToPem(cert);
  writeSecret(keyFile, keys.keyPem);
  writeFileSync(certFile, certPem);
  return { authority: describe(certPem, keys.keyPem), created: true };
}

function spkiHashOf(certPem: string): string {
  const spki = new X509Certificate(certPem).publicKey.export({ type: "spki", format: "der" });
  return createHash("sha256").update(spki).digest("base64");
}

/** Whether a kept server certificate was issued by `authority`, names exactly `names` and has long enough left. */
function stillGood(certPem: string, authority: Authority, names: readonly string[], now: Date): boolean {
  try {
    const cert = new X509Certificate(certPem);
    const ca = new X509Certificate(authority.certPem);
    if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return false;
    if (Date.parse(cert.validTo) - now.getTime() < RENEW_BEFORE_DAYS * DAY_MS) return false;
    const named = (cert.subjectAltName ?? "")
      .split(", ")
      .map((entry) => entry.replace(/^(DNS|IP Address):/, ""))
      .sort();
    return JSON.stringify(named) === JSON.stringify([...names].sort());
  } catch {
    return false;
  }
}

/**
 * The server certificate for `names` (IP addresses and host names) kept in `dir`, issued again by `authority` when
 * the names changed, it nears its end, or the authority is another one.
 */
export function serverCertificateFor(dir: string, authority: Authority, names: readonly string[], now = new Date()): ServerCertificate {
  const certFile = path.join(dir, "server.crt");
  const keyFile = path.join(dir, "server.key");
  if (existsSync(certFile) && existsSync(keyFile)) {
    const certPem = readFileSync(certFile, "utf8");
    if (stillGood(certPem, authority, names, now)) {
      return { certPem: `${certPem}${authority.certPem}`, keyPem: readFileSync(keyFile, "utf8"), spkiHash: spkiHashOf(certPem) };
    }
  }
  const keys = newKeys();
  const ca = forge.pki.certificateFromPem(authority.certPem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(now.getTime() - DAY_MS);
  cert.validity.notAfter = new Date(now.getTime() + SERVER_DAYS * DAY_MS);
  cert.setSubject([{ name: "commonName", value: names[0] ?? "localhost" }]);
  cert.setIssuer(ca.subject.attributes);
  cert.setExtensions([
    { name: "basicConstraints", cA: false, critical: true },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    {
      name: "subjectAltName",
      altNames: names.map((name) => (isIP(name) ? { type: 7, ip: name } : { type: 2, value: name })),
    },
    { name: "subjectKeyIdentifier" },
    { name: "authorityKeyIdentifier", keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(authority.keyPem), forge.md.sha256.create());
  const certPem = forge.pki.certificateToPem(cert);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeSecret(keyFile, keys.keyPem);
  writeFileSync(certFile, certPem);
  return { certPem: `${certPem}${authority.certPem}`, keyPem: keys.keyPem, spkiHash: spkiHashOf(certPem) };
}
