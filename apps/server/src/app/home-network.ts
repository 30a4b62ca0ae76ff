/**
 * HTTPS on the home network (issue 43), beside the app's plain HTTP: the addresses to serve, the certificate (the
 * local authority's, or one's own), and listeners whose requests and WebSocket upgrades go to the same app.
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createNetServer, isIPv4, type Server as NetServer } from "node:net";
import { networkInterfaces } from "node:os";
import { HTTPS_REQUIRED_TEXT, TRUST_PAGE } from "@daysync/shared";
import type { FastifyInstance } from "fastify";
import { loadOrCreateAuthority, serverCertificateFor } from "../adapters/local-authority.ts";
import type { Config } from "../config/config.ts";
import type { HomeNetwork } from "../modules/home-network/home-network.routes.ts";

/** A private IPv4 address (RFC 1918): what a home router hands out. */
export function isPrivateIPv4(address: string): boolean {
  if (!isIPv4(address)) return false;
  const [a = 0, b = 0] = address.split(".").map(Number);
  return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
}

const everyInterface = (host: string) => host === "0.0.0.0" || host === "::" || host === "";

/**
 * The home network addresses: LAN_ADDRESSES when set; else, listening on every interface, the machine's private
 * IPv4 addresses; else HOST when it is one of them; else none.
 */
export function lanAddressesOf(config: Pick<Config, "host" | "https">): string[] {
  if (config.https?.lanAddresses) return config.https.lanAddresses;
  if (everyInterface(config.host)) {
    const found = Object.values(networkInterfaces())
      .flatMap((entries) => entries ?? [])
      .filter((entry) => entry.family === "IPv4" && !entry.internal && isPrivateIPv4(entry.address))
      .map((entry) => entry.address);
    return [...new Set(found)];
  }
  return isPrivateIPv4(config.host) ? [config.host] : [];
}

const urlOf = (scheme: "http" | "https", address: string, port: number) =>
  `${scheme}://${address.includes(":") ? `[${address}]` : address}:${port}`;

export interface HttpsPlan {
  network: HomeNetwork;
  /** What to listen on with TLS; undefined: nothing (HTTPS off, or no address to serve). */
  listen: { hosts: string[]; port: number; cert: string; key: string; spkiHash: string | undefined } | undefined;
}

/** What HTTPS serves and what devices are told: the certificate made or renewed here when it has to be. */
export function planHttps(config: Pick<Config, "host" | "port" | "https" | "identity">): HttpsPlan {
  const publicUrl = config.identity.publicUrlGiven ? config.identity.publicUrl : null;
  const https = config.https;
  if (!https) return { network: { url: publicUrl, secureUrls: [], trustUrl: null, authority: undefined }, listen: undefined };
  if (https.own) {
    const read = (setting: string, file: string) => {
      try {
        return readFileSync(file, "utf8");
      } catch (error) {
        throw new Error(`Invalid configuration:\n  ${setting}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? error})`);
      }
    };
    const cert = read("TLS_CERT", https.own.certFile);
    const key = read("TLS_KEY", https.own.keyFile);
    // One's own certificate names one's own name: links use PUBLIC_URL, never an address it may not name.
    return {
      network: { url: publicUrl, secureUrls: [], trustUrl: null, authority: undefined },
      listen: { hosts: [config.host], port: https.port, cert, key, spkiHash: undefined },
    };
  }
  const addresses = lanAddressesOf(config);
  if (addresses.length === 0) {
    return { network: { url: publicUrl, secureUrls: [], trustUrl: null, authority: undefined }, listen: undefined };
  }
  const { authority } = loadOrCreateAuthority(https.authorityDir);
  const server = serverCertificateFor(https.authorityDir, authority, [...addresses, "localhost"]);
  const secureUrls = addresses.map((address) => urlOf("https", address, https.port));
  const first = addresses[0] ?? "";
  // Plain HTTP reaches the network too when it listens on every interface: the phone opens the page before it trusts.
  const trustBase = everyInterface(config.host) || config.host === first ? urlOf("http", first, config.port) : secureUrls[0];
  return {
    network: {
      url: publicUrl ?? secureUrls[0] ?? null,
      secureUrls,
      trustUrl: `${trustBase}${TRUST_PAGE}`,
      authority: { name: authority.name, certPem: authority.certPem, certDer: authority.certDer, fingerprint: authority.fingerprint },
    },
    listen: { hosts: addresses, port: https.port, cert: server.certPem, key: server.keyPem, spkiHash: server.spkiHash },
  };
}

/**
 * Serves `listen` with TLS: one listener per address, whose connections one HTTPS server takes, and whose requests
 * and WebSocket upgrades go to the app's own server (so `request.protocol` is https). Call before `app.listen`;
 * `start` after it. The app's close closes them too.
 */
export function attachHttps(app: FastifyInstance, listen: NonNullable<HttpsPlan["listen"]>): { start(): Promise<void> } {
  const tls = createHttpsServer({ cert: listen.cert, key: listen.key }, (request, response) =>
    app.server.emit("request", request, response),
  );
  tls.on("upgrade", (request, socket, head) => app.server.emit("upgrade", request, socket, head));
  const listeners: NetServer[] = [];
  app.addHook("preClose", async () => {
    await Promise.all(listeners.map((listener) => new Promise((resolve) => listener.close(resolve))));
    tls.closeIdleConnections();
  });
  app.addHook("onClose", async () => {
    tls.closeAllConnections();
  });
  return {
    async start() {
      for (const host of listen.hosts) {
        const listener = createNetServer((socket) => tls.emit("connection", socket));
        await new Promise<void>((resolve, reject) => {
          listener.once("error", reject);
          listener.listen(listen.port, host, () => resolve());
        });
        listeners.push(listener);
      }
    },
  };
}

/**
 * Whether a request came in plain to an address of this machine that is not one for itself alone: a home network
 * address (which may be a loopback one in tests), or any address that is not a loopback one.
 */
function plainFromNetwork(request: IncomingMessage, lanAddresses: string[]): boolean {
  const socket = request.socket as IncomingMessage["socket"] & { encrypted?: boolean };
  if (socket.encrypted === true) return false;
  const local = (socket.localAddress ?? "").replace(/^::ffff:(?=\d+\.)/, "");
  const loopback = (isIPv4(local) && local.startsWith("127.")) || local === "::1";
  return !loopback || lanAddresses.includes(local);
}

/**
 * While HTTPS is on, plain HTTP is for this machine: on any other address of it, the trust page (what a phone opens
 * before it trusts the authority) is all it serves. A page there is sent to the trust page; anything else (a
 * password, a live connection) is refused before it is read. With HTTPS=off the app is behind a proxy: no such rule.
 */
export function plainHttpForThisMachine(app: FastifyInstance, network: HomeNetwork, lanAddresses: string[]): void {
  const isTrustPage = (url: string) => network.authority !== undefined && (url === TRUST_PAGE || url.startsWith(`${TRUST_PAGE}/`));
  app.addHook("onRequest", async (request, reply) => {
    if (!plainFromNetwork(request.raw, lanAddresses)) return;
    const path = request.url.split("?")[0] ?? "";
    if (isTrustPage(path)) return;
    const isPage = (request.method === "GET" || request.method === "HEAD") && request.headers.upgrade === undefined;
    if (isPage && network.authority) return reply.redirect(TRUST_PAGE, 303);
    if (isPage && network.url) return reply.redirect(`${network.url}${request.url}`, 303);
    return reply.status(403).send({ error: { code: "https_required", message: HTTPS_REQUIRED_TEXT } });
  });
}
