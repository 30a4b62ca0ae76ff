/**
 * The send pipeline against a real server: a text and a file sealed on this "device" and sent, and a send sealed
 * under an epoch the account has left refused with 409, caught up and sealed again once under the next epoch.
 */
import { randomBytes } from "node:crypto";
import {
  API,
  formatStoredDate,
  formatStoredTime,
  isKeyMovedCode,
  type Message,
  responseSchemas,
  type SendSealedMessageInput,
} from "@daysync/shared";
import { SEALED_RECORD_SIZE, type Sealer } from "@daysync/shared/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyedAccount } from "../../../apps/server/src/testing/key-devices.ts";
import { sessionIdOf } from "../../../apps/server/src/testing/key-state.ts";
import { startTestServer, type TestServer } from "../../../apps/server/src/testing/test-server.ts";
import { resealOnce } from "./reseal.ts";
import { sendSealedText } from "./sealed-text.ts";
import { sealedUploadStart, sealingFileReader } from "./sealed-upload.ts";
import { isKeyMovedUpload, uploadToEnd } from "./tus-answers.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

class Refused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

async function account(name: string) {
  const { keyed, user } = await keyedAccount(server, name);
  const sessionId = await sessionIdOf(keyed.device);
  const sealerAt = (epoch: number): Sealer => {
    const keys = keyed.held().epochs.get(epoch);
    if (!keys) throw new Error(`no keys of epoch ${epoch}`);
    return { userId: user.id, sessionId, epoch, keys };
  };
  const post = async (body: SendSealedMessageInput): Promise<Message> => {
    const res = await keyed.device.post(API.messages, body);
    if (res.status !== 201) throw new Refused(res.status, responseSchemas.error.parse(res.body).error.code);
    return responseSchemas.message.parse(res.body).message;
  };
  return { keyed, user, sealerAt, post };
}

const keyMoved = (error: unknown) => error instanceof Refused && error.status === 409 && isKeyMovedCode(error.code);
const stamp = () => ({ id: crypto.randomUUID(), date: formatStoredDate(new Date()), time: formatStoredTime(new Date()) });

describe("a sealed text", () => {
  it("is posted sealed under the sealer's epoch", async () => {
    const { sealerAt, post } = await account("text");
    const message = { ...stamp(), content: "a plain sentence" };
    const stored = await sendSealedText(message, { sealer: () => sealerAt(1), post, keyMoved, catchUp: async () => undefined });
    expect(stored).toMatchObject({ id: message.id, epoch: 1 });
    const row = await server.db.selectFrom("messages").select("content").where("id", "=", message.id).executeTakeFirstOrThrow();
    expect(row.content).not.toContain("plain sentence");
  });

  it("sealed under an epoch the account left: catches up, seals again under the next one, same id", async () => {
    const { keyed, sealerAt, post } = await account("moved");
    await keyed.keys.rotateNow();
    let epoch = 1;
    let caughtUp = 0;
    const message = { ...stamp(), content: "after the rotation" };
    const stored = await sendSealedText(message, {
      sealer: () => sealerAt(epoch),
      post,
      keyMoved,
      catchUp: async () => {
        caughtUp += 1;
        epoch = 2;
      },
    });
    expect(caughtUp).toBe(1);
    expect(stored).toMatchObject({ id: message.id, epoch: 2 });
  });

  it("refused again after catching up: fails with the server's refusal, sealed twice only", async () => {
    const { keyed, sealerAt, post } = await account("twice");
    await keyed.keys.rotateNow();
    let seals = 0;
    const send = sendSealedText(
      { ...stamp(), content: "never under the current key" },
      {
        sealer: () => {
          seals += 1;
          return sealerAt(1);
        },
        post,
        keyMoved,
        catchUp: async () => undefined,
      },
    );
    await expect(send).rejects.toMatchObject({ status: 409 });
    expect(seals).toBe(2);
  });
});

describe("a sealed file over tus", () => {
  /** Sends `bytes` sealed under `sealerAt(epoch())` over tus-js-client's Node stack, in PATCHes of `records` records. */
  function uploader(who: Awaited<ReturnType<typeof account>>, records: number) {
    return async (sealer: Sealer, id: string, bytes: Uint8Array) => {
      const { sealed } = await sealedUploadStart(sealer, { ...stamp(), id, name: "notes.bin", type: "file" }, [], async () => undefined);
      const cookie = who.keyed.device.cookie;
      let patches = 0;
      await uploadToEnd(Buffer.alloc(0), {
        endpoint: server.url + API.uploads,
        headers: { cookie },
        metadata: sealed.metadata,
        chunkSize: records * SEALED_RECORD_SIZE,
        retryDelays: null,
        fileReader: sealingFileReader(sealed, {
          size: bytes.length,
          read: async (start, end, into) => into.set(bytes.subarray(start, end)),
          chunk: (sealedBytes) => Object.assign(Buffer.from(sealedBytes), { size: sealedBytes.length }),
        }),
        onChunkComplete: () => {
          patches += 1;
        },
      });
      return { sealed, patches };
    };
  }

  it("goes in PATCHes of whole records and is stored as a file message under the sealer's epoch", async () => {
    const who = await account("file");
    const bytes = randomBytes(3 * 64 * 1024 + 100);
    const id = crypto.randomUUID();
    const { patches } = await uploader(who, 2)(who.sealerAt(1), id, bytes);
    expect(patches).toBe(2);
    const row = await server.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ epoch: 1, type: "file" });
  });

  it("refused for a moved key (409): resealOnce catches up and sends it afresh under the next epoch", async () => {
    const who = await account("file-moved");
    await who.keyed.keys.rotateNow();
    const send = uploader(who, 128);
    const bytes = randomBytes(1000);
    const id = crypto.randomUUID();
    let epoch = 1;
    await resealOnce(() => send(who.sealerAt(epoch), id, bytes), {
      keyMoved: isKeyMovedUpload,
      catchUp: async () => {
        epoch = 2;
      },
    });
    const row = await server.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(row.epoch).toBe(2);
  });
});
