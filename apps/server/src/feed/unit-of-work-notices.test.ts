/** A bus notice asked for in a unit of work is published after the commit, and never for work that failed. */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { feedRows } from "../app/repositories.ts";
import { Device, startTestServer, type TestServer } from "../testing/test-server.ts";
import { createChangesRepository } from "./changes.repository.ts";
import { createUnitOfWork } from "./unit-of-work.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("a unit of work's notices", () => {
  it("go on the bus once the work commits, and not at all when it fails", async () => {
    const user = await new Device(server.url).register("Noa", "noa@example.com");
    const unitOfWork = createUnitOfWork({
      db: server.db,
      bus: server.bus,
      clock: server.clock,
      changes: createChangesRepository(server.db, feedRows),
    });
    const heard: string[] = [];
    server.bus.subscribe("push.changed", (notice) => heard.push(notice.userId));

    const failing = unitOfWork.forUser(user.id, async (work) => {
      work.notify("push.changed", { userId: "from-failed-work" });
      throw new Error("refused");
    });
    await expect(failing).rejects.toThrow("refused");

    await unitOfWork.forUser(user.id, async (work) => {
      work.notify("push.changed", { userId: user.id });
      // Not before the commit: another process could read the rows it is told of before they are there.
      expect(heard).toEqual([]);
    });
    await vi.waitFor(() => expect(heard).toEqual([user.id]));
  });
});
