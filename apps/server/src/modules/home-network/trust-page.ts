/**
 * The page that installs the home network's certificate authority (issue 43), step by step for each system, with a
 * check that says whether this device already trusts the server's HTTPS address. Served by the server itself, over
 * plain HTTP too: a phone opens it before it trusts anything.
 */
import { createHash } from "node:crypto";
import { withAuthorityPin } from "@daysync/shared";

export const AUTHORITY_FILES = {
  /** DER: Android, Windows and macOS install it as is. */
  crt: "daysync-ca.crt",
  /** PEM: Linux, browsers' own stores. */
  pem: "daysync-ca.pem",
  /** iOS and iPadOS install a profile. */
  mobileconfig: "daysync-ca.mobileconfig",
} as const;

export const TRUSTED_TEXT = "This device trusts your Daysync server.";
export const NOT_TRUSTED_TEXT = "This device does not trust your Daysync server yet: follow the steps for it below, then check again.";

/** The check: a request to the HTTPS address fails before any answer when the certificate is not trusted. */
const CHECK_SCRIPT = `(() => {
  const status = document.getElementById("trust-status");
  const open = document.getElementById("open-secure");
  const check = async () => {
    status.textContent = "Checking whether this device trusts your Daysync server…";
    try {
      await fetch(status.dataset.check, { mode: "no-cors", cache: "no-store" });
      status.textContent = ${JSON.stringify(TRUSTED_TEXT)};
      status.dataset.trusted = "true";
      if (open) open.hidden = false;
    } catch {
      status.textContent = ${JSON.stringify(NOT_TRUSTED_TEXT)};
      status.dataset.trusted = "false";
    }
  };
  document.getElementById("check-again").addEventListener("click", check);
  if (status.dataset.check) check();
  else status.textContent = "This server has no HTTPS address on your network to check.";
})();`;

const scriptHash = `'sha256-${createHash("sha256").update(CHECK_SCRIPT, "utf8").digest("base64")}'`;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/** The page's own policy: its one script by hash, and requests to the HTTPS addresses it checks. */
export function trustPagePolicy(secureUrls: readonly string[]): string {
  const origins = secureUrls.map((url) => new URL(url).origin);
  return [
    "default-src 'none'",
    `script-src ${scriptHash}`,
    "style-src 'unsafe-inline'",
    `connect-src 'self' ${origins.join(" ")}`.trim(),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function trustPage(options: { secureUrl: string | null; fingerprint: string; authorityName: string; pin: string }): string {
  const { secureUrl, fingerprint, authorityName, pin } = options;
  // The command line trusts the authority from a link that names it: no file to copy.
  const command = secureUrl
    ? `<h2 id="command-line">The daysync command line</h2>
<p>On a computer with the <code>daysync</code> command, sign in with this link: it names this authority, which the command then trusts for this server only.<br><code>daysync login '${escapeHtml(withAuthorityPin(`${secureUrl}/`, pin))}'</code></p>
`
    : "";
  const open = secureUrl
    ? `<p><a id="open-secure" hidden href="${escapeHtml(secureUrl)}">Open Daysync at ${escapeHtml(secureUrl)}</a></p>`
    : "";
  const files = `<a href="${AUTHORITY_FILES.crt}" download>${AUTHORITY_FILES.crt}</a>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Trust your Daysync server</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 42rem; margin: 0 auto; padding: 1rem; color: #1d2433; }
h2 { margin-top: 2rem; font-size: 1.15rem; }
code { background: #eef1f6; padding: 0 .25rem; border-radius: 4px; word-break: break-all; }
#trust-status { padding: .75rem; border-radius: 8px; background: #eef1f6; }
#trust-status[data-trusted="true"] { background: #dff5e3; }
#trust-status[data-trusted="false"] { background: #fdf0d5; }
button { font: inherit; padding: .4rem .9rem; }
</style>
</head>
<body>
<main>
<h1>Trust your Daysync server</h1>
<p>Your Daysync server made its own certificate authority, <strong>${escapeHtml(authorityName)}</strong>, and gave its HTTPS address a certificate from it. Install the authority once on each device that opens Daysync from your home network, so that the browser can encrypt your messages there.</p>
<p id="trust-status" role="status" aria-live="polite" data-check="${secureUrl ? escapeHtml(`${secureUrl}/api/health`) : ""}">Checking whether this device trusts your Daysync server…</p>
<p><button type="button" id="check-again">Check again</button></p>
${open}
<p>Before you install it, you can compare its SHA-256 fingerprint with what your device shows:<br><code>${escapeHtml(fingerprint)}</code></p>
<p>Download: ${files} (Android, Windows, macOS), <a href="${AUTHORITY_FILES.pem}" download>${AUTHORITY_FILES.pem}</a> (Linux), <a href="${AUTHORITY_FILES.mobileconfig}">${AUTHORITY_FILES.mobileconfig}</a> (iPhone, iPad).</p>

<h2 id="android">Android</h2>
<ol>
<li>Download ${files}.</li>
<li>Open Settings, then Security and privacy, More security settings, Encryption and credentials (on some phones: Security, Advanced).</li>
<li>Choose Install a certificate, then CA certificate, then Install anyway, and pick <code>${AUTHORITY_FILES.crt}</code> from Downloads.</li>
<li>Come back to this page and choose Check again.</li>
</ol>

<h2 id="ios">iPhone and iPad</h2>
<ol>
<li>Open this page in Safari and tap <a href="${AUTHORITY_FILES.mobileconfig}">${AUTHORITY_FILES.mobileconfig}</a>, then Allow.</li>
<li>Open Settings, tap Profile Downloaded at the top, then Install, and enter your passcode.</li>
<li>Open Settings, General, About, Certificate Trust Settings, and turn on full trust for <strong>${escapeHtml(authorityName)}</strong>.</li>
<li>Come back to this page and tap Check again.</li>
</ol>

<h2 id="macos">macOS</h2>
<ol>
<li>Download ${files} and open it: Keychain Access adds it to your login keychain.</li>
<li>In Keychain Access, open <strong>${escapeHtml(authorityName)}</strong>, unfold Trust, and set "When using this certificate" to Always Trust; close the window and enter your password.</li>
<li>Or in Terminal: <code>sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain ~/Downloads/${AUTHORITY_FILES.crt}</code></li>
<li>Restart the browser, come back and choose Check again.</li>
</ol>

<h2 id="windows">Windows</h2>
<ol>
<li>Download ${files} and open it, then choose Install Certificate.</li>
<li>Choose Current User, then "Place all certificates in the following store", Browse, Trusted Root Certification Authorities, then Next, Finish, and Yes.</li>
<li>Or in a terminal: <code>certutil -user -addstore Root ${AUTHORITY_FILES.crt}</code></li>
<li>Restart the browser, come back and choose Check again. Firefox keeps its own list: see Linux below.</li>
</ol>

<h2 id="linux">Linux</h2>
<ol>
<li>Download <a href="${AUTHORITY_FILES.pem}" download>${AUTHORITY_FILES.pem}</a>.</li>
<li>Debian and Ubuntu: <code>sudo cp ${AUTHORITY_FILES.pem} /usr/local/share/ca-certificates/daysync-ca.crt &amp;&amp; sudo update-ca-certificates</code>. Fedora: <code>sudo cp ${AUTHORITY_FILES.pem} /etc/pki/ca-trust/source/anchors/ &amp;&amp; sudo update-ca-trust</code>.</li>
<li>Chrome and Chromium: Settings, Privacy and security, Security, Manage certificates, Authorities, Import, and tick "Trust this certificate for identifying websites".</li>
<li>Firefox: Settings, Privacy &amp; Security, Certificates, View Certificates, Authorities, Import, and tick "Trust this CA to identify websites".</li>
<li>Come back and choose Check again.</li>
</ol>
${command}</main>
<script>${CHECK_SCRIPT}</script>
</body>
</html>
`;
}

/** An iOS configuration profile that installs the authority (full trust is still turned on by hand in Settings). */
export function authorityProfile(options: { certDer: Buffer; authorityName: string; id: string }): string {
  const { certDer, authorityName, id } = options;
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>PayloadContent</key>
  <array>
    <dict>
      <key>PayloadCertificateFileName</key><string>${AUTHORITY_FILES.crt}</string>
      <key>PayloadContent</key><data>${certDer.toString("base64")}</data>
      <key>PayloadDisplayName</key><string>${escapeHtml(authorityName)}</string>
      <key>PayloadIdentifier</key><string>app.daysync.home-network.${id}.certificate</string>
      <key>PayloadType</key><string>com.apple.security.root</string>
      <key>PayloadUUID</key><string>${uuidFrom(`${id}-certificate`)}</string>
      <key>PayloadVersion</key><integer>1</integer>
    </dict>
  </array>
  <key>PayloadDisplayName</key><string>${escapeHtml(authorityName)}</string>
  <key>PayloadDescription</key><string>Lets this device open your Daysync server over HTTPS on your home network.</string>
  <key>PayloadIdentifier</key><string>app.daysync.home-network.${id}</string>
  <key>PayloadType</key><string>Configuration</string>
  <key>PayloadUUID</key><string>${uuidFrom(id)}</string>
  <key>PayloadVersion</key><integer>1</integer>
</dict>
</plist>
`;
}

/** A stable UUID-shaped name for a profile part, so installing it again replaces it. */
function uuidFrom(seed: string): string {
  const hex = createHash("sha256").update(seed).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`.toUpperCase();
}
