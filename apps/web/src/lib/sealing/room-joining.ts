/**
 * Joining an encrypted discussion by its typed ID (docs/protocol/encryption.md, "Admission by typed ID"): the
 * joining device asks with a six-digit code it shows, a member's device answers with the code typed, the joiner
 * confirms, and the member hands over the room keys wrapped for the joiner's member key. The server only relays each
 * step; the checks are the core's (room-admission.ts) and a refusal is its `RoomError`.
 */
import { type JoinRequestAnswer, ROOMS_API, roomResponseSchemas } from "@daysync/shared";
import {
  acceptAdmission,
  addressWithoutFragment,
  admit,
  answerBody,
  answerJoin,
  checkAnswer,
  entryBody,
  type JoinAnswer,
  joinAnswerOf,
  makeMemberSeed,
  memberKeyOf,
  parseRoomLink,
  RoomError,
  type RoomKeys,
  type RoomLinkKey,
  requestOf,
  startJoin,
  taggedAt,
  taggedOf,
  wrapBody,
  wrapOf,
} from "@daysync/shared/crypto";
import { api } from "../api-client.ts";
import { NO_ROOM_KEY, NoRoomKeyError, type Rooms } from "./rooms.ts";

const POLL_MS = 1_000;
/**
 * How long a member's device waits for the joiner's confirmation before it says the code was not the one shown. A
 * joiner's device that finds the answer wrong says so at once (the request turns `refused`); this wait is for one
 * that says nothing (an older app, a closed page).
 */
const CONFIRM_WAIT_MS = 30_000;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

/** The joiner: its request posted, the code to show, and `admitted()` that follows it to the end (or a RoomError). */
export async function askToJoin(rooms: Rooms, publicId: string, roomId: string, name: string) {
  const seed = makeMemberSeed();
  const self = await memberKeyOf(seed);
  const { code, secret } = startJoin(roomId, name, self);
  const body = { name, joiner_key_id: self.keyId, joiner_public_key: self.publicKey, share: secret.share };
  const { request } = await api.post(ROOMS_API.requestJoin(publicId), body, roomResponseSchemas.request);
  // The request as first posted is the one the exchange is bound to (each side keeps its first copy).
  const asked = requestOf(request);
  const admitted = async (signal?: AbortSignal): Promise<string> => {
    let checked: { answer: JoinAnswer; keys: Awaited<ReturnType<typeof checkAnswer>> } | undefined;
    for (;;) {
      const { request: now } = await api.get(ROOMS_API.ownRequest(request.id), roomResponseSchemas.request, signal);
      if (!checked && (now.state === "answered" || now.state === "confirmed" || now.state === "admitted")) {
        const answer = joinAnswerOf(now);
        const keys = await checkAnswer(asked, secret, answer).catch(async (error: unknown) => {
          // The member's page learns of the wrong code at once, rather than after its wait for a confirmation.
          if (error instanceof RoomError && error.reason === "wrongCode" && now.state === "answered") {
            await api.post(ROOMS_API.refuse(request.id), { reason: "wrong_code" }, roomResponseSchemas.request).catch(() => undefined);
          }
          throw error;
        });
        checked = { answer, keys };
        if (now.state === "answered") {
          await api.post(ROOMS_API.confirm(request.id), { confirmation: keys.requesterConfirmation }, roomResponseSchemas.request);
        }
      }
      if (checked && now.state === "admitted") {
        if (!now.entry || !now.handover_tag) throw new RoomError("keyNotVerified");
        const state = await api.get(ROOMS_API.state(roomId), roomResponseSchemas.room, signal);
        const wraps = now.wraps.map(wrapOf);
        const newest = Math.max(...wraps.map((w) => w.generation));
        const admission = { wraps, member: taggedOf(now.entry), confirmation: now.handover_tag };
        const holding = await acceptAdmission(asked, checked.answer, checked.keys, self, admission, taggedAt(state, newest));
        await rooms.admitted(holding, seed, name);
        return roomId;
      }
      await sleep(POLL_MS, signal);
    }
  };
  return { code, requestId: request.id, admitted };
}

/**
 * A member lets a joiner in with the code typed: answers, waits for the joiner's confirmation (RoomError "wrongCode"
 * when the joiner's device refuses the answer, when no confirmation comes or when it does not check out: the code was
 * not the one shown), then hands over the keys.
 */
export async function letIn(rooms: Rooms, roomId: string, seen: JoinRequestAnswer, typedCode: string, signal?: AbortSignal) {
  const holding = rooms.holdingOf(roomId);
  if (!holding) throw new NoRoomKeyError(NO_ROOM_KEY);
  const request = requestOf(seen);
  let exchange: ReturnType<typeof answerJoin>;
  try {
    exchange = answerJoin(request, typedCode, holding.self);
  } catch (error) {
    if (error instanceof TypeError) throw new RoomError("wrongCode");
    throw error;
  }
  const { answer, keys } = exchange;
  await api.post(ROOMS_API.answer(roomId, request.requestId), answerBody(answer), roomResponseSchemas.request);
  const until = Date.now() + CONFIRM_WAIT_MS;
  for (;;) {
    const listed = (await api.get(ROOMS_API.requests(roomId), roomResponseSchemas.requests, signal)).requests;
    const now = listed.find((r) => r.id === request.requestId);
    if (now?.state === "confirmed" && now.joiner_confirmation) {
      const admission = await admit(holding, request, keys, now.joiner_confirmation);
      const current = holding.generations.get(holding.highest) as RoomKeys;
      const admitBody = {
        entry: await entryBody(current, admission.member, request.name),
        wraps: admission.wraps.map(wrapBody),
        handover_tag: admission.confirmation,
      };
      await api.post(ROOMS_API.admit(roomId, request.requestId), admitBody, roomResponseSchemas.request);
      return;
    }
    if (!now || now.state === "refused" || Date.now() > until) throw new RoomError("wrongCode");
    await sleep(POLL_MS, signal);
  }
}

/** The key a share link carries in its fragment, read once on arrival (or why it cannot be used, in the core's words). */
export function linkKeyOnArrival(): { key?: RoomLinkKey; problem?: string } {
  const hash = window.location.hash;
  if (!hash.includes("room=")) return {};
  try {
    return { key: parseRoomLink(hash) };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

/** The link's key is read: it leaves the address bar (and so the history and a bookmark) at once. */
export function forgetLinkFragment(): void {
  if (window.location.hash) window.history.replaceState(window.history.state, "", addressWithoutFragment(window.location.href));
}
