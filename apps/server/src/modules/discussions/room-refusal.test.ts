/**
 * A wrong code typed to let someone in by typed ID (docs/protocol/encryption.md, "Admission by typed ID"): the
 * joiner's device refuses the answer, the request closes and the member who answered is told live, so its page says
 * so at once. Only the joiner may refuse, only an answered request, and a refused one takes no further step.
 */
import { type JoinRequestAnswer, ROOMS_API, type ServerFrame } from "@daysync/shared";
import { answerBody, answerJoin, checkAnswer, joinAnswerOf, requestOf, startJoin } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { person, ready } from "../../testing/discussion-api.ts";
import { createRoomThroughApi, linkJoinThroughApi, newMemberKey } from "../../testing/room-client.ts";
import { type Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ DISCUSSION_JOIN_RATE_LIMIT_MAX: "100", DISCUSSION_JOIN_ADDRESS_RATE_LIMIT_MAX: "100" });
});
afterAll(() => server.close());

type Answer = { request: JoinRequestAnswer };
const codeOf = (res: { status: number; body: unknown }) => [res.status, (res.body as { error?: { code: string } }).error?.code];

/** The joiner asks by the typed ID: its request, the code it shows and its secret. */
async function ask(device: Device, publicId: string, roomId: string, name: string) {
  const key = await newMemberKey();
  const { code, secret } = startJoin(roomId, name, key);
  const body = { name, joiner_key_id: key.keyId, joiner_public_key: key.publicKey, share: secret.share };
  const res = await device.post<Answer>(ROOMS_API.requestJoin(publicId), body);
  expect(res.status).toBe(201);
  return { request: res.body.request, code, secret };
}

describe("a wrong code to let someone in", () => {
  it("is refused by the joiner's device, told live to the member at once; the request closes and the joiner asks again", async () => {
    const [ana, bo, dee, eve] = await Promise.all([
      person(server, "Ana"),
      person(server, "Bo"),
      person(server, "Dee"),
      person(server, "Eve"),
    ]);
    const created = await createRoomThroughApi(ana.device, "Anaqzx", "Qzx title");
    const { public_id: publicId, id: roomId } = created.res.body;
    expect((await linkJoinThroughApi(bo.device, publicId, created.holding, "Boqzx")).res.status).toBe(201);

    const asked = await ask(dee.device, publicId, roomId, "Deeqzx");
    const requestId = asked.request.id;
    // Nothing to refuse before an answer.
    expect(codeOf(await dee.device.post(ROOMS_API.refuse(requestId), { reason: "wrong_code" }))).toEqual([409, "join_request_state"]);

    // Ana types a code other than the one Dee's device shows.
    const wrong = asked.code === "000000" ? "111111" : "000000";
    const { answer } = answerJoin(requestOf(asked.request), wrong, created.holding.self);
    const answered = await ana.device.post(ROOMS_API.answer(roomId, requestId), answerBody(answer));
    expect(answered.status).toBe(200);
    const deeSees = (await dee.device.get<Answer>(ROOMS_API.ownRequest(requestId))).body.request;
    await expect(checkAnswer(requestOf(deeSees), asked.secret, joinAnswerOf(deeSees))).rejects.toMatchObject({ reason: "wrongCode" });

    // Only the joiner's own device may say so, with a reason the schema knows.
    expect((await eve.device.post(ROOMS_API.refuse(requestId), { reason: "wrong_code" })).status).toBe(404);
    expect((await ana.device.post(ROOMS_API.refuse(requestId), { reason: "wrong_code" })).status).toBe(404);
    for (const body of [{}, { reason: "bored" }, null]) {
      expect(codeOf(await dee.device.post(ROOMS_API.refuse(requestId), body)), JSON.stringify(body)).toEqual([400, "validation"]);
    }

    const anaLive = await ready(ana.device);
    const refused = await dee.device.post<Answer>(ROOMS_API.refuse(requestId), { reason: "wrong_code" });
    expect([refused.status, refused.body.request.state]).toEqual([200, "refused"]);
    // Ana's page hears of it live, and her list says it; Bo, who typed nothing, no longer sees the request.
    await anaLive.waitFor((r) =>
      (r as ServerFrame[]).some(
        (m) =>
          m.type === "event" &&
          m.event.kind === "discussion.join_updated" &&
          m.event.request_id === requestId &&
          m.event.state === "refused",
      ),
    );
    const anaList = (await ana.device.get<{ requests: JoinRequestAnswer[] }>(ROOMS_API.requests(roomId))).body.requests;
    expect(anaList.map((r) => [r.id, r.state])).toEqual([[requestId, "refused"]]);
    expect((await bo.device.get<{ requests: JoinRequestAnswer[] }>(ROOMS_API.requests(roomId))).body.requests).toEqual([]);

    // A refused request is closed: no confirmation, no second answer, no second refusal.
    expect(codeOf(await dee.device.post(ROOMS_API.confirm(requestId), { confirmation: "c" }))).toEqual([409, "join_request_state"]);
    const again = await bo.device.post(ROOMS_API.answer(roomId, requestId), {
      member_key_id: "k",
      member_public_key: "p",
      share: "s",
      confirmation: "c",
    });
    expect(codeOf(again)).toEqual([409, "join_request_state"]);
    expect(codeOf(await dee.device.post(ROOMS_API.refuse(requestId), { reason: "wrong_code" }))).toEqual([409, "join_request_state"]);

    // Dee asks again: a new request and code, and the right code checks out on Dee's device.
    const second = await ask(dee.device, publicId, roomId, "Deeqzx");
    const right = answerJoin(requestOf(second.request), second.code, created.holding.self).answer;
    const rightAnswer = await ana.device.post(ROOMS_API.answer(roomId, second.request.id), answerBody(right));
    expect(rightAnswer.status).toBe(200);
    const deeSeesNow = (await dee.device.get<Answer>(ROOMS_API.ownRequest(second.request.id))).body.request;
    const keys = await checkAnswer(requestOf(deeSeesNow), second.secret, joinAnswerOf(deeSeesNow));
    const confirmed = await dee.device.post<Answer>(ROOMS_API.confirm(second.request.id), { confirmation: keys.requesterConfirmation });
    expect([confirmed.status, confirmed.body.request.state]).toEqual([200, "confirmed"]);
  });
});
