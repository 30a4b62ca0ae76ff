/**
 * `pairing.decided` wakes the devices waiting on a request: it goes out once the step is committed (a device told
 * earlier could read the row before the step is there) and never for a step whose transaction failed.
 */
import { PAIRING_API, pairingRequestCreatedSchema } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { feedRows } from "../../app/repositories.ts";
import type { Db } from "../../db/database.ts";
import { createChangesRepository } from "../../feed/changes.repository.ts";
import { createUnitOfWork } from "../../feed/unit-of-work.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";
import { newDeviceAsking } from "../../testing/typed-pairing.ts";
import { keyStateRowsOfKeys } from "../accounts/key-state.repository.ts";
import { createKeyHandover } from "../keys/key-handover.ts";
import { createKeysRepository } from "../keys/keys.repository.ts";
import { createPairingRepository } from "./pairing.repository.ts";
import { pairingSteps } from "./pairing-step.ts";
import { createPairingTypedService } from "./pairing-typed.service.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
});
afterAll(() => server.close());

/** The server's database, whose transactions run their work and then, with `refuse`, fail instead of committing. */
function database(refuse: boolean, state: { open: boolean }): Db {
  const db: Db = Object.create(server.db);
  db.transaction = () => {
    const builder = server.db.transaction();
    const wrapped: typeof builder = Object.create(builder);
    wrapped.execute = async (work) => {
      state.open = true;
      try {
        return await builder.execute(async (trx) => {
          const value = await work(trx);
          if (refuse) throw new Error("commit refused");
          return value;
        });
      } finally {
        state.open = false;
      }
    };
    return wrapped;
  };
  return db;
}

/** The notices heard, each with whether its transaction was still open then. */
function listen() {
  const heard: Array<{ requestId: string; open: boolean }> = [];
  const state = { open: false };
  server.bus.subscribe("pairing.decided", (notice) => heard.push({ requestId: notice.requestId, open: state.open }));
  const unitOfWork = (refuse: boolean) =>
    createUnitOfWork({
      db: database(refuse, state),
      bus: server.bus,
      clock: server.clock,
      changes: createChangesRepository(server.db, feedRows),
    });
  return { heard, unitOfWork };
}

const statusOf = async (id: string) =>
  (await server.db.selectFrom("pairing_requests").select("status").where("id", "=", id).executeTakeFirstOrThrow()).status;

describe("pairing.decided", () => {
  it("is heard once a request's answer is committed, and not at all when its transaction fails", async () => {
    const { heard, unitOfWork } = listen();
    const user = await new Device(server.url).register("Ines", "ines@example.com");
    const created = await new Device(server.url).post(PAIRING_API.requests, {});
    const request = pairingRequestCreatedSchema.parse(created.body);
    const repo = createPairingRepository(server.db);
    const deny = (refuse: boolean) =>
      pairingSteps(unitOfWork(refuse), repo)(request.request_id, (rows) =>
        rows.decide(request.request_id, "denied", { userId: user.id, sessionId: "s" }, server.clock.now()),
      );

    await expect(deny(true)).rejects.toThrow("commit refused");
    expect(await statusOf(request.request_id)).toBe("pending");
    expect(heard).toEqual([]);

    expect(await deny(false)).toBe(true);
    expect(await statusOf(request.request_id)).toBe("denied");
    // On PostgreSQL the bus is Redis, whose delivery comes later; it is ordered, so the refused step would show first.
    await expect.poll(() => heard).toEqual([{ requestId: request.request_id, open: false }]);
  });

  it("is heard once a typed code's step is committed, and not at all when its transaction fails", async () => {
    const { heard, unitOfWork } = listen();
    const laptop = await newDeviceAsking(server);
    const id = laptop.shown.request_id;
    const typed = (refuse: boolean) => {
      const keys = createKeysRepository(server.db, keyStateRowsOfKeys);
      const keyHandover = createKeyHandover({ clock: server.clock, unitOfWork: unitOfWork(refuse), keys });
      const pairingRequests = createPairingRepository(server.db);
      return createPairingTypedService({ pairingRequests, keys, keyHandover, clock: server.clock, unitOfWork: unitOfWork(refuse) });
    };

    await expect(typed(true).deny(null, id, { secret: laptop.shown.secret })).rejects.toThrow("commit refused");
    expect(await statusOf(id)).toBe("pending");
    expect(heard).toEqual([]);

    expect((await typed(false).deny(null, id, { secret: laptop.shown.secret })).status).toBe("denied");
    await expect.poll(() => heard).toEqual([{ requestId: id, open: false }]);
  });
});
