/**
 * Property-based fuzzing of everything a client can send: every HTTP route (odd paths, queries, bodies,
 * content types and tus headers) and both WebSockets (any JSON, non-JSON, binary). Whatever arrives, the
 * server answers below 500, keeps running, and another account's data stays exactly as it was.
 */
import { API, DEVICES_API, DISCUSSIONS_API, formatStoredDate, formatStoredTime, KEYS_API, PAIRING_API, PUSH_API } from "@daysync/shared";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { anyBody, anyText, CONTENT_TYPES, encoded, headerSafe } from "../testing/fuzz-arbitraries.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../testing/test-server.ts";
import { b64, metadata, uploadFile } from "../testing/tus-client.ts";
import { snapshotOf } from "../testing/user-snapshot.ts";

let server: TestServer;
let attacker: Device;
let victim: { id: string; device: Device; uploadId: string; dayId: string; messageIds: string[]; discussionId: string };

beforeAll(async () => {
  // The limits would only turn most generated requests into 429s; they have tests of their own.
  server = await startTestServer({
    SEND_RATE_LIMIT_MAX: "100000",
    LOGIN_RATE_LIMIT_MAX: "100000",
    DISCUSSION_JOIN_RATE_LIMIT_MAX: "100000",
    DISCUSSION_JOIN_ADDRESS_RATE_LIMIT_MAX: "100000",
  });
  const device = new Device(server.url);
  const user = await device.register("Victim", "victim@example.com");
  const sent = [];
  for (const text of ["my password is hunter2", "second", "third"]) {
    sent.push(
      (await device.post<{ message: { id: string }; day: { id: string } }>(API.messages, textMessage(text, server.clock.now()))).body,
    );
  }
  const uploadId = await uploadFile(device, Buffer.from("the victim's file"), metadata("notes.txt", server.clock.now()).header);
  const push = await device.post(PUSH_API.subscriptions, {
    endpoint: "http://127.0.0.1:9/push/victim",
    keys: {
      p256dh: "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
      auth: "tBHItJI5svbpez7KI4CCXg",
    },
  });
  if (push.status !== 201) throw new Error(`seed push subscription failed: ${push.status}`);
  // Its id is known to the attacker, its public ID (which would let anyone join) is not.
  const discussion = await device.post<{ discussion: { id: string } }>(DISCUSSIONS_API.list, { title: "Private", display_name: "V" });
  if (discussion.status !== 201) throw new Error(`seed discussion failed: ${discussion.status}`);
  victim = {
    id: user.id,
    device,
    uploadId,
    dayId: sent[0]?.day.id ?? "",
    messageIds: sent.map((s) => s.message.id),
    discussionId: discussion.body.discussion.id,
  };

  attacker = new Device(server.url);
  await attacker.register("Mallory", "mallory@example.com");
  await attacker.post(API.messages, textMessage("mine", server.clock.now()));
});
afterAll(() => server.close());

/** The victim's ids: generated requests name them among other strings. */
const victimIds = () => [victim.id, victim.uploadId, victim.dayId, victim.discussionId, ...victim.messageIds];

/** tus headers, right and wrong, including metadata with wrong keys, bad base64 and control characters. */
function tusHeaders() {
  const number = fc.oneof(fc.nat(), fc.integer({ min: -10, max: -1 }), fc.constantFrom("99999999999999999999", "1.5", "abc", "", " 1"));
  const metaValue = fc.oneof(anyText(victimIds()), {
    arbitrary: fc.constantFrom(
      "a\r\nb.txt",
      "\u0007bell",
      "x\u0000y",
      "a\u202eexe.txt",
      "ok.txt",
      "11/24/2026",
      "1:05 PM",
      victim.messageIds[0] ?? "",
    ),
    weight: 3,
  });
  const metaKey = fc.constantFrom("filename", "filetype", "message_id", "date", "time", "user_id", "", "a b", "ä");
  const at = new Date(server.clock.now());
  const valid = {
    filename: "a.txt",
    filetype: "text/plain",
    message_id: crypto.randomUUID(),
    date: formatStoredDate(at),
    time: formatStoredTime(at),
  };
  const encode = (pairs: Array<[string, string]>) => pairs.map(([k, v]) => `${k} ${b64(v)}`).join(",");
  const metadata = fc.oneof(
    // Valid metadata with one or two fields changed, so the generated value reaches what runs after validation.
    {
      arbitrary: fc
        .record({ fields: fc.array(fc.tuple(metaKey, metaValue), { minLength: 1, maxLength: 2 }), id: fc.uuid() })
        .map(({ fields, id }) => encode(Object.entries({ ...valid, message_id: id, ...Object.fromEntries(fields) }))),
      weight: 4,
    },
    fc.array(fc.tuple(metaKey, metaValue), { maxLength: 7 }).map(encode),
    anyText(victimIds()),
  );
  const mostly = <T, U>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<U>) =>
    fc.oneof({ arbitrary: usual, weight: 4 }, { arbitrary: odd, weight: 1 });
  const usual = fc.record({
    "tus-resumable": mostly(fc.constant("1.0.0"), fc.constantFrom("0.2.2", "", "1.0.0, 1.0.0")),
    "upload-length": mostly(fc.nat({ max: 64 }), number).map(String),
    "upload-offset": mostly(fc.nat({ max: 64 }), number).map(String),
    "upload-metadata": metadata,
  });
  const odd = fc.record(
    {
      "upload-defer-length": fc.constantFrom("1", "0", "x"),
      "upload-concat": fc.constantFrom("partial", "final;/api/uploads/x", "bogus"),
      range: fc.constantFrom("bytes=0-1", "bytes=5-1", "bytes=-99999999999", "lines=1-2", "bytes=0-0,2-3"),
      "x-http-method-override": fc.constantFrom("PATCH", "DELETE", "GET"),
    },
    { requiredKeys: [] },
  );
  return fc.tuple(usual, mostly(fc.constant({}), odd)).map(([a, b]) => ({ ...a, ...b }));
}

/** Every route of the API with the parts a client controls; weight: how often it is drawn. */
const TUS_METHODS = ["GET", "HEAD", "POST", "PATCH", "DELETE", "OPTIONS", "PUT"];
const ROUTES: Array<{ methods: string[]; path: (segment: string) => string; weight?: number; anonymous?: boolean }> = [
  { methods: ["GET"], path: () => "/api/health" },
  { methods: ["POST"], path: () => API.register },
  { methods: ["POST"], path: () => API.login },
  // Signed in, it would end the session the other requests use.
  { methods: ["POST"], path: () => API.logout, anonymous: true },
  { methods: ["GET"], path: () => API.session },
  { methods: ["GET"], path: () => API.me },
  { methods: ["PUT"], path: () => API.retention },
  { methods: ["GET"], path: () => API.days },
  { methods: ["GET", "DELETE"], path: (s) => `/api/days/${s}/messages` },
  { methods: ["GET", "DELETE"], path: (s) => `/api/messages/${s}` },
  { methods: ["POST"], path: () => API.messages, weight: 4 },
  { methods: ["GET"], path: (s) => `${API.messages}?before=${s}&limit=${s}` },
  { methods: ["GET"], path: (s) => `${API.search}?q=${s}` },
  { methods: ["GET"], path: (s) => `${API.search}?q=a&q=${s}` },
  { methods: ["GET"], path: () => DEVICES_API.list },
  { methods: ["DELETE", "PATCH"], path: (s) => `/api/devices/${s}` },
  { methods: ["POST"], path: () => PAIRING_API.requests },
  { methods: ["GET"], path: (s) => `/api/pair/requests/${s}` },
  { methods: ["POST"], path: (s) => `/api/pair/requests/${s}/approve` },
  { methods: ["POST"], path: (s) => `/api/pair/requests/${s}/deny` },
  { methods: ["POST"], path: () => PAIRING_API.exchange },
  { methods: ["POST"], path: () => PAIRING_API.offers },
  { methods: ["POST"], path: (s) => `/api/pair/offers/${s}/approve` },
  { methods: ["POST"], path: (s) => `/api/pair/offers/${s}/deny` },
  { methods: ["POST"], path: (s) => `/api/pair/join/${s}` },
  { methods: ["GET", "POST"], path: () => KEYS_API.requests },
  ...(["answer", "reveal", "approve", "deny"] as const).map((step) => ({
    methods: ["POST" as const],
    path: (s: string) => `/api/keys/requests/${s}/${step}`,
  })),
  { methods: ["GET", "PUT", "DELETE"], path: () => KEYS_API.recovery },
  { methods: ["POST"], path: () => KEYS_API.recoveryUnlock },
  { methods: ["GET", "POST"], path: () => DISCUSSIONS_API.list, weight: 2 },
  { methods: ["GET", "PATCH", "DELETE"], path: (s) => `/api/discussions/${s}`, weight: 2 },
  { methods: ["POST"], path: (s) => `/api/discussions/join/${s}`, weight: 2 },
  { methods: ["POST"], path: (s) => `/api/discussions/${s}/leave` },
  { methods: ["POST"], path: (s) => `/api/discussions/${s}/extend` },
  { methods: ["POST"], path: (s) => `/api/discussions/${s}/read` },
  { methods: ["DELETE"], path: (s) => `/api/discussions/${victim.discussionId}/members/${s}` },
  { methods: ["GET"], path: () => PUSH_API.publicKey },
  { methods: ["POST", "DELETE"], path: () => PUSH_API.subscriptions, weight: 2 },
  { methods: ["GET"], path: () => API.uploadLimit },
  { methods: ["GET"], path: () => API.storage },
  { methods: ["POST"], path: () => API.uploads, weight: 8 },
  { methods: TUS_METHODS, path: () => API.uploads },
  { methods: TUS_METHODS, path: (s) => `${API.uploads}/${s}`, weight: 4 },
  { methods: ["GET", "HEAD"], path: (s) => `/api/files/${s}`, weight: 2 },
  { methods: ["GET", "POST"], path: (s) => `/api/discussions/${s}/messages` },
  { methods: ["DELETE"], path: (s) => `/api/discussions/${s}/messages/${s}` },
  { methods: ["GET"], path: (s) => `/api/${s}` },
];

function anyRequest() {
  return fc
    .record({
      route: fc.oneof(...ROUTES.map((r) => ({ arbitrary: fc.constant(r), weight: r.weight ?? 1 }))),
      methodIndex: fc.nat(),
      segment: anyText(victimIds()).map(encoded),
      body: fc.oneof({ arbitrary: fc.constant(undefined), weight: 1 }, { arbitrary: anyBody(victimIds()), weight: 2 }),
      contentType: fc.oneof({ arbitrary: fc.constant("application/json"), weight: 3 }, fc.constantFrom(...CONTENT_TYPES)),
      tus: tusHeaders(),
      // Mostly what a real client sends, so generated values get past the session, origin and content-type checks.
      signedIn: fc.oneof({ arbitrary: fc.constant(true), weight: 4 }, { arbitrary: fc.constant(false), weight: 1 }),
      origin: fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 6 },
        { arbitrary: fc.constantFrom("null", "https://evil.example", ""), weight: 1 },
      ),
    })
    .map(({ route, methodIndex, segment, body, contentType, tus, signedIn, origin }) => {
      const method = route.methods[methodIndex % route.methods.length] ?? "GET";
      const headers: Record<string, string> = Object.fromEntries(Object.entries(tus).map(([k, v]) => [k, headerSafe(String(v))]));
      if (contentType && body !== undefined) headers["content-type"] = contentType;
      if (origin !== undefined) headers.origin = origin;
      if (signedIn && !route.anonymous && attacker.cookie) headers.cookie = attacker.cookie;
      return { method, path: route.path(segment), headers, body: method === "GET" || method === "HEAD" ? undefined : body };
    });
}

describe("fuzzing every HTTP route", () => {
  // Thousands of requests: it takes 10 to 20 s alone and more beside the other suites on a shared machine.
  it("answers every generated request below 500, stays up, and leaves another account untouched", { timeout: 120_000 }, async () => {
    const before = await snapshotOf(server, victim.id, victim.uploadId);
    await fc.assert(
      fc.asyncProperty(anyRequest(), fc.uint8Array({ maxLength: 64 }), async (req, bytes) => {
        const send = async (method: string, path: string, init: { headers?: Record<string, string>; body?: string | Uint8Array }) => {
          const res = await fetch(server.url + path, { method, ...init });
          await res.arrayBuffer();
          if (res.status >= 500) throw new Error(`${method} ${path.slice(0, 200)} answered ${res.status}`);
          return res;
        };
        const res = await send(req.method, req.path, req);
        // An upload the generated request created is taken further: its bytes, then every way to read it back.
        const location = res.headers.get("location");
        if (res.status !== 201 || !location) return;
        const tus = { "tus-resumable": "1.0.0", cookie: req.headers.cookie ?? "" };
        await send("PATCH", location, {
          headers: { ...tus, "upload-offset": "0", "content-type": "application/offset+octet-stream" },
          body: bytes,
        });
        for (const method of ["HEAD", "GET"]) {
          await send(method, location, { headers: tus });
          await send(method, API.file(location.split("/").pop() ?? ""), { headers: tus });
        }
      }),
      { numRuns: 2500 },
    );
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    expect(await snapshotOf(server, victim.id, victim.uploadId)).toEqual(before);
  });
});

/** A frame: any JSON value, our message shapes with wrong values, text that is not JSON, or bytes. */
function anyFrame() {
  const value = fc.oneof(fc.jsonValue(), anyText(victimIds()));
  return fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc
      .record({ type: fc.constantFrom("resume", "ping", "wait", "event", ""), since: value }, { requiredKeys: ["type"] })
      .map((v) => JSON.stringify(v)),
    fc.record({ type: fc.constant("wait"), request_id: value, secret: value }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
    fc.constantFrom("null", "[]", "1", '"x"', "{}", '{"type":null}', '{"type":"resume","since":-1}', '{"type":"resume","since":1e308}'),
    fc.string({ unit: "binary", maxLength: 200 }),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    fc.constant(Buffer.from([0xff, 0xfe, 0xc3, 0x28])),
  );
}

/** Opens a socket, sends the frames, and closes it once the server has closed it or had time to answer. */
async function throwFrames(path: string, frames: Array<string | Buffer>, headers: Record<string, string>): Promise<void> {
  const socket = new WebSocket(server.url.replace("http", "ws") + path, { headers });
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const opened = await new Promise<boolean>((resolve) => {
    socket.once("open", () => resolve(true));
    socket.once("unexpected-response", () => resolve(false));
    socket.once("error", () => resolve(false));
  });
  if (!opened) return;
  for (const frame of frames) {
    if (socket.readyState !== WebSocket.OPEN) break;
    socket.send(frame, { binary: typeof frame !== "string" });
  }
  await Promise.race([closed, new Promise((r) => setTimeout(r, 20))]);
  if (socket.readyState !== WebSocket.CLOSED) {
    socket.close();
    await Promise.race([closed, new Promise((r) => setTimeout(r, 500))]);
    socket.terminate();
  }
}

describe("fuzzing both WebSockets", () => {
  // Thousands of requests: it takes 10 to 20 s alone and more beside the other suites on a shared machine.
  it("survives any frames on /api/live and /api/pair/live and leaves another account untouched", { timeout: 120_000 }, async () => {
    const before = await snapshotOf(server, victim.id, victim.uploadId);
    const watcher = await victim.device.live(0);
    await watcher.waitFor((received) => received.some((m) => m.type === "ready"));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(API.live, PAIRING_API.live),
        fc.array(anyFrame(), { minLength: 1, maxLength: 5 }),
        async (path, frames) => {
          await throwFrames(path, frames, attacker.cookie ? { cookie: attacker.cookie } : {});
        },
      ),
      { numRuns: 400 },
    );
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    // The victim's own live connection was never disturbed and still delivers.
    await victim.device.post(API.messages, textMessage("still here", server.clock.now()));
    await watcher.waitFor((received) =>
      received.some((m) => m.type === "event" && m.event.kind === "message.created" && m.event.message.content === "still here"),
    );
    expect(watcher.closeCode).toBeUndefined();
    watcher.close();
    // Only the victim's own new message changed their data.
    const after = await snapshotOf(server, victim.id, victim.uploadId);
    expect(after.messages.filter((m) => m.content !== "still here")).toEqual(before.messages);
    const unchanged = ({ user, days, messages, events, ...rest }: typeof before) => ({ ...rest, user: { ...user, seq: 0 } });
    expect(unchanged(after)).toEqual(unchanged(before));
  });
});
