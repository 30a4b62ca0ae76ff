/** A readable device name ("Chrome 120 on Windows 10") from a User-Agent header, parsed with bowser. */
import { type DeviceKind, EXTENSION_AGENT_TOKEN, parseCliUserAgent } from "@daysync/shared";
import Bowser from "bowser";

export interface DeviceName {
  browser: string;
  os: string;
  name: string;
  kind: DeviceKind;
}

const UNKNOWN_BROWSER = "Unknown browser";
const UNKNOWN_OS = "unknown system";
/** Browsers freeze these in the User-Agent, so their version says nothing. */
const FROZEN_VERSION = new Set(["Windows", "macOS"]);

const major = (version: string | undefined) => version?.split(".")[0] ?? "";

/** Parsed names by User-Agent: a session's lookup runs again every few seconds, and its header never changes. */
const described = new Map<string, DeviceName>();
const DESCRIBED_MAX = 1000;

export function describeUserAgent(userAgent: string): DeviceName {
  let name = described.get(userAgent);
  if (!name) {
    if (described.size >= DESCRIBED_MAX) described.clear();
    name = parseUserAgent(userAgent);
    described.set(userAgent, name);
  }
  return name;
}

function parseUserAgent(header: string): DeviceName {
  // A header's bytes 0x80–0x9F read as C1 controls; the name is shown on other devices and terminals.
  const userAgent = header.replace(/\p{Cc}/gu, "");
  // The command line is named for the machine it runs on: that is what tells two terminals apart.
  const cli = parseCliUserAgent(userAgent);
  if (cli) return { browser: "daysync CLI", os: cli.system, name: `daysync CLI on ${cli.hostname}`, kind: "terminal" };
  if (userAgent.endsWith(` ${EXTENSION_AGENT_TOKEN}`)) return extensionName(userAgent.slice(0, -EXTENSION_AGENT_TOKEN.length - 1));
  let browser = UNKNOWN_BROWSER;
  let os = UNKNOWN_OS;
  let kind: DeviceKind = "computer";
  if (userAgent.trim()) {
    try {
      const parsed = Bowser.parse(userAgent);
      const b = parsed.browser.name ? `${parsed.browser.name} ${major(parsed.browser.version)}`.trim() : "";
      if (b) browser = b;
      const osVersion = parsed.os.name && FROZEN_VERSION.has(parsed.os.name) ? "" : parsed.os.version;
      const o = parsed.os.name ? `${parsed.os.name} ${osVersion ?? ""}`.trim() : "";
      if (o) os = o;
      const platform = parsed.platform.type;
      if (platform === "mobile") kind = "phone";
      else if (platform === "tablet") kind = "tablet";
    } catch {
      // An odd header is not an error; the device is just described as unknown.
    }
  }
  const model = androidModelOf(userAgent);
  return { browser, os, name: model ? `${browser} on ${model} (${os})` : `${browser} on ${os}`, kind };
}

/** The browser extension (client-kind.ts), named for its browser without a version: "Chrome extension on Linux". */
function extensionName(userAgent: string): DeviceName {
  const { browser, os, kind } = parseUserAgent(userAgent);
  const family = browser === UNKNOWN_BROWSER ? "Browser" : browser.replace(/ \d+$/, "");
  const system = os.replace(/ [\d.]+$/, "");
  return { browser: `${family} extension`, os, name: `${family} extension on ${system}`, kind };
}

/** Android browsers that freeze the User-Agent write this in place of the model (the client hint has it). */
const FROZEN_MODEL = "K";

/**
 * The phone's model from an Android User-Agent's model token ("Linux; Android 14; Pixel 8"), which tells two phones
 * of one browser apart (issue 43); undefined where the browser froze it to "K" or wrote none.
 */
export function androidModelOf(userAgent: string): string | undefined {
  const token = /\(Linux; (?:U; )?Android [^;)]*; ([^;)]+)[;)]/.exec(userAgent)?.[1];
  const model = token?.replace(/\s+Build\/.*$/, "").trim();
  return model && model !== FROZEN_MODEL && model.length <= 64 ? model : undefined;
}

/**
 * The User-Agent a session is named from, with the model the browser gives in its `Sec-CH-UA-Model` client hint
 * (asked for by `Accept-CH` on the app's pages) written into the frozen "K" token, so the name tells phones apart.
 */
export function userAgentWithModel(userAgent: string, modelHint: string | undefined): string {
  const model = /^"([^";)\\\p{Cc}]{1,64})"$/u.exec(modelHint?.trim() ?? "")?.[1]?.trim();
  if (!model) return userAgent;
  return userAgent.replace(/(\(Linux; (?:U; )?Android [^;)]*; )K([;)])/, (_, head: string, tail: string) => `${head}${model}${tail}`);
}
