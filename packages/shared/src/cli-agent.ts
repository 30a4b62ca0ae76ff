/**
 * The User-Agent of the `daysync` command line, e.g. `daysync-cli/1.0.0 (build-box; Linux)`: the CLI sends it,
 * the server reads it to name the device "daysync CLI on build-box" in the Devices list and the pairing review.
 */

const PRODUCT = "daysync-cli";
/** What may stand for a host or system name inside the parentheses. */
const NAME_PART = /[^\p{L}\p{N}._ -]/gu;

const clean = (text: string, max: number) => text.replace(NAME_PART, "").trim().slice(0, max);

export function cliUserAgent(version: string, hostname: string, system: string): string {
  return `${PRODUCT}/${clean(version, 20)} (${clean(hostname, 64) || "unknown host"}; ${clean(system, 40) || "unknown system"})`;
}

// No control characters in the names (a header's bytes 0x80–0x9F read as C1 controls): they end up in Devices.
const PATTERN = /^daysync-cli\/([\w.+-]{1,20}) \(([^;()\p{Cc}]{1,64}); ([^;()\p{Cc}]{1,40})\)$/u;

/** The parts of a command-line User-Agent, or null for any other client. */
export function parseCliUserAgent(userAgent: string): { version: string; hostname: string; system: string } | null {
  const m = PATTERN.exec(userAgent.trim());
  if (!m?.[1] || !m[2] || !m[3]) return null;
  return { version: m[1], hostname: m[2].trim(), system: m[3].trim() };
}
