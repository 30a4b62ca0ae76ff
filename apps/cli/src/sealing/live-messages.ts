/**
 * Sealed messages as they arrive live, for `watch` and `clip` (docs/protocol/encryption.md, "Rotation and revocation" and "Sealed messages"): each is opened with
 * the terminal's keys, which are synced again whenever the account's key changes.
 */
import type { LiveEvent, Message } from "@daysync/shared";
import { SEALED_TEXT } from "@daysync/shared";
import { ArrivalWatch, numberedOf } from "@daysync/shared/crypto";
import type { MessageKeys } from "./message-keys.ts";
import { type ShownMessage, showMessage } from "./shown-messages.ts";

/**
 * What a terminal following messages does with each kind of live event: `message`, shown by the command that follows
 * (watch, clip); `keys`, the terminal's keys synced again; `none`. A kind without an entry fails the typecheck.
 */
const liveKinds: { [K in LiveEvent["kind"]]: "message" | "keys" | "none" } = {
  "message.created": "message",
  "day.upserted": "none",
  "messages.deleted": "none",
  "user.updated": "none",
  "device.signed_in": "none",
  "device.signed_out": "none",
  "device.renamed": "none",
  "discussion.upserted": "none",
  "discussion.closed": "none",
  "discussion.message.created": "none",
  "discussion.messages.deleted": "none",
  // A new epoch, or one due (this terminal then makes it): synced before the messages sealed under it arrive.
  "key.epoch_created": "keys",
  "key.rotation_due": "keys",
  "key.start_over_changed": "none",
  "key.requested": "none",
  "key.request_updated": "none",
};

export class LiveMessages {
  /** Epochs met unheld that a sync was already tried for. */
  private readonly tried = new Set<number>();
  /** What arrived of each device, by number: a gap or a late message is told on stderr (`report`). */
  private readonly arrivals = new ArrivalWatch();

  constructor(
    private readonly keys: MessageKeys,
    /** Where a failed sync is told: it ends nothing, what it would open shows as locked until the next try. */
    private readonly report: (text: string) => void,
  ) {}

  /** A live event by what its kind means here (`liveKinds`): the message it brings, if it is one of the user's days. */
  async onEvent(event: LiveEvent): Promise<Message | undefined> {
    const meaning = liveKinds[event.kind];
    if (meaning === "keys") await this.sync();
    return meaning === "message" && event.kind === "message.created" ? event.message : undefined;
  }

  /**
   * Opens a message; one sealed under an epoch not held yet makes one more sync for that epoch first, in case its
   * key event was missed (a catch-up after a reset replays no events).
   */
  async open(message: Message): Promise<ShownMessage> {
    const shown = await this.openOnce(message);
    const numbered = numberedOf(message, await this.keys.open(message));
    if (numbered) for (const notice of this.arrivals.arrived(message.date, numbered)) this.report(notice);
    return shown;
  }

  private async openOnce(message: Message): Promise<ShownMessage> {
    const shown = await showMessage(this.keys, message);
    if (shown.error !== SEALED_TEXT.locked || message.epoch === undefined || this.tried.has(message.epoch)) return shown;
    this.tried.add(message.epoch);
    await this.sync();
    return showMessage(this.keys, message);
  }

  private async sync() {
    try {
      await this.keys.sync();
    } catch (error) {
      this.report((error as Error).message);
    }
  }
}
