/**
 * Sealed messages as they arrive live, for `watch` and `clip` (docs/protocol/encryption.md, "Rotation and revocation" and "Sealed messages"): each is opened with
 * the terminal's keys, which are synced again whenever the account's key changes.
 */
import type { LiveEvent, Message } from "@daysync/shared";
import { ArrivalWatch, numberedOf, SEALED_TEXT } from "@daysync/shared/crypto";
import type { MessageKeys } from "./message-keys.ts";
import { type ShownMessage, showMessage } from "./shown-messages.ts";

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

  /** A new epoch, or one due (this terminal then makes it): sync before the messages sealed under it arrive. */
  async onEvent(event: LiveEvent): Promise<void> {
    if (event.kind === "key.epoch_created" || event.kind === "key.rotation_due") await this.sync();
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
