/**
 * What devices are told about the server's address (issue 43): `GET /api/address` names the address links are
 * built from, and, when the server made its own certificate authority, `/trust` installs it.
 */
import { createHash } from "node:crypto";
import { HOME_NETWORK_API, serverAddressSchema, TRUST_PAGE } from "@daysync/shared";
import { type ApiServer, answers } from "../../http/answers.ts";
import { AUTHORITY_FILES, authorityProfile, trustPage, trustPagePolicy } from "./trust-page.ts";

export interface HomeNetwork {
  /** PUBLIC_URL, else the first HTTPS address on the home network; null: the server cannot know one. */
  url: string | null;
  /** Every HTTPS address on the home network. */
  secureUrls: string[];
  /** Where a phone on the network opens the trust page; null without a local authority. */
  trustUrl: string | null;
  /** The local authority, when the server made one (not with TLS_CERT, not with HTTPS=off). */
  authority: { name: string; certPem: string; certDer: Buffer; fingerprint: string } | undefined;
}

export function homeNetworkRoutes(app: ApiServer, network: HomeNetwork): void {
  // The pin names the authority only for an address with a certificate from it (not PUBLIC_URL's).
  const pin =
    network.authority && network.url && network.secureUrls.includes(network.url)
      ? createHash("sha256").update(network.authority.certDer).digest("hex")
      : null;
  app.get(HOME_NETWORK_API.address, { schema: answers(serverAddressSchema) }, async () => ({
    url: network.url,
    trust_url: network.trustUrl,
    ca_sha256: pin,
  }));
  const { authority } = network;
  if (!authority) return;
  const page = trustPage({
    secureUrl: network.secureUrls[0] ?? null,
    fingerprint: authority.fingerprint,
    authorityName: authority.name,
    pin: createHash("sha256").update(authority.certDer).digest("hex"),
  });
  const policy = trustPagePolicy(network.secureUrls);
  const id = authority.fingerprint.replaceAll(":", "").slice(0, 16).toLowerCase();
  const profile = authorityProfile({ certDer: authority.certDer, authorityName: authority.name, id });
  app.get(TRUST_PAGE, async (_request, reply) =>
    reply.header("content-security-policy", policy).header("cache-control", "no-store").type("text/html; charset=utf-8").send(page),
  );
  const download = (file: string, type: string, body: string | Buffer) =>
    app.get(`${TRUST_PAGE}/${file}`, async (_request, reply) =>
      reply.header("content-disposition", `attachment; filename="${file}"`).type(type).send(body),
    );
  download(AUTHORITY_FILES.crt, "application/x-x509-ca-cert", authority.certDer);
  download(AUTHORITY_FILES.pem, "application/x-pem-file", authority.certPem);
  download(AUTHORITY_FILES.mobileconfig, "application/x-apple-aspen-config", profile);
}
