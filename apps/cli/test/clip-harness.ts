/** What the `daysync clip` test files share: Ann's signed-in terminal, her clip processes, and reading her texts. */
import type { DateMessages, Message, ServerLiveMessage } from "@daysync/shared";
import { API } from "@daysync/shared";
import { openMessage } from "@daysync/shared/crypto";
import { afterEach } from "vitest";
import type { CliProcess } from "./cli-process.ts";
import { type Desktop, startSway, startXvfb } from "./desktop.ts";
import { sendFromBrowser, terminalEpochs } from "./key-holder.ts";
import { type SignedInSetup, useSignedInTerminal } from "./sign-in.ts";

export const desktops: Array<[string, () => Promise<Desktop>, string]> = [
  ["X11 (Xvfb with xclip)", startXvfb, "x11"],
  ["Wayland (headless sway with wl-clipboard)", startSway, "wayland"],
];

/** Waits until `text` has appeared `times` times on the clip's standard error (counted, not matched: a regular
 * expression for the n-th occurrence backtracks badly, and this process also runs the server). */
export async function waitForLog(cli: CliProcess, text: string, times = 1) {
  // Longer on a slow CI (DAYSYNC_TEST_TIME_SCALE), as every test's own limit is.
  const deadline = Date.now() + 30_000 * Math.max(1, Number(process.env.DAYSYNC_TEST_TIME_SCALE) || 1);
  while (countLog(cli, text) < times) {
    if (Date.now() > deadline) throw new Error(`"${text}" not ${times} times on clip's standard error: ${cli.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
export const countLog = (cli: CliProcess, text: string) => cli.stderr.split(text).length - 1;

export const created = (received: ServerLiveMessage[]) =>
  received.flatMap((m) => (m.type === "event" && m.event.kind === "message.created" ? [m.event.message] : []));

export interface ClipHarness {
  ann: SignedInSetup;
  /** Starts `daysync clip ARGS` on `desktop` and waits until it is connected; it is ended after the test. */
  startClip(desktop: Desktop, args?: string[]): Promise<CliProcess>;
  /** A text as the terminal's keys open it: clip sends sealed (decision 020), and nothing else can read it. */
  openedText(message: Message): Promise<string>;
  /** Every text message of Ann's days, oldest first, opened. */
  serverTexts(): Promise<string[]>;
  /** Sends a text from Ann's browser: another device of hers. */
  sendFromPhone(content: string): Promise<void>;
}

/** Call at the top of a clip test file. */
export function useClipHarness(): ClipHarness {
  const ann = useSignedInTerminal();
  const running: CliProcess[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((cli) => cli.kill()));
  });

  async function openedText(message: Message): Promise<string> {
    const opened = await openMessage(message.user_id, await terminalEpochs(ann.terminal), message);
    return opened.state === "opened" || opened.state === "clear" ? opened.text : `(${opened.state})`;
  }

  return {
    ann,
    async startClip(desktop, args = []) {
      const cli = ann.terminal.spawn(["clip", ...args], { env: desktop.env });
      running.push(cli);
      // Starting the command and connecting is slow on a busy machine.
      await cli.waitFor(/Syncing the clipboard with[\s\S]*Connected\./, { stream: "stderr", timeoutMs: 30_000 });
      return cli;
    },
    openedText,
    async serverTexts() {
      const days = await ann.browser.get<{ days: DateMessages[] }>(API.days);
      const texts: Message[] = [];
      for (const day of days.body.days) {
        const res = await ann.browser.get<{ messages: Message[] }>(API.dayMessages(day.id));
        texts.push(...res.body.messages.filter((m) => m.type === "text"));
      }
      return Promise.all(texts.sort((a, b) => a.timestamps - b.timestamps).map(openedText));
    },
    async sendFromPhone(content) {
      await sendFromBrowser(ann, content, ann.server.clock.now());
    },
  };
}
