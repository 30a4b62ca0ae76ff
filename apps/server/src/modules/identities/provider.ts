/** What the identities service needs of a provider, OpenID Connect or GitHub alike. */
import type { ProviderConfig } from "../../config/identity-providers.ts";

/** Kept server-side in the flow's one-time record, never in the browser. */
export interface FlowSecrets {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** Who the provider says signed in. The email is only one the provider vouches for when `emailVerified`. */
export interface ProviderProfile {
  /** What identities of this provider are stored under: the ID token's `iss`, or GitHub's constant. */
  issuer: string;
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
  name: string | undefined;
}

export interface ProviderAdapter {
  config: ProviderConfig;
  /** Reaches the provider (discovery); throws a ProviderFailure when it cannot. */
  check(): Promise<void>;
  /** `reauthenticate`: a fresh check, so the provider asks the person to sign in again where it can (`prompt=login`). */
  authorizationUrl(secrets: FlowSecrets, options?: { reauthenticate?: boolean }): Promise<string>;
  /** Checks the callback and exchanges its code; throws a ProviderFailure. */
  finish(callbackQuery: URLSearchParams, secrets: FlowSecrets): Promise<ProviderProfile>;
}

/** unavailable: cannot be reached; refused: answered, but not with a valid sign-in; cancelled: the person said no. */
export class ProviderFailure extends Error {
  constructor(
    readonly kind: "unavailable" | "refused" | "cancelled",
    message: string,
  ) {
    super(message);
  }
}
