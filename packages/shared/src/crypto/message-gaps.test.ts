import { describe, expect, it } from "vitest";
import type { Message } from "../entities.ts";
import { openDeletionNotes, sealDeletionNote } from "./deletion-notes.ts";
import { deriveEpochKeys, makeEpochKey } from "./epoch-keys.ts";
import { ArrivalWatch, dayGaps, dayMayHaveExpired, type NumberedMessage } from "./message-gaps.ts";
import { openMessage, type Sealer, sealTextMessage } from "./sealed-message.ts";
import { memorySendNumbers, SendNumbering } from "./send-numbers.ts";

const userId = "u_1";
const date = "12/3/2026";

async function laptop() {
  const keys = await deriveEpochKeys(makeEpochKey(), userId);
  const store = memorySendNumbers();
  const sealer: Sealer = { userId, sessionId: "s_1", epoch: 1, keys, numbering: new SendNumbering("key-laptop", store) };
  return { sealer, store, epochs: new Map([[1, keys]]) };
}

async function sendAndOpen(
  sealer: Sealer,
  epochs: Map<number, Awaited<ReturnType<typeof deriveEpochKeys>>>,
  content: string,
  id = crypto.randomUUID(),
) {
  const sent = await sealTextMessage(sealer, { id, date, time: "9:05 AM", content });
  const served = { ...sent, type: "text", filename: "", device: { id: "s_1", name: "Laptop" } } as const;
  const opened = await openMessage(userId, epochs, served as unknown as Message);
  if (opened.state !== "opened" || !opened.number) throw new Error(`not numbered: ${JSON.stringify(opened)}`);
  return { id, text: opened.text, number: opened.number, deviceName: "Laptop" } satisfies NumberedMessage & { text: string };
}

describe("numbered messages and their gaps", () => {
  it("seals the number with the text: the text opens as typed, numbered 1, 2, 3; a retry keeps its number", async () => {
    const { sealer, epochs, store } = await laptop();
    const one = await sendAndOpen(sealer, epochs, "first");
    const two = await sendAndOpen(sealer, epochs, "second");
    const again = await sendAndOpen(sealer, epochs, "second", two.id);
    expect(one).toMatchObject({ text: "first", number: { k: "key-laptop", n: 1, d: 0 } });
    expect(two.number).toMatchObject({ n: 2, d: 1, u: [0] });
    expect(again.number.n).toBe(2);
    await sealer.numbering?.stored(one.id);
    expect((await sendAndOpen(sealer, epochs, "third")).number).toMatchObject({ n: 3, d: 2, u: [1] });
    expect(store.state?.next).toBe(4);
  });

  it("reports a missing number with the device's name, and not one deleted, under way or expired", async () => {
    const { sealer, epochs } = await laptop();
    const sendStored = async (text: string) => {
      const message = await sendAndOpen(sealer, epochs, text);
      await sealer.numbering?.stored(message.id);
      return message;
    };
    const [a, b, c, d, e] = [
      await sendStored("a"),
      await sendStored("b"),
      await sendStored("c"),
      await sendStored("d"),
      await sendStored("e"),
    ];
    expect(dayGaps([a, c, e]).map((g) => [g.notice, g.before])).toEqual([
      ["1 message from Laptop did not arrive", c.id],
      ["1 message from Laptop did not arrive", e.id],
    ]);
    expect(dayGaps([a, d, e])[0]?.notice).toBe("2 messages from Laptop did not arrive");
    expect(dayGaps([c, d, e])[0]?.notice).toBe("2 messages from Laptop did not arrive");
    expect(dayGaps([c, d, e], { leadingMayHaveExpired: true })).toEqual([]);

    const note = await sealDeletionNote(sealer, { id: crypto.randomUUID(), date, deleted: [b.number, d.number] });
    const noteId = crypto.randomUUID();
    const notes = [{ id: noteId, date, device_id: "s_1", note: await sealDeletionNote(sealer, { id: noteId, date, deleted: [b.number] }) }];
    expect(dayGaps([a, c, e], { deleted: await openDeletionNotes(userId, epochs, notes) }).map((g) => g.before)).toEqual([e.id]);
    // A note moved to another id (or date, or device) opens to nothing.
    const moved = [{ id: crypto.randomUUID(), date, device_id: "s_1", note }];
    expect((await openDeletionNotes(userId, epochs, moved)).size).toBe(0);
  });

  it("watching arrivals: says a gap once, and a message that arrives after a newer one", async () => {
    const { sealer, epochs } = await laptop();
    const [a, b, c] = [
      await sendAndOpen(sealer, epochs, "a"),
      await sendAndOpen(sealer, epochs, "b"),
      await sendAndOpen(sealer, epochs, "c"),
    ];
    for (const m of [a, b, c]) await sealer.numbering?.stored(m.id);
    const fresh = await sendAndOpen(sealer, epochs, "d");
    const watch = new ArrivalWatch();
    expect(watch.arrived(date, a)).toEqual([]);
    expect(watch.arrived(date, fresh)).toEqual(["2 messages from Laptop did not arrive"]);
    expect(watch.arrived(date, c)).toEqual(["A message from Laptop arrived after a newer one"]);
  });

  it("a day may have expired once the plan's cut-off reaches it", () => {
    const now = Date.UTC(2026, 11, 3, 12);
    expect(dayMayHaveExpired(date, null, now)).toBe(false);
    expect(dayMayHaveExpired(date, 15, now)).toBe(true);
    expect(dayMayHaveExpired("12/1/2026", 60, now)).toBe(true);
    expect(dayMayHaveExpired("12/5/2026", 60, now)).toBe(false);
  });
});
