/**
 * Gaps shown, not hidden (docs/protocol/encryption.md, "Sealed messages"): from the numbers sealed in a day's
 * messages, which of a device's messages to that day did not arrive, leaving out those a device deleted (its sealed
 * deletion note says so), those still under way when a later one was sealed, and those that may have expired.
 */
import { parseStoredDate } from "../formats.ts";
import { gapNotice, lateNotice } from "../ui-text.ts";
import { type SendNumber, splitNumbered } from "./send-numbers.ts";

export { type SendNumber, splitNumbered };

/** One opened message of a day, with its number (older messages have none and are left out). */
export interface NumberedMessage {
  id: string;
  number: SendNumber;
  /** The sending device's name as the day shows it. */
  deviceName: string;
}

export interface Gap {
  keyId: string;
  deviceName: string;
  count: number;
  /** The first index missing (the run is `first` … `first + count - 1` on the day). */
  first: number;
  /** The message the notice stands before: the first that arrived after the missing ones. */
  before: string;
  notice: string;
}

/** How a deletion note names what it deleted: the key and the index on the note's date. */
export const deletedNumber = (keyId: string, index: number) => `${keyId}#${index}`;

export interface GapOptions {
  /** Numbers of this date a device deleted (`deletedNumber`), as its sealed notes say. */
  deleted?: ReadonlySet<string>;
  /**
   * The day may have begun to expire (the plan keeps messages for a while only and the cut-off has reached this
   * date): the oldest are gone by design, so what is missing before the first that arrived is not reported.
   */
  leadingMayHaveExpired?: boolean;
}

/** The gaps of one day's messages, in the order of the messages they stand before. */
export function dayGaps(messages: readonly NumberedMessage[], options: GapOptions = {}): Gap[] {
  const byKey = new Map<string, NumberedMessage[]>();
  for (const message of messages) byKey.set(message.number.k, [...(byKey.get(message.number.k) ?? []), message]);
  const gaps: Gap[] = [];
  for (const [keyId, sent] of byKey) {
    const byIndex = new Map(sent.map((m) => [m.number.d, m]));
    const indices = [...byIndex.keys()].sort((a, b) => a - b);
    const first = indices[0] ?? 0;
    const last = indices[indices.length - 1] ?? 0;
    const missing = (index: number) =>
      !byIndex.has(index) &&
      !options.deleted?.has(deletedNumber(keyId, index)) &&
      !(options.leadingMayHaveExpired && index < first) &&
      // Missing once a message sealed after it did not list it as under way.
      sent.some((m) => m.number.d > index && !m.number.u?.includes(index));
    let run = 0;
    for (let index = 0; index <= last; index++) {
      const here = byIndex.get(index);
      if (missing(index)) run++;
      else if (here && run > 0) {
        gaps.push({
          keyId,
          deviceName: here.deviceName,
          count: run,
          first: index - run,
          before: here.id,
          notice: gapNotice(run, here.deviceName),
        });
        run = 0;
      } else if (here) run = 0;
    }
  }
  const order = new Map(messages.map((m, i) => [m.id, i]));
  return gaps.sort((a, b) => (order.get(a.before) ?? 0) - (order.get(b.before) ?? 0));
}

/**
 * What a device that watches messages arrive says of them: a gap once a later message shows one (each once), and a
 * message that arrives after a newer one of its device (the server held it back). It knows only what arrived since
 * it began, so nothing before the first it saw of a device on a date is counted.
 */
export class ArrivalWatch {
  private readonly days = new Map<string, NumberedMessage[]>();
  private readonly newest = new Map<string, number>();
  private readonly told = new Set<string>();

  /** Notices to show for a message that just arrived, dated `date`. */
  arrived(date: string, message: NumberedMessage): string[] {
    const notices: string[] = [];
    const { k, n } = message.number;
    if ((this.newest.get(k) ?? 0) > n) notices.push(lateNotice(message.deviceName));
    this.newest.set(k, Math.max(n, this.newest.get(k) ?? 0));
    const day = [...(this.days.get(date) ?? []), message];
    this.days.set(date, day);
    for (const gap of dayGaps(day, { leadingMayHaveExpired: true })) {
      const untold = Array.from({ length: gap.count }, (_, i) => `${date}|${gap.keyId}|${gap.first + i}`).filter((n) => !this.told.has(n));
      for (const number of untold) this.told.add(number);
      if (untold.length > 0) notices.push(gapNotice(untold.length, gap.deviceName));
    }
    return notices;
  }
}

/** Whether the oldest messages of `date` may have expired: the plan's cut-off has reached that day (any time zone). */
export function dayMayHaveExpired(date: string, retentionMinutes: number | null, now: number): boolean {
  if (retentionMinutes === null) return false;
  const day = parseStoredDate(date);
  if (!day) return true;
  const dayStart = Date.UTC(day.year, day.month - 1, day.day);
  return now - retentionMinutes * 60_000 >= dayStart - 14 * 60 * 60 * 1000;
}
