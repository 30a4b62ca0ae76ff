/**
 * The setup page: the server's address (host permission asked for that origin only, then), then the pairing QR
 * code and typed code, then "This browser is paired".
 */
import "../../../web/src/lib/zod-jitless.ts";
import { API, formatShortCode } from "@daysync/shared";
import { api } from "../../../web/src/lib/api-client.ts";
import { describeError } from "../../../web/src/lib/api-errors.ts";
import { type Connection, connectApiAs, loadConnection } from "../lib/connection.ts";
import { element, say } from "../lib/dom.ts";
import { notifyBackground } from "../lib/messages.ts";
import { autoCopyOn, setAutoCopy } from "../lib/options.ts";
import { hostPermissionOf, serverAddressSchema } from "../lib/server-address.ts";
import { EXTENSION_TEXT } from "../lib/text.ts";
import { type PairingEvent, type ShownCode, startPairing } from "./pairing.ts";

const form = element("server-form", HTMLFormElement);
const input = element("server", HTMLInputElement);
const inputError = element("server-error", HTMLElement);
const pairing = element("pairing", HTMLElement);
const codeBox = element("pairing-code", HTMLElement);
const notice = element("pairing-notice", HTMLElement);
const status = element("pairing-status", HTMLElement);
const newCode = element("new-code", HTMLButtonElement);
const otherServer = element("other-server", HTMLButtonElement);
const paired = element("paired", HTMLElement);
const autoCopy = element("auto-copy", HTMLInputElement);

element("pairing-intro", HTMLElement).textContent = EXTENSION_TEXT.pairIntro;

let stopWaiting: (() => void) | undefined;
let server: string | undefined;

function showStep(step: "address" | "pairing" | "paired"): void {
  form.hidden = step !== "address";
  pairing.hidden = step !== "pairing";
  paired.hidden = step !== "paired";
}

function showCode(code: ShownCode): void {
  const image = document.createElement("img");
  image.src = code.qr;
  image.width = 264;
  image.height = 264;
  image.alt = EXTENSION_TEXT.qrAlt;
  const prompt = document.createElement("p");
  prompt.textContent = EXTENSION_TEXT.shortCodePrompt;
  const short = document.createElement("strong");
  short.className = "short-code";
  short.dataset.testid = "pairing-short-code";
  short.textContent = formatShortCode(code.shortCode);
  prompt.append(" ", short);
  codeBox.replaceChildren(image, prompt);
  say(status, EXTENSION_TEXT.waiting);
}

function showPaired(connection: Connection, warning?: string): void {
  showStep("paired");
  say(element("paired-body", HTMLElement), EXTENSION_TEXT.pairedBody(connection.server));
  say(element("paired-warning", HTMLElement), warning);
  void autoCopyOn().then((on) => {
    autoCopy.checked = on;
  });
}

function onPairing(event: PairingEvent): void {
  if (event.type === "showing") showCode(event.code);
  else if (event.type === "notice") say(notice, event.text);
  else if (event.type === "signing-in") say(status, EXTENSION_TEXT.signingIn);
  else if (event.type === "paired") {
    void notifyBackground({ type: "connected" });
    showPaired(event.connection, event.warning);
  } else {
    stopWaiting = undefined;
    codeBox.replaceChildren();
    say(status, event.text);
    newCode.hidden = false;
  }
}

async function pair(): Promise<void> {
  if (!server) return;
  stopWaiting?.();
  showStep("pairing");
  newCode.hidden = true;
  say(notice, undefined);
  codeBox.replaceChildren();
  say(status, undefined);
  try {
    stopWaiting = await startPairing(server, onPairing);
  } catch (error) {
    say(status, describeError(error));
    newCode.hidden = false;
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const read = serverAddressSchema.safeParse(input.value);
  if (!read.success) {
    say(inputError, read.error.issues[0]?.message ?? EXTENSION_TEXT.serverInvalid);
    input.setAttribute("aria-invalid", "true");
    return input.focus();
  }
  say(inputError, undefined);
  input.removeAttribute("aria-invalid");
  const origin = read.data;
  // Asked at once, inside the click: a browser shows the prompt only for a user's gesture.
  void chrome.permissions.request({ origins: [hostPermissionOf(origin)] }).then(
    (granted) => {
      if (!granted) return say(inputError, EXTENSION_TEXT.permissionDenied(new URL(origin).host));
      server = origin;
      return pair();
    },
    () => say(inputError, EXTENSION_TEXT.permissionDenied(new URL(origin).host)),
  );
});

newCode.addEventListener("click", () => void pair());
autoCopy.addEventListener("change", () => void setAutoCopy(autoCopy.checked));

/** Ends this browser's session on the server (it leaves Devices), then the background forgets it. */
async function signOut(): Promise<void> {
  const connection = await loadConnection();
  if (connection) {
    connectApiAs(connection);
    try {
      await api.post(API.logout);
    } catch (error) {
      return say(element("sign-out-error", HTMLElement), describeError(error));
    }
  }
  say(element("sign-out-error", HTMLElement), undefined);
  await notifyBackground({ type: "signed-out" });
  showStep("address");
  input.focus();
}
element("sign-out", HTMLButtonElement).addEventListener("click", () => void signOut());
otherServer.addEventListener("click", () => {
  stopWaiting?.();
  stopWaiting = undefined;
  showStep("address");
  input.focus();
});

void loadConnection().then((connection) => {
  if (connection) showPaired(connection);
});
