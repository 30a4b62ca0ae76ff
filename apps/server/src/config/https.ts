/**
 * HTTPS on the home network (issue 43): on by default, beside plain HTTP on `PORT`. `HTTPS_PORT` (8443) serves the
 * home network's addresses with a certificate of a local certificate authority kept under `DATA_DIR/tls`, or with
 * one's own (`TLS_CERT` and `TLS_KEY`, then on `HOST`). `HTTPS=off`: plain HTTP only, as behind a proxy.
 */
import { isIP } from "node:net";
import path from "node:path";

export interface HttpsConfig {
  port: number;
  /** LAN_ADDRESSES as given (empty: none); undefined: the machine's private IPv4 addresses, found at start. */
  lanAddresses: string[] | undefined;
  /** One's own certificate and key (PEM files); undefined: the local authority's. */
  own: { certFile: string; keyFile: string } | undefined;
  /** Where the local authority and its server certificate are kept. */
  authorityDir: string;
}

interface HttpsEnv {
  HTTPS: string;
  HTTPS_PORT: number;
  PORT: number;
  LAN_ADDRESSES?: string | undefined;
  TLS_CERT?: string | undefined;
  TLS_KEY?: string | undefined;
}

const invalid = (problem: string) => new Error(`Invalid configuration:\n  ${problem}`);

export function parseHttpsConfig(e: HttpsEnv, dataDir: string): HttpsConfig | undefined {
  if (e.HTTPS === "off" || e.HTTPS === "false" || e.HTTPS === "0") return undefined;
  if (Boolean(e.TLS_CERT) !== Boolean(e.TLS_KEY)) throw invalid("TLS_CERT and TLS_KEY: set both (your certificate and its key) or neither");
  if (e.HTTPS_PORT === e.PORT) throw invalid(`HTTPS_PORT: must differ from PORT (${e.PORT})`);
  const lanAddresses = e.LAN_ADDRESSES?.split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const bad = lanAddresses?.filter((address) => isIP(address) === 0) ?? [];
  if (bad.length > 0) throw invalid(`LAN_ADDRESSES: not an IP address: ${bad.join(", ")}`);
  return {
    port: e.HTTPS_PORT,
    lanAddresses,
    own: e.TLS_CERT && e.TLS_KEY ? { certFile: path.resolve(e.TLS_CERT), keyFile: path.resolve(e.TLS_KEY) } : undefined,
    authorityDir: path.join(dataDir, "tls"),
  };
}
