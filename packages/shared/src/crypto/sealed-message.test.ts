import { describe, expect, it } from "vitest";
import type { DateMessages, Message } from "../entities.ts";
import { sendSealedMessageSchema } from "../sealed-messages.ts";
import { deriveEpochKeys, makeEpochKey } from "./epoch-keys.ts";
import { openDayPreview, openMessage, previewOf, sealTextMessage } from "./sealed-message.ts";
import { sealValue } from "./sealed-value.ts";

const userId = "u_1";
const sessionId = "s_1";

async function setUp() {
  const keys = await deriveEpochKeys(makeEpochKey(), userId);
  const epochs = new Map([[3, keys]]);
  const sealer = { userId, sessionId, epoch: 3, keys };
  return { keys, epochs, sealer };
}

/** The message as the server stores and serves what the device sent. */
function served(sent: { id: string; date: string; time: string; epoch: number; content: string; preview: string }): Message {
  return {
    ...sent,
    type: "text",
    filename: "",
    file_url: "",
    url: "",
    user_id: userId,
    date_message_id: "d_1",
    timestamps: 1,
    device: { id: sessionId, name: "Phone" },
  };
}

const plain = { id: crypto.randomUUID(), date: "11/28/2026", time: "9:05 AM", content: "the door code is 4711 🔑" };

describe("sealed messages", () => {
  it("seals a text so the server's contract takes it, and opens it again", async () => {
    const { epochs, sealer } = await setUp();
    const sent = await sealTextMessage(sealer, plain);
    expect(sendSealedMessageSchema.safeParse(sent).success).toBe(true);
    expect(JSON.stringify(sent)).not.toContain("4711");
    expect(await openMessage(userId, epochs, served(sent))).toEqual({ state: "opened", text: plain.content, preview: plain.content });
  });

  it("keeps a preview of 140 characters, cutting none in half", async () => {
    const long = "🔑".repeat(150);
    expect(Array.from(previewOf(long))).toHaveLength(140);
    const { epochs, sealer } = await setUp();
    const sent = await sealTextMessage(sealer, { ...plain, content: long });
    expect(await openMessage(userId, epochs, served(sent))).toMatchObject({ state: "opened", preview: "🔑".repeat(140) });
  });

  it("cuts a preview at the 140th character wherever the text mixes one- and two-unit characters", () => {
    const texts = [
      "a".repeat(140),
      "a".repeat(141),
      `${"a".repeat(139)}🔑🔑`,
      `${"🔑".repeat(70)}${"a".repeat(80)}`,
      `${"a".repeat(139)}\ud83dz${"b".repeat(5)}`,
      "é".repeat(300),
    ];
    for (const text of texts) expect(previewOf(text)).toBe(Array.from(text).slice(0, 140).join(""));
  });

  it("says locked for an epoch it does not hold, and clear for a message stored in clear", async () => {
    const { sealer } = await setUp();
    const sent = await sealTextMessage(sealer, plain);
    expect(await openMessage(userId, new Map(), served(sent))).toEqual({ state: "locked", epoch: 3 });
    const { epoch: _e, preview: _p, ...clear } = served({ ...sent, content: "in clear" });
    expect(await openMessage(userId, new Map(), clear)).toEqual({ state: "clear", text: "in clear", preview: "in clear" });
  });

  it("is undecryptable when tampered with, moved to another message, device or time, or swapped with another's preview", async () => {
    const { epochs, sealer } = await setUp();
    const sent = served(await sealTextMessage(sealer, plain));
    const other = served(await sealTextMessage(sealer, { ...plain, id: crypto.randomUUID(), content: "something else" }));
    // The character before the last (the last may carry unused bits), always changed.
    const flipped = `${sent.content.slice(0, -2)}${sent.content.at(-2) === "A" ? "B" : "A"}${sent.content.slice(-1)}`;
    for (const tampered of [
      { ...sent, content: flipped },
      { ...sent, id: "m_9" },
      { ...sent, device: { id: "s_9", name: "Phone" } },
      { ...sent, time: "9:06 AM" },
      { ...sent, preview: other.preview },
      { ...sent, content: "not sealed" },
    ]) {
      expect(await openMessage(userId, epochs, tampered)).toEqual({ state: "undecryptable" });
    }
  });

  it("is undecryptable when it opens to text no device sends", async () => {
    const { keys, epochs } = await setUp();
    const place = {
      userId,
      spaceId: userId,
      messageId: plain.id,
      type: "text",
      date: plain.date,
      time: plain.time,
      senderSessionId: sessionId,
      epoch: 3,
    };
    const content = await sealValue(keys.message, { ...place, field: "content" }, "   ");
    const preview = await sealValue(keys.message, { ...place, field: "preview" }, "   ");
    expect(await openMessage(userId, epochs, served({ ...plain, epoch: 3, content, preview }))).toEqual({ state: "undecryptable" });
  });

  it("opens a day's sealed preview, bound to its message", async () => {
    const { epochs, sealer } = await setUp();
    const sent = await sealTextMessage(sealer, plain);
    const day: DateMessages = {
      id: "d_1",
      date: plain.date,
      last_message_time: plain.time,
      last_message_type: "text",
      last_message: sent.preview,
      last_message_epoch: 3,
      last_message_id: plain.id,
      last_message_device_id: sessionId,
      count_messages: 1,
      user_id: userId,
      timestamps: 1,
    };
    expect(await openDayPreview(userId, epochs, day)).toEqual({ state: "opened", text: plain.content, preview: plain.content });
    expect(await openDayPreview(userId, epochs, { ...day, last_message_id: "m_2" })).toEqual({ state: "undecryptable" });
    expect(await openDayPreview(userId, new Map(), day)).toEqual({ state: "locked", epoch: 3 });
  });
});
