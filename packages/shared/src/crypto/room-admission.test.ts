import { describe, expect, it } from "vitest";
import { ROOM_TEXT } from "../ui-text.ts";
import { approvalKeys, makeApprovalSecret } from "./approval-exchange.ts";
import { acceptAdmission, admit, answerJoin, checkAnswer, startJoin } from "./room-admission.ts";
import { joinExchange, newMember, ROOM_ID, startedRoom } from "./room-fixtures.ts";
import { joinByLink } from "./room-holding.ts";
import { memberSecurityCode } from "./room-key.ts";
import { parseRoomLink, roomFragment } from "./room-link.ts";

describe("admission by typed ID", () => {
  it("hands the joining device every generation the member holds, and lists it as admitted by that member", async () => {
    const { holding, store } = await startedRoom();
    const cleo = await newMember();
    const x = await joinExchange(holding, cleo, "Cleo");
    expect(x.code).toMatch(/^[0-9]{3} [0-9]{3}$/);
    store.get(1)?.push(x.admission.member);
    const joined = await acceptAdmission(x.request, x.answer, x.joinerKeys, cleo, x.admission, store.get(1) ?? []);
    expect(joined.highest).toBe(1);
    const listed = joined.rosters.get(1)?.get(cleo.keyId);
    expect(listed).toMatchObject({ addedBy: holding.self.keyId, admission: "code", admissionId: "req-1" });
    expect(joined.roomKeys.get(1)).toEqual(holding.roomKeys.get(1));
    // Both devices compute the same security code for each member.
    expect(await memberSecurityCode(ROOM_ID, cleo.publicKey)).toBe(await memberSecurityCode(ROOM_ID, listed?.publicKey ?? ""));
  });

  it("says a wrong code on the joining device, and the member's device hands nothing over without the confirmation", async () => {
    const { holding } = await startedRoom();
    const cleo = await newMember();
    const { secret } = startJoin(ROOM_ID, "Cleo", cleo);
    const request = {
      roomId: ROOM_ID,
      requestId: "r",
      name: "Cleo",
      joinerKeyId: cleo.keyId,
      joinerPublicKey: cleo.publicKey,
      joinerShare: secret.share,
    };
    const { answer, keys } = answerJoin(request, "000 000", holding.self);
    await expect(checkAnswer(request, secret, answer)).rejects.toThrow(ROOM_TEXT.wrongCode);
    await expect(admit(holding, request, keys, "a-confirmation-the-server-made")).rejects.toThrow(ROOM_TEXT.wrongCode);
  });

  it("runs apart from the account approval: the same code and key give other keys", () => {
    const pk = "_ULUF2W4S-w8EyHLdDohqRxRXKAO6c7E4pjhnwIXgSw";
    const room = { name: "room-admit", bound: [ROOM_ID, "Cleo"] };
    const a = makeApprovalSecret("123456", pk, room);
    const b = makeApprovalSecret("123456", pk, room);
    const t = {
      requestId: "r",
      requesterKeyId: "k",
      requesterPublicKey: pk,
      approverKeyId: "k2",
      approverPublicKey: pk,
      requesterShare: a.share,
      approverShare: b.share,
    };
    const inRoom = approvalKeys(a, b.share, t, room);
    expect(inRoom?.handoverKey).toEqual(approvalKeys(b, a.share, t, room)?.handoverKey);
    expect(approvalKeys(a, b.share, t)?.handoverKey).not.toEqual(inRoom?.handoverKey);
    expect(approvalKeys(a, b.share, t, { ...room, bound: [ROOM_ID, "Cleo2"] })?.handoverKey).not.toEqual(inRoom?.handoverKey);
  });
});

describe("joining by link", () => {
  it("takes the link's key and lists the joiner as admitted by the link", async () => {
    const { holding, store } = await startedRoom();
    const roomKey = holding.roomKeys.get(1);
    if (!roomKey) throw new Error("no key");
    const link = parseRoomLink(
      `https://d.example/discussions/join/ABCDE-FGHJK${roomFragment({ roomId: ROOM_ID, generation: 1, roomKey })}`,
    );
    const bo = await newMember();
    const { entry, holdWith } = await joinByLink(link, bo, "Bo");
    store.get(1)?.push(entry);
    const joined = await holdWith(store.get(1) ?? []);
    expect(joined.rosters.get(1)?.get(bo.keyId)).toMatchObject({ addedBy: bo.keyId, admission: "link" });
  });
});
