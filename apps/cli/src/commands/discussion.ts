/**
 * Encrypted discussions on the command line (issue 45): `daysync discussion join LINK`, `send --discussion` and
 * `watch --discussion`. Everything of the room is opened and sealed in `sealing/discussion-room.ts`; this file
 * parses, prints and follows.
 */
import { randomUUID } from "node:crypto";
import {
  DISCUSSIONS_API,
  type DiscussionMessage,
  formatPublicId,
  formatStoredDate,
  formatStoredTime,
  joinDiscussionSchema,
  MAX_MESSAGE_LENGTH,
  responseSchemas,
  sendMessageSchema,
} from "@daysync/shared";
import { ApiError } from "../api-client.ts";
import type { Context } from "../context.ts";
import { CliError, EXIT, usageError } from "../errors.ts";
import { printJson } from "../format.ts";
import { runLive } from "../live-connection.ts";
import { DiscussionRoom, parseDiscussionLink, type RoomMemory } from "../sealing/discussion-room.ts";
import { MessageKeys } from "../sealing/message-keys.ts";
import { say, warn } from "../terminal-text.ts";

/** The generations this terminal took, kept in its config folder beside its keys. */
const roomMemory = (ctx: Context, server: string): RoomMemory => ({
  highest: (roomId) => ctx.store.roomGeneration(server, roomId),
  saveHighest: (roomId, generation) => ctx.store.saveRoomGeneration(server, roomId, generation),
});

export interface JoinOptions {
  name?: string;
  json?: boolean;
}

export async function joinDiscussion(ctx: Context, link: string, options: JoinOptions): Promise<void> {
  const parsedName = joinDiscussionSchema.safeParse({ display_name: options.name ?? "" });
  if (!parsedName.success) {
    const why = options.name === undefined ? "Choose the name the others will see with --name NAME." : parsedName.error.issues[0]?.message;
    throw usageError(why ?? "Choose the name the others will see with --name NAME.");
  }
  const name = parsedName.data.display_name;
  const parsed = parseDiscussionLink(link);
  const signedIn = await ctx.signedIn();
  const keys = await MessageKeys.load(signedIn, ctx.store);
  let joined: Awaited<ReturnType<typeof DiscussionRoom.join>>;
  try {
    joined = await DiscussionRoom.join(signedIn.api, keys, roomMemory(ctx, signedIn.server), parsed, name);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      throw new CliError(
        `${error.message} The discussion of this link ended, you were removed from it, or it is on another server than ${signedIn.server}.`,
        EXIT.notFound,
      );
    }
    throw error;
  }
  const { room } = joined;
  const title = await room.title();
  const shownId = formatPublicId(room.publicId);
  if (options.json) {
    printJson({
      id: room.id,
      public_id: room.publicId,
      title: "text" in title ? title.text : null,
      ...("error" in title ? { title_error: title.error } : {}),
      name,
      joined: joined.joined,
      generation: room.holding.highest,
    });
    return;
  }
  const what = "text" in title ? `"${title.text}" (${shownId})` : `discussion ${shownId} (its title: ${title.error})`;
  say(
    joined.joined
      ? `Joined ${what} as ${name}. Send with: daysync send --discussion ${room.publicId} TEXT; read with: daysync watch --discussion ${room.publicId}`
      : `This account is already in ${what}; nothing changed.`,
  );
}

export async function sendToDiscussion(ctx: Context, named: string, text: string, json: boolean): Promise<void> {
  const now = new Date();
  const input = sendMessageSchema.safeParse({ id: randomUUID(), content: text, date: formatStoredDate(now), time: formatStoredTime(now) });
  if (!input.success) {
    const tooLong = text.trim().length > MAX_MESSAGE_LENGTH;
    throw usageError(
      `${input.error.issues[0]?.message ?? "This text cannot be sent."}${tooLong ? " It is too long for one message." : ""}`,
    );
  }
  const signedIn = await ctx.signedIn();
  const keys = await MessageKeys.load(signedIn, ctx.store);
  const room = await DiscussionRoom.load(signedIn.api, keys, roomMemory(ctx, signedIn.server), named);
  const sent = await room.sendText(input.data);
  const content = input.data.content.trim();
  const { id, discussion_id, type, date, time, generation } = sent;
  // What was sent, opened: never its sealed values.
  if (json) printJson({ id, discussion_id, type, date, time, generation: generation ?? null, content });
  else say(`Sent message ${sent.id} to discussion ${formatPublicId(room.publicId)} (${content.length} characters).`);
}

/** A message of a discussion as `watch --discussion --json` prints it: opened, with its author's name and `seq`. */
export interface WatchedDiscussionMessage {
  id: string;
  discussion_id: string;
  type: string;
  date: string;
  time: string;
  generation: number | null;
  /** The text, or a file's name; empty when `error` says why it did not open. */
  content: string;
  author: string | null;
  error?: string;
  seq: number | null;
}

const CLOSED: Record<string, string> = {
  ended: "Its creator ended this discussion.",
  expired: "This discussion reached its end and was deleted.",
  left: "You left this discussion.",
  removed: "You were removed from this discussion.",
};

export async function watchDiscussion(ctx: Context, named: string, options: { json?: boolean }): Promise<void> {
  const signedIn = await ctx.signedIn();
  const { api, server, session } = signedIn;
  const keys = await MessageKeys.load(signedIn, ctx.store);
  const room = await DiscussionRoom.load(api, keys, roomMemory(ctx, server), named);
  const key = `${server} ${session.user.id} discussion ${room.id}`;
  let position = ctx.store.watchPosition(key);
  const save = (seq: number, lastMessageAt: number) => {
    position = { seq, last_message_at: lastMessageAt };
    try {
      ctx.store.saveWatchPosition(key, position);
    } catch (error) {
      warn(`Could not save the watch position (${(error as Error).message}); watch goes on.`);
    }
  };

  const print = async (message: DiscussionMessage, seq: number | null) => {
    const opened = await room.open(message);
    const author = message.generation === undefined ? undefined : await room.memberName(message.sender_key_id ?? "", message.generation);
    const content = "text" in opened ? opened.text : "";
    if (options.json) {
      const watched: WatchedDiscussionMessage = {
        id: message.id,
        discussion_id: message.discussion_id,
        type: message.type,
        date: message.date,
        time: message.time,
        generation: message.generation ?? null,
        content,
        author: author ?? null,
        ...("error" in opened ? { error: opened.error } : {}),
        seq,
      };
      return printJson(watched);
    }
    const who = author ?? "someone";
    if ("error" in opened) say(`[${message.time}] ${who}: ${opened.error}`);
    else if (message.type === "text") say(`[${message.time}] ${who}: ${content}`);
    else say(`[${message.time}] ${who}: ${content} (${message.type}; files of a discussion are not downloaded here yet)`);
  };

  let announced = false;
  const live = runLive(server, api.token ?? "", {
    position: {
      get: () => position?.seq ?? 0,
      set: (seq) => {
        if (position) save(seq, position.last_message_at);
      },
    },
    async onEvent(event, { seq }) {
      if (!position) return;
      if (event.kind === "discussion.closed" && event.id === room.id) {
        throw new CliError(`${CLOSED[event.reason] ?? "This discussion is closed."} Nothing more to watch.`, EXIT.notFound);
      }
      if (event.kind === "discussion.upserted" && event.discussion.id === room.id) {
        // Members changed: a leave is noted, so nothing is sealed under a key the one who left holds.
        await room.refresh().catch((error: unknown) => warn((error as Error).message));
      }
      if (event.kind !== "discussion.message.created" || event.message.discussion_id !== room.id) return;
      await print(event.message, seq);
      position = { ...position, last_message_at: event.message.timestamps };
    },
    async onReady({ seq }) {
      position ??= { seq, last_message_at: Date.now() };
      if (!announced) warn(`Watching discussion ${formatPublicId(room.publicId)} on ${server}. Press Ctrl+C to stop.`);
      announced = true;
    },
    async onReset(seq) {
      // The log no longer reaches back: what arrived since the last message printed, from the discussion's list.
      if (position) {
        const { messages } = await api.get(DISCUSSIONS_API.messages(room.id), responseSchemas.discussionMessages);
        for (const message of messages.filter((m) => m.timestamps > (position?.last_message_at ?? 0))) {
          await print(message, null);
          save(position.seq, message.timestamps);
        }
      }
      position ??= { seq, last_message_at: Date.now() };
    },
    onNotice: (text) => warn(text),
  });
  await live.untilInterrupted();
}
