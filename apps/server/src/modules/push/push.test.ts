import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { API, DEVICES_API, type DevicesResponse, formatStoredDate, formatStoredTime, PUSH_API, pushPayloadSchema } from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import {
  decryptPush,
  newSubscriptionKeys,
  type PushServiceDouble,
  startPushServiceDouble,
  verifyVapid,
} from "../../testing/push-service-double.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../../testing/test-server.ts";
import { isPushServiceUrl } from "./push.service.ts";

let server: TestServer;
let pushService: PushServiceDouble;
beforeAll(async () => {
  server = await startTestServer();
  pushService = await startPushServiceDouble();
});
afterAll(async () => {
  await pushService.close();
  await server.close();
});

async function subscribe(device: Device, endpointPath: string) {
  const keys = newSubscriptionKeys();
  const res = await device.post(PUSH_API.subscriptions, {
    endpoint: `${pushService.url}${endpointPath}`,
    expirationTime: null,
    keys: keys.json,
  });
  expect(res.status).toBe(201);
  return keys;
}

const subscriptionCount = async (endpointPath: string) =>
  (await server.db.selectFrom("push_subscriptions").select("id").where("endpoint", "=", `${pushService.url}${endpointPath}`).execute())
    .length;

async function eventually(check: () => Promise<boolean>, timeoutMs = 3000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("web push", () => {
  it("keeps one VAPID key pair in the database, the same for every process that shares it", async () => {
    const other = await startTestServer({ DATABASE_URL: server.databaseUrl });
    try {
      expect(other.dataDir).not.toBe(server.dataDir);
      const here = new Device(server.url);
      await here.register("Key", "key@example.com");
      const there = new Device(other.url);
      await there.login("key@example.com");
      const key = (await here.get<{ public_key: string }>(PUSH_API.publicKey)).body.public_key;
      expect(Buffer.from(key, "base64url")).toHaveLength(65);
      expect((await there.get<{ public_key: string }>(PUSH_API.publicKey)).body.public_key).toBe(key);
      const stored = await server.db.selectFrom("server_keys").select("value").where("name", "=", "vapid").executeTakeFirstOrThrow();
      expect((JSON.parse(stored.value) as { publicKey: string }).publicKey).toBe(key);
    } finally {
      await other.close();
    }
  });

  it("takes over the key pair of an older installation's DATA_DIR/vapid.json, so its subscriptions keep working", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "daysync-vapid-"));
    const old = webpush.generateVAPIDKeys();
    writeFileSync(path.join(dataDir, "vapid.json"), JSON.stringify(old), { mode: 0o600 });
    const upgraded = await startTestServer({}, { dataDir });
    try {
      const d = new Device(upgraded.url);
      await d.register("Old", "old-keys@example.com");
      expect((await d.get<{ public_key: string }>(PUSH_API.publicKey)).body.public_key).toBe(old.publicKey);
    } finally {
      await upgraded.close();
    }
  });

  it("gives the public key to signed-in devices only", async () => {
    expect((await new Device(server.url).get(PUSH_API.publicKey)).status).toBe(401);
    const d = new Device(server.url);
    await d.register("Key", "key-only@example.com");
    expect((await d.get<{ public_key: string }>(PUSH_API.publicKey)).status).toBe(200);
  });

  it("notifies the other devices of a file that finished uploading too", async () => {
    const phone = new Device(server.url);
    await phone.register("Fin", "fin-push@example.com");
    const laptop = new Device(server.url);
    await laptop.login("fin-push@example.com");
    await subscribe(phone, "/push/fin-phone");
    const laptopKeys = await subscribe(laptop, "/push/fin-laptop");
    const before = pushService.received.length;

    const at = new Date(server.clock.now());
    const meta = {
      filename: "scan.pdf",
      filetype: "application/pdf",
      message_id: crypto.randomUUID(),
      date: formatStoredDate(at),
      time: formatStoredTime(at),
    };
    const header = Object.entries(meta)
      .map(([k, v]) => `${k} ${Buffer.from(v).toString("base64")}`)
      .join(",");
    const tus = { "tus-resumable": "1.0.0" };
    const created = await phone.raw("POST", API.uploads, { headers: { ...tus, "upload-length": "5", "upload-metadata": header } });
    const location = created.headers.get("location") ?? "";
    const done = await phone.raw("PATCH", location, {
      headers: { ...tus, "upload-offset": "0", "content-type": "application/offset+octet-stream" },
      body: new TextEncoder().encode("%PDF-"),
    });
    expect(done.status).toBe(204);

    await pushService.waitFor(before + 1);
    await new Promise((r) => setTimeout(r, 200));
    const requests = pushService.received.slice(before);
    expect(requests.map((r) => r.path)).toEqual(["/push/fin-laptop"]);
    const push = requests[0];
    if (!push) throw new Error("no push");
    const payload = pushPayloadSchema.parse(JSON.parse(decryptPush(push.body, laptopKeys).toString("utf8")));
    expect(payload).toMatchObject({ kind: "message.created", message_id: meta.message_id });
  });

  it("sends an encrypted notification of a new message to the user's other devices, never the sender's", async () => {
    const phone = new Device(server.url);
    await phone.register("Noa", "noa@example.com");
    const laptop = new Device(server.url);
    await laptop.login("noa@example.com");
    const stranger = new Device(server.url);
    await stranger.register("Sam", "sam-push@example.com");
    await subscribe(phone, "/push/noa-phone");
    const laptopKeys = await subscribe(laptop, "/push/noa-laptop");
    await subscribe(stranger, "/push/sam");
    const { public_key } = (await phone.get<{ public_key: string }>(PUSH_API.publicKey)).body;

    const before = pushService.received.length;
    const sent = await phone.post<{ message: { id: string; date_message_id: string } }>(
      API.messages,
      textMessage("copied on the phone", server.clock.now()),
    );
    expect(sent.status).toBe(201);
    await pushService.waitFor(before + 1);
    await new Promise((r) => setTimeout(r, 300));
    const requests = pushService.received.slice(before);
    expect(requests.map((r) => r.path)).toEqual(["/push/noa-laptop"]);

    const push = requests[0];
    if (!push) throw new Error("no push");
    expect(push.headers["content-encoding"]).toBe("aes128gcm");
    expect(Number(push.headers.ttl)).toBeGreaterThan(0);
    const vapid = verifyVapid(String(push.headers.authorization), pushService.url);
    expect(vapid.publicKey).toBe(public_key);
    expect(vapid.claims.sub).toMatch(/^mailto:/);

    const payload = pushPayloadSchema.parse(JSON.parse(decryptPush(push.body, laptopKeys).toString("utf8")));
    expect(payload).toEqual({
      kind: "message.created",
      title: "New message",
      body: "copied on the phone",
      day_id: sent.body.message.date_message_id,
      message_id: sent.body.message.id,
      message_type: "text",
      url: `/dashboard/days/${sent.body.message.date_message_id}`,
    });

    // A retried send stores nothing new and notifies no one again.
    const again = pushService.received.length;
    await phone.post(API.messages, { ...textMessage("x", server.clock.now()), id: sent.body.message.id });
    await new Promise((r) => setTimeout(r, 200));
    expect(pushService.received.length).toBe(again);
  });

  it("carries a sealed message's sealed preview and what binds it, and no text", async () => {
    const phone = new Device(server.url);
    const user = await phone.register("Ima", "ima-sealed@example.com");
    const laptop = new Device(server.url);
    await laptop.login("ima-sealed@example.com");
    const laptopKeys = await subscribe(laptop, "/push/ima-laptop");
    await server.db.updateTable("users").set({ key_epoch: 1 }).where("id", "=", user.id).execute();

    const before = pushService.received.length;
    const { id, date, time } = textMessage("", server.clock.now());
    const sealedValue = (n: number) => `v1.1.${"Q".repeat(n)}`;
    const sent = await phone.post<{ message: { date_message_id: string; device: { id: string } } }>(API.messages, {
      id,
      date,
      time,
      epoch: 1,
      content: sealedValue(60),
      preview: sealedValue(50),
    });
    expect(sent.status).toBe(201);
    await pushService.waitFor(before + 1);
    const push = pushService.received[before];
    if (!push) throw new Error("no push");
    expect(JSON.parse(decryptPush(push.body, laptopKeys).toString("utf8"))).toEqual({
      kind: "message.created",
      title: "New message",
      body: "",
      day_id: sent.body.message.date_message_id,
      message_id: id,
      message_type: "text",
      url: `/dashboard/days/${sent.body.message.date_message_id}`,
      sealed: { user_id: user.id, epoch: 1, preview: sealedValue(50), date, time, device_id: sent.body.message.device.id },
    });
  });

  it("lets the push service keep a notification no longer than its message lives", async () => {
    const phone = new Device(server.url);
    await phone.register("Tia", "tia@example.com");
    const laptop = new Device(server.url);
    await laptop.login("tia@example.com");
    await subscribe(laptop, "/push/tia-laptop");
    const before = pushService.received.length;
    await phone.post(API.messages, textMessage("gone in 15 minutes", server.clock.now()));
    await pushService.waitFor(before + 1);
    const ttl = Number(pushService.received[before]?.headers.ttl);
    // Free plan: 15 minutes, not the hour a Premium message gets.
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(15 * 60);
  });

  it("removes a subscription the push service reports gone (410, 404)", async () => {
    const phone = new Device(server.url);
    await phone.register("Gil", "gil@example.com");
    const laptop = new Device(server.url);
    await laptop.login("gil@example.com");
    const tablet = new Device(server.url);
    await tablet.login("gil@example.com");
    await subscribe(laptop, "/push/gil-laptop");
    await subscribe(tablet, "/push/gil-tablet");
    pushService.answer("/push/gil-laptop", 410);
    pushService.answer("/push/gil-tablet", 404);
    await phone.post(API.messages, textMessage("anyone there?", server.clock.now()));
    await eventually(
      async () => (await subscriptionCount("/push/gil-laptop")) === 0 && (await subscriptionCount("/push/gil-tablet")) === 0,
    );
  });

  it("keeps a subscription on a passing failure (500)", async () => {
    const phone = new Device(server.url);
    await phone.register("Ora", "ora@example.com");
    const laptop = new Device(server.url);
    await laptop.login("ora@example.com");
    await subscribe(laptop, "/push/ora-laptop");
    pushService.answer("/push/ora-laptop", 500);
    const before = pushService.received.length;
    await phone.post(API.messages, textMessage("later", server.clock.now()));
    await pushService.waitFor(before + 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(await subscriptionCount("/push/ora-laptop")).toBe(1);
  });

  it("forgets a subscription on unsubscribe and when its device is signed out", async () => {
    const a = new Device(server.url);
    await a.register("Uma", "uma@example.com");
    const b = new Device(server.url);
    await b.login("uma@example.com");
    await subscribe(a, "/push/uma-a");
    await subscribe(b, "/push/uma-b");
    const gone = await a.request("DELETE", PUSH_API.subscriptions, { endpoint: `${pushService.url}/push/uma-a` });
    expect(gone.status).toBe(204);
    expect(await subscriptionCount("/push/uma-a")).toBe(0);

    const bId = (await b.get<DevicesResponse>(DEVICES_API.list)).body.devices.find((d) => d.current)?.id ?? "";
    await a.request("DELETE", DEVICES_API.one(bId));
    expect(await subscriptionCount("/push/uma-b")).toBe(0);
  });

  it("never hands a user's subscription to another user; the same user's new sign-in takes it over", async () => {
    const phone = new Device(server.url);
    await phone.register("Ada", "ada-push@example.com");
    await subscribe(phone, "/push/ada");
    const row = () =>
      server.db
        .selectFrom("push_subscriptions")
        .select(["user_id", "session_id", "p256dh"])
        .where("endpoint", "=", `${pushService.url}/push/ada`)
        .executeTakeFirstOrThrow();
    const before = await row();

    const thief = new Device(server.url);
    await thief.register("Tom", "tom-push@example.com");
    const stolen = await thief.post(PUSH_API.subscriptions, {
      endpoint: `${pushService.url}/push/ada`,
      keys: newSubscriptionKeys().json,
    });
    expect(stolen.status).toBe(409);
    expect(stolen.body).toEqual({ error: { code: "conflict", message: "This push subscription belongs to another account." } });
    expect(await row()).toEqual(before);

    const again = new Device(server.url);
    await again.login("ada-push@example.com");
    await subscribe(again, "/push/ada");
    expect((await row()).session_id).not.toBe(before.session_id);
    expect((await row()).user_id).toBe(before.user_id);
  });

  it("validates subscriptions and accepts only known push services outside tests", async () => {
    const d = new Device(server.url);
    await d.register("Val", "val@example.com");
    const res = await d.post(PUSH_API.subscriptions, { endpoint: "not a url", keys: { p256dh: "x", auth: "y" } });
    expect(res.status).toBe(400);
    expect((await new Device(server.url).post(PUSH_API.subscriptions, {})).status).toBe(401);
    expect(isPushServiceUrl("https://fcm.googleapis.com/fcm/send/abc")).toBe(true);
    expect(isPushServiceUrl("https://updates.push.services.mozilla.com/wpush/v2/abc")).toBe(true);
    expect(isPushServiceUrl("https://web.push.apple.com/abc")).toBe(true);
    expect(isPushServiceUrl("https://wns2-par02p.notify.windows.com/w/?token=abc")).toBe(true);
    expect(isPushServiceUrl("http://fcm.googleapis.com/fcm/send/abc")).toBe(false);
    expect(isPushServiceUrl("https://169.254.169.254/latest")).toBe(false);
    expect(isPushServiceUrl("https://evilfcm.googleapis.com.example.com/")).toBe(false);
  });
});
