import type { Config } from "../config/config.ts";

/** PUBLIC_URL when the operator set it (links in mails and redirects use it); undefined when it is the default. */
export const givenPublicUrl = (config: Pick<Config, "identity">): string | undefined =>
  config.identity.publicUrlGiven ? config.identity.publicUrl : undefined;
