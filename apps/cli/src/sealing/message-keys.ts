/**
 * The account's keys as one command uses them (docs/protocol/encryption.md, "Sealed messages" and "Push, share target and the CLI"): synced with the server when the
 * command starts, and again when the account's key changes, with keys.json as the store (as `login` does). Sealing
 * needs the account's current epoch; opening uses every epoch this terminal holds.
 */
import { type DateMessages, type DeletionNote, type Message, SEALED_TEXT } from "@daysync/shared";
import {
  EpochRollbackError,
  gapsOfDay,
  type HeldEpochs,
  type KeyStatus,
  keyedSince,
  numberedOf,
  type Opened,
  type OpenedFile,
  openDayPreview,
  openFileMessage,
  openMessage,
  type Sealer,
  sealerOf,
  securityCode,
} from "@daysync/shared/crypto";
import type { ApiClient } from "../api-client.ts";
import type { ConfigStore } from "../config-store.ts";
import { CliError, EXIT } from "../errors.ts";
import { warn } from "../terminal-text.ts";
import { fileKeys } from "./account-keys.ts";
import { fileSendNumbers, SendNumbering } from "./send-numbers-file.ts";

export const deviceLocked = () => new CliError(SEALED_TEXT.approveToSend, EXIT.locked);

/** The server knows a key for this session that keys.json no longer holds: only a new sign-in makes another. */
export const keysLost = (server: string) =>
  new CliError(
    `This terminal's key is gone from its config folder, so it can neither read nor send your messages. Sign in again with: daysync login ${server}`,
    EXIT.locked,
  );

const NO_EPOCHS: HeldEpochs = new Map();

export class MessageKeys {
  private status: KeyStatus = { state: "lost", sessionId: "" };

  private constructor(
    private readonly server: string,
    readonly userId: string,
    private readonly keys: ReturnType<typeof fileKeys>["keys"],
  ) {}

  /** The keys of the signed-in account, synced: this makes the terminal's pair or the first epoch when there is none. */
  static async load(signedIn: { api: ApiClient; server: string; session: { user: { id: string } } }, store: ConfigStore) {
    const { api, server, session } = signedIn;
    const keys = new MessageKeys(server, session.user.id, fileKeys(api, store, server, session.user.id).keys);
    keys.numbers = fileSendNumbers(store, server);
    await keys.sync();
    return keys;
  }

  /** Asks the server again: opens the wraps of new epochs, and makes the next epoch when a rotation is due. */
  async sync(): Promise<void> {
    this.status = await this.keys.sync();
    this.warnList();
  }

  private listWarned = false;

  /** A device list from the server that did not verify is said once on stderr; this terminal trusts nothing new from it. */
  private warnList(): void {
    const problem = this.status.state === "lost" ? undefined : this.status.listProblem;
    if (problem && !this.listWarned) warn(problem);
    this.listWarned ||= problem !== undefined;
  }

  /** A device key's security code, from the signed device list as the last sync verified it (the same on every device). */
  securityCode(keyId: string): string | undefined {
    const list = this.keys.deviceList;
    const member = list?.ok ? list.list.members.get(keyId) : undefined;
    return member ? securityCode(member) : undefined;
  }

  /** The epochs this terminal holds, for opening. */
  get epochs(): HeldEpochs {
    return this.status.state === "lost" ? NO_EPOCHS : this.status.keys.epochs;
  }

  /**
   * What sends seal with; a terminal without the current epoch cannot send and says how to get it, and one told of an
   * epoch below the highest it saw refuses (exit 7).
   */
  sealer(): Sealer {
    const { status } = this;
    if (status.state === "lost") throw keysLost(this.server);
    let sealer: Sealer | undefined;
    try {
      sealer = sealerOf(this.userId, status);
    } catch (error) {
      if (error instanceof EpochRollbackError) throw new CliError(error.message, EXIT.locked);
      throw error;
    }
    if (!sealer) throw deviceLocked();
    if (!this.numbers) return sealer;
    if (this.numbering?.keyId !== status.keys.keyId) this.numbering = new SendNumbering(status.keys.keyId, this.numbers);
    return { ...sealer, numbering: this.numbering };
  }

  /** Where sends are counted (keys.json), and the numbering of this terminal's key (docs/protocol/encryption.md). */
  private numbers: ReturnType<typeof fileSendNumbers> | undefined;
  private numbering: SendNumbering | undefined;

  /** The server stored message `id`: later sends no longer list its number as under way. */
  async stored(id: string): Promise<void> {
    await this.numbering?.stored(id);
  }

  /** When this terminal first saw the account keyed: a message in clear after it was written by the server. */
  private get keyedAt(): number | undefined {
    return this.status.state === "lost" ? undefined : keyedSince(this.status);
  }

  /** Keys about to be signed out, remembered first: no rotation wraps for them again (`AccountKeys.noteRemoved`). */
  noteRemoved(keyIds: string[]): Promise<void> {
    return this.keys.noteRemoved(keyIds);
  }

  /** After removing devices or changing the recovery code: the next epoch now, made here (`AccountKeys.rotateNow`). */
  async rotateNow(options: { removedKeyIds?: string[]; keepOnly?: "self" } = {}): Promise<void> {
    this.status = await this.keys.rotateNow(options);
    this.warnList();
  }

  /** Why this terminal cannot read what is sent now, or undefined when it can. */
  notice(): string | undefined {
    if (this.status.state === "lost") return keysLost(this.server).message;
    return this.status.state === "locked" ? SEALED_TEXT.approveToSend : undefined;
  }

  open(message: Message): Promise<Opened> {
    return openMessage(this.userId, this.epochs, message, this.keyedAt);
  }

  /** The key of a file message's records, when this terminal holds its epoch and it opens. */
  openFile(message: Message): Promise<OpenedFile> {
    return openFileMessage(this.userId, this.epochs, message, this.keyedAt);
  }

  openDay(day: DateMessages): Promise<Opened> {
    return openDayPreview(this.userId, this.epochs, day);
  }

  /** The messages among `messages` that a device numbered, with its name (docs/protocol/encryption.md, "Sealed messages"). */
  async numbered(messages: Message[]) {
    const opened = await Promise.all(messages.map(async (m) => numberedOf(m, await this.open(m))));
    return opened.flatMap((n) => n ?? []);
  }

  /** The numbers missing from a day's `numbered` messages that neither a deletion note nor the plan's expiry excuses. */
  gaps(
    day: { date: string; numbered: Awaited<ReturnType<MessageKeys["numbered"]>>; notes: DeletionNote[] },
    plan: { retentionMinutes: number | null; now: number },
  ) {
    return gapsOfDay(this.userId, this.epochs, day, plan);
  }
}
