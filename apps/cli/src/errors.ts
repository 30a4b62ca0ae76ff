/** Errors the command line explains to a person, each with the exit code scripts can test for. */

/** Exit codes, documented in the README's command-line section. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  /** Not signed in, or this device's session was ended (signed out elsewhere, expired). */
  signedOut: 3,
  unreachable: 4,
  /** The message or file does not exist (any more): expired, deleted or never there. */
  notFound: 5,
  tooLarge: 6,
  /** This terminal holds no key of the account's current epoch (not approved yet, or its keys.json is gone). */
  locked: 7,
  /** A sealed message or preview did not open: tampered with, or not what any device sent. */
  undecryptable: 8,
  /** Not possible on this system: clip --hotkey where a program cannot take a global shortcut (it prints the binding to add). */
  unavailable: 9,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.failure,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(message, EXIT.usage);

export const notSignedIn = (server: string | undefined) =>
  new CliError(
    server
      ? `Not signed in to ${server}. Sign in with: daysync login ${server}`
      : "Not signed in. Sign in with: daysync login SERVER_URL (for example daysync login https://daysync.example.com)",
    EXIT.signedOut,
  );

export const signedOut = (server: string) =>
  new CliError(
    `This device was signed out of ${server}: its session was ended from another device, or it expired. Sign in again with: daysync login ${server}`,
    EXIT.signedOut,
  );

/** What Node names a certificate it cannot check against the authorities it trusts. */
const UNTRUSTED_CERTIFICATE =
  /^(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_UNTRUSTED|CERT_SIGNATURE_FAILURE|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|ERR_TLS_CERT_ALTNAME_INVALID)$/;

/** `cause` is the network error's code or text, e.g. ECONNREFUSED; a certificate this computer does not trust says what to do. */
export const unreachable = (server: string, cause: string) =>
  new CliError(
    UNTRUSTED_CERTIFICATE.test(cause) && process.env.DAYSYNC_PINNED_SERVER === server
      ? `The Daysync server at ${server} shows an HTTPS certificate that is not from the authority this terminal pinned for it when it signed in with a pairing link (${cause}), so nothing was sent. If its owner made a new authority (a new DATA_DIR/tls), sign in again with a new link from Devices → Add a device: daysync login 'LINK'. If nothing changed on the server, someone may be in between: do not sign in.`
      : UNTRUSTED_CERTIFICATE.test(cause)
        ? `The Daysync server at ${server} has an HTTPS certificate this computer does not trust (${cause}). If it is your own server on your home network, download its authority, daysync-ca.pem, from its /trust page (or copy DATA_DIR/tls/ca.crt from the server's machine), then run the command again with --ca daysync-ca.pem, or set DAYSYNC_CA to that file.`
        : `Cannot reach the Daysync server at ${server} (${cause}). Check that it is running and the address is right, or choose another with --server or DAYSYNC_SERVER.`,
    EXIT.unreachable,
  );

export const messageGone = (id: string) =>
  new CliError(`No message ${id}: it has expired, or it never existed. See today's messages with: daysync ls`, EXIT.notFound);

/** The network-level reason of a failed fetch or socket, as short as the system gives it. */
export function networkCause(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code) return code;
    if (current.cause === undefined) return current.message;
    current = current.cause;
  }
  return String(current);
}
