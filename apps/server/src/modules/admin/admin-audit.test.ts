/**
 * Issue 42, point 9: the admin audit is numbered by the database, so parallel admin actions never share a number
 * (on PostgreSQL, reading max(seq) + 1 gave 7 duplicates in 30); and an admin who deletes their own account leaves
 * that deletion in the log under their name, their earlier entries still saying who did them.
 */
import { ADMIN_API, type AuditEntry, SETTINGS_API } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { person } from "../../testing/discussion-api.ts";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";

let server: TestServer;
let admin: Device;
beforeAll(async () => {
  server = await startTestServer({ LOGIN_RATE_LIMIT_MAX: "1000" });
  admin = new Device(server.url);
  // The first account of a new installation is its admin.
  expect((await admin.register("Ada Admin", "ada.admin@example.com")).role).toBe("admin");
});
afterAll(() => server.close());

const auditLog = async (device: Device) => (await device.get<{ entries: AuditEntry[] }>(ADMIN_API.audit)).body.entries;

/** Another admin of the installation, made as `npm run admin -- role set` would. */
async function anotherAdmin(name: string) {
  const made = await person(server, name);
  await server.db.updateTable("users").set({ role: "admin" }).where("id", "=", made.user.id).execute();
  return made;
}

describe("the audit log's numbers", () => {
  it("30 parallel admin actions get 30 different numbers, from the database", async () => {
    const { user } = await person(server, "Pam");
    const answers = await Promise.all(Array.from({ length: 30 }, () => admin.post(ADMIN_API.passwordReset(user.id))));
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
    const rows = await server.db.selectFrom("admin_audit").select(["seq", "target_id"]).execute();
    const seqs = rows.map((r) => Number(r.seq));
    expect(rows.filter((r) => r.target_id === user.id)).toHaveLength(30);
    expect(new Set(seqs).size).toBe(seqs.length);
    // The database itself refuses a number twice.
    const taken = seqs[0] ?? 1;
    const twice = server.db
      .insertInto("admin_audit")
      .values({
        id: crypto.randomUUID(),
        seq: taken,
        at: 0,
        actor_id: null,
        actor_label: "x",
        action: "x",
        target_id: null,
        target_label: "x",
        detail: "",
      })
      .execute();
    await expect(twice).rejects.toThrow(/unique|UNIQUE/);
  });
});

describe("an admin who deletes their own account", () => {
  it("is logged under their name, and their earlier entries keep saying who did them", async () => {
    const leaving = await anotherAdmin("Lea");
    const { user: bob } = await person(server, "Bob");
    expect((await leaving.device.request("PUT", ADMIN_API.premium(bob.id), { until: null })).status).toBe(200);

    const deleted = await leaving.device.request("DELETE", SETTINGS_API.account, { email: leaving.email, password: "correct horse" });
    expect(deleted.status).toBe(204);

    const entries = await auditLog(admin);
    const own = `${leaving.email} (deleted account)`;
    expect(entries.find((e) => e.action === "account.deleted" && e.actor === own)).toMatchObject({
      actor: own,
      target: "a deleted account",
    });
    expect(entries.find((e) => e.action === "premium.granted" && e.target === bob.email)).toMatchObject({ actor: own });
  });
});
