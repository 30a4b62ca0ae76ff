/**
 * `daysync clip`: the clipboard both ways. Each new text copied on this computer is sent as a message to the
 * person's own devices, and each text that arrives from their other devices is written into the clipboard.
 * It never echoes (what it wrote is not sent back; what it sent is not written back), skips copies that password
 * managers mark as concealed, filters, pauses, and resumes by sequence number like `watch` after sleep, network
 * changes or a server restart: nothing missed, nothing twice. Texts and files are sealed, and texts opened, with this
 * terminal's keys (decision 020); a message that does not open is never written into the clipboard.
 */
import { createHash, randomUUID } from "node:crypto";
import { DEVICES_API, formatStoredDate, formatStoredTime, type Message, responseSchemas, sendMessageSchema } from "@daysync/shared";
import { type ApiClient, ApiError } from "./api-client.ts";
import type { ClipOptions } from "./clip-options.ts";
import { type ClipPause, PAUSE_SIGNAL, RESUME_SIGNAL } from "./clip-pause.ts";
import { StatusLine } from "./clip-status-line.ts";
import { copyToSend, uploadCopy } from "./clipboard-copy.ts";
import type { ClipboardSnapshot, ClipboardTool } from "./clipboard-tools.ts";
import type { WatchPosition } from "./config-store.ts";
import type { Context } from "./context.ts";
import { CliError, EXIT } from "./errors.ts";
import { followMessages } from "./followed-messages.ts";
import { postSealedText } from "./sealed-send.ts";
import { LiveMessages } from "./sealing/live-messages.ts";
import { MessageKeys } from "./sealing/message-keys.ts";

/** How many texts written here are remembered, so that reading them back is never taken for a new copy. */
const WRITTEN_MEMORY = 50;
const SEND_TIMEOUT_MS = 8000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A copy waiting to be sent: the message id is made once, so a retry never sends it twice. */
type Outgoing = { id: string; text: string; at: Date } | { id: string; file: Buffer; name: string; at: Date };

export class ClipSession {
  private readonly api: ApiClient;
  private readonly server: string;
  private readonly userId: string;
  private readonly status: StatusLine;
  private paused: boolean;
  private ownDevice: string | null = null;
  /** The last thing seen in the clipboard (text, or an image's hash): a change is a different one. */
  private lastSeen: string | null = null;
  private readonly written: string[] = [];
  /**
   * A text being written here, until the clipboard reads back as it, and what the clipboard held before: the
   * copy tools return before their background child owns the clipboard, so a read meanwhile still sees the
   * old content, which is not a new copy.
   */
  private landing: { text: string; before: Set<string | null> } | null = null;
  private readonly sentIds = new Set<string>();
  private readonly queue: Outgoing[] = [];
  private sending = false;
  /** The clipboard being read (and read again while it changes meanwhile), until it is done. */
  private reading: Promise<void> | null = null;
  private readAgain = false;
  private counts = { sent: 0, received: 0 };
  private connection = "connecting";
  private live: ReturnType<typeof followMessages> | undefined;
  private stopped = false;
  /** Where the last pause or resume asked is going: a resume takes a clipboard read before it is in effect. */
  private pausing: boolean;
  private fail: (error: unknown) => void = () => {};
  private keys: MessageKeys | undefined;
  private arriving: LiveMessages | undefined;

  constructor(
    private readonly ctx: Context,
    private readonly signedIn: Awaited<ReturnType<Context["signedIn"]>>,
    private readonly options: ClipOptions,
    private readonly tool: ClipboardTool,
    private readonly pause: ClipPause,
  ) {
    const { api, session, server } = signedIn;
    this.api = api;
    this.server = server;
    this.userId = session.user.id;
    this.paused = pause.read().paused;
    this.pausing = this.paused;
    this.status = new StatusLine(process.stderr);
  }

  async run(): Promise<void> {
    const devices = await this.api.get(DEVICES_API.list, responseSchemas.devices);
    this.ownDevice = devices.devices.find((d) => d.current)?.id ?? null;
    this.keys = await MessageKeys.load(this.signedIn, this.ctx.store);
    const arriving = new LiveMessages(this.keys, (text) => this.notice(text));
    this.arriving = arriving;
    const locked = this.keys.notice();
    if (locked) this.notice(locked);
    // What is in the clipboard before clip starts was copied before: it is not sent.
    this.lastSeen = keyOf(await this.tool.read({ images: this.options.images }));
    if (this.tool.caveat && !this.options.receiveOnly) this.notice(this.tool.caveat);

    const failed = new Promise<never>((_, reject) => {
      this.fail = reject;
    });
    const stopWatching = this.options.receiveOnly
      ? () => {}
      : this.tool.watch(
          () => void this.clipboardChanged(),
          (error) => this.fail(new CliError(`The clipboard cannot be watched any more: ${error.message}`)),
        );
    const live = this.receive(arriving);
    this.live = live;
    const stop = () => live.stop();
    const onPause = () => this.setPaused(true, true);
    const onResume = () => this.setPaused(false, true);
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    if (process.platform !== "win32") {
      process.on(PAUSE_SIGNAL, onPause);
      process.on(RESUME_SIGNAL, onResume);
    }
    this.pause.write({ paused: this.paused, pid: process.pid });
    const stopPauseWatch = this.pause.watch((paused) => this.setPaused(paused, false));
    const direction = this.options.receiveOnly ? "receiving only" : this.options.sendOnly ? "sending only" : "both ways";
    this.notice(`Syncing the clipboard with ${this.server} (${direction}) through ${this.tool.name}. Press Ctrl+C to stop.`);
    if (this.paused) this.notice("Paused (daysync clip --resume to go on).");
    this.render();
    try {
      await Promise.race([live.done, failed]);
    } finally {
      this.stopped = true;
      stopWatching();
      stopPauseWatch();
      live.stop();
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      process.off(PAUSE_SIGNAL, onPause);
      process.off(RESUME_SIGNAL, onResume);
      this.pause.release(process.pid);
      this.status.clear();
    }
  }

  private notice(text: string) {
    this.status.print(text);
  }

  private render() {
    const state = this.paused ? "paused" : this.connection;
    this.status.show(`Clipboard ⇄ ${this.server}: ${state} · sent ${this.counts.sent} · received ${this.counts.received}`);
  }

  private async setPaused(paused: boolean, save: boolean) {
    // The signal and the pause file's watch both say it: act once.
    if (paused === this.pausing) return;
    this.pausing = paused;
    if (save) this.pause.write({ paused, pid: process.pid });
    // Copies made while paused stay here: what is in the clipboard when the pause ends counts as seen. It is read
    // while still paused, and "Resumed." said only after, so a copy made once it is said is sent.
    if (!paused) {
      const seen = keyOf(await this.tool.read({ images: this.options.images }).catch(() => null));
      if (this.pausing) return; // paused again during the read
      this.lastSeen = seen;
    }
    this.paused = paused;
    this.notice(paused ? "Paused: nothing is sent or written until daysync clip --resume." : "Resumed.");
    this.render();
  }

  /** Reads the clipboard after a change (one read at a time; changes during a read lead to one more read). */
  private clipboardChanged(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return this.reading;
    }
    this.reading = (async () => {
      try {
        do {
          this.readAgain = false;
          const snapshot = await this.tool.read({ images: this.options.images });
          this.consider(snapshot);
        } while (this.readAgain && !this.stopped);
      } catch (error) {
        this.notice(`Could not read the clipboard: ${(error as Error).message}`);
      } finally {
        this.reading = null;
      }
    })();
    return this.reading;
  }

  /** Decides whether a new clipboard content is sent. */
  private consider(snapshot: ClipboardSnapshot) {
    const key = keyOf(snapshot);
    if (key === null) return;
    if (this.landing) {
      if (key === this.landing.text) {
        this.landing = null;
        this.lastSeen = key;
        return;
      }
      if (this.landing.before.has(key)) return;
      this.landing = null;
    }
    if (key === this.lastSeen) return;
    this.lastSeen = key;
    if (this.paused || this.stopped) return;
    if (snapshot.concealed && !this.options.includeSecrets) {
      return this.notice("Skipped a copy that a password manager marked as concealed (--include-secrets sends those too).");
    }
    const now = new Date();
    if (snapshot.text !== null) {
      const text = snapshot.text;
      // Written here from another device: sending it back would be an echo.
      if (this.written.includes(text)) return;
      if (!text.trim()) return;
      if (text.trim().length < this.options.minLength) {
        return this.notice(`Skipped a copy shorter than --min-length ${this.options.minLength}.`);
      }
      const pattern = this.options.ignore.find((p) => p.regex.test(text));
      if (pattern) return this.notice(`Skipped a copy matching --ignore ${pattern.source}`);
    }
    const copy = copyToSend(snapshot, now);
    if (copy) this.enqueue({ id: randomUUID(), ...copy, at: now });
  }

  private enqueue(item: Outgoing) {
    this.queue.push(item);
    void this.drain();
  }

  /** Sends the waiting copies in order; a copy that cannot reach the server waits and is tried again. */
  private async drain() {
    if (this.sending) return;
    this.sending = true;
    try {
      for (let attempt = 1; this.queue.length > 0 && !this.stopped; ) {
        const item = this.queue[0] as Outgoing;
        try {
          await this.sendOne(item);
          this.queue.shift();
          attempt = 1;
          // The server is back (after a restart, say): the live connection need not wait out its back-off.
          if (this.connection !== "connected") this.live?.checkNow();
        } catch (error) {
          if (error instanceof CliError && error.exitCode === EXIT.signedOut) return this.fail(error);
          if (error instanceof ApiError && error.status === 429) {
            this.notice(`${error.message} The copy waits.`);
            await sleep((error.retryAfterSeconds ?? 5) * 1000);
          } else if (isTemporary(error)) {
            await sleep(Math.min(10_000, 500 * 2 ** Math.min(attempt, 5)));
            attempt++;
          } else {
            this.notice(`Could not send a copy: ${(error as Error).message}`);
            this.queue.shift();
          }
        }
      }
    } finally {
      this.sending = false;
    }
  }

  private async sendOne(item: Outgoing) {
    if ("text" in item) {
      const body = sendMessageSchema.parse({
        id: item.id,
        content: item.text,
        date: formatStoredDate(item.at),
        time: formatStoredTime(item.at),
      });
      this.sentIds.add(item.id);
      if (!this.keys) throw new CliError("clip has not started");
      // A request caught in a server's restart can hang: give up sooner than other commands and try again.
      await postSealedText(this.api, this.keys, body, SEND_TIMEOUT_MS);
      this.notice(`Sent a copy (${item.text.length} characters).`);
    } else {
      const keys = this.keys;
      if (!keys) throw new CliError("clip has not started");
      // Sealed as `send --file` seals it (docs/protocol/encryption.md, "File records").
      const sent = await uploadCopy(this.ctx.store, this.api, this.userId, item, async () => keys);
      this.sentIds.add(sent.messageId);
      this.notice(`Sent a copied ${item.name.endsWith(".png") ? "image" : "text"} as the file ${item.name} (${sent.sizeLabel}).`);
    }
    this.counts.sent++;
    this.render();
  }

  /** The live connection: texts from the other devices go into the clipboard. */
  private receive(arriving: LiveMessages) {
    const key = `clip ${this.server} ${this.userId}`;
    const kept = {
      read: () => this.ctx.store.watchPosition(key),
      save: (next: WatchPosition) => this.ctx.store.saveWatchPosition(key, next),
    };
    return followMessages(this.api, this.server, arriving, kept, {
      message: (message) => this.arrived(message),
      ready: () => {
        if (this.connection === "connecting") this.notice("Connected.");
        this.connection = "connected";
        this.render();
      },
      notice: (text) => {
        this.connection = text.startsWith("Reconnected") ? "connected" : "reconnecting";
        this.notice(text);
        this.render();
      },
    });
  }

  private async arrived(message: Message) {
    if (message.type !== "text" || this.options.sendOnly || this.paused) return;
    // Sent from here (by clip, or by daysync send on this device): it is already in this clipboard or was never meant for it.
    if (this.sentIds.has(message.id) || (this.ownDevice !== null && message.device?.id === this.ownDevice)) return;
    // A copy made here that the watch has not read yet would be overwritten, and lost: read it first.
    if (!this.options.receiveOnly) await this.clipboardChanged();
    const shown = this.arriving ? await this.arriving.open(message) : undefined;
    if (!shown) return;
    if (shown.error) return this.notice(`Did not copy a message from ${message.device?.name ?? "another device"}: ${shown.error}`);
    const text = shown.content;
    this.written.push(text);
    if (this.written.length > WRITTEN_MEMORY) this.written.shift();
    this.landing = { text, before: new Set([...(this.landing?.before ?? []), this.lastSeen]) };
    this.lastSeen = text;
    try {
      await this.tool.write(text);
    } catch (error) {
      this.notice(`Could not write to the clipboard: ${(error as Error).message}`);
      return;
    }
    this.counts.received++;
    this.notice(`Copied a text from ${message.device?.name ?? "another device"} (${text.length} characters) into the clipboard.`);
    this.render();
  }
}

/** What makes two clipboard contents the same: the text, or the image's hash. */
function keyOf(snapshot: ClipboardSnapshot | null): string | null {
  if (!snapshot) return null;
  if (snapshot.text !== null) return snapshot.text;
  if (snapshot.image) return `image:${createHash("sha256").update(snapshot.image).digest("hex")}`;
  return null;
}

/** Worth another try: the server could not be reached, or failed for now. */
const isTemporary = (error: unknown) =>
  (error instanceof CliError && error.exitCode === EXIT.unreachable) || (error instanceof ApiError && error.status >= 500);
