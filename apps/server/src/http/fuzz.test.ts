/**
 * Property-based fuzzing of everything a client can send: every HTTP route (odd paths, queries, bodies,
 * content types and tus headers) and both WebSockets (any JSON, non-JSON, binary). Whatever arrives, the
 * server answers below 500, keeps running, and another account's data stays exactly as it was.
 */
import {
  ADMIN_API,
  API,
  DEVICES_API,
  DISCUSSIONS_API,
  EMAIL_API,
  formatStoredDate,
  formatStoredTime,
  IDENTITY_API,
  KEYS_API,
  PAIRING_API,
  PAYMENTS_API,
  PUSH_API,
  RESET_PASSWORD_API,
  SETTINGS_API,
} from "@daysync/shared";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { freePort } from "../testing/free-port.ts";
import { type FakeGithub, startFakeGithub } from "../testing/github-fake.ts";
import { startTestProvider, type TestProvider } from "../testing/oidc-test-provider.ts";
import { type SmtpMailbox, startSmtpMailbox } from "../testing/smtp-mailbox.ts";
import { StripeFake } from "../testing/stripe-fake.ts";
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

/** Strings a client might put anywhere: ids that exist (the victim's among them), odd Unicode, huge ones. */
function anyText() {
  return fc.oneof(
    fc.constantFrom(
      victim.id,
      victim.uploadId,
      victim.dayId,
      victim.discussionId,
      ...victim.messageIds,
      "",
      " ",
      "null",
      "..",
      "../../etc/passwd",
      "%00",
      "\u0000",
      "a\u0000b",
      "0",
      "-1",
      "1e309",
      "9".repeat(40),
    ),
    fc.uuid(),
    fc.string({ unit: "grapheme", maxLength: 80 }),
    fc.string({ unit: "binary", maxLength: 80 }),
    fc.nat({ max: 300_000 }).map((n) => "ä".repeat(n)),
  );
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Makes a string sendable in a URL path or query (lone surrogates cannot be percent-encoded). */
const encoded = (text: string) => encodeURIComponent(text.replace(LONE_SURROGATE, "\uFFFD"));
/** Header values must be bytes: anything past Latin-1, and CR, LF and NUL, are replaced. */
const headerSafe = (text: string) => text.replace(/[^\x20-\x7e\x80-\xff\t]/g, "?").slice(0, 8000);

/** Bodies: any JSON value, objects shaped like our contracts with wrong values, raw text, nothing. */
function anyBody() {
  const value = fc.oneof(fc.jsonValue(), anyText());
  const shaped = fc.record(
    {
      id: value,
      content: value,
      date: fc.oneof(value, fc.constantFrom("11/24/2026", "2/30/2026", "13/1/2026")),
      time: fc.oneof(value, fc.constantFrom("1:05 PM", "25:00", "12:00 am")),
      email: value,
      password: value,
      confirm_password: value,
      name: value,
      max_message_duration: value,
      endpoint: value,
      keys: fc.oneof(value, fc.record({ p256dh: value, auth: value })),
      request_id: value,
      secret: value,
      token: value,
      title: value,
      display_name: value,
      days: fc.oneof(value, fc.constantFrom(7, 30, 0, -7)),
    },
    { requiredKeys: [] },
  );
  return fc.oneof(
    fc.constant(undefined),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    shaped.map((v) => JSON.stringify(v)),
    fc.string({ unit: "binary", maxLength: 200 }),
    fc.constantFrom("{", '{"a":', "\u0000", "[".repeat(5000), `{"content":"${"x".repeat(1_100_000)}"}`),
  );
}

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-16",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/offset+octet-stream",
  "application/octet-stream",
  "",
  "garbage/\u00ff",
];

/** tus headers, right and wrong, including metadata with wrong keys, bad base64 and control characters. */
function tusHeaders() {
  const number = fc.oneof(fc.nat(), fc.integer({ min: -10, max: -1 }), fc.constantFrom("99999999999999999999", "1.5", "abc", "", " 1"));
  const metaValue = fc.oneof(anyText(), {
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
    anyText(),
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
      segment: anyText().map(encoded),
      body: fc.oneof({ arbitrary: fc.constant(undefined), weight: 1 }, { arbitrary: anyBody(), weight: 2 }),
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
  const value = fc.oneof(fc.jsonValue(), anyText());
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

/**
 * The routes of the last rounds (issue 42): providers' starts and callbacks (a real OpenID Connect provider and the
 * GitHub stand-in behind them), email links, admin, payments (against the Stripe fake), keys and settings, asked by
 * an admin, a member and a visitor. Seeded, so a failure comes back the same on the next run.
 */
describe("fuzzing the routes of the last rounds", () => {
  let rounds: TestServer;
  let idp: TestProvider;
  let github: FakeGithub;
  let mailbox: SmtpMailbox;
  let stripe: StripeFake;
  const as = { admin: new Device(""), member: new Device(""), visitor: new Device("") };
  let ids: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    [idp, github, mailbox, stripe] = await Promise.all([
      startTestProvider({ redirectUris: [`http://127.0.0.1:${port}/api/auth/oidc/fuzz/callback`] }),
      startFakeGithub(),
      startSmtpMailbox(),
      StripeFake.start(),
    ]);
    github.signedIn = { id: 4242, login: "fuzzer", name: null, emails: [{ email: "fuzzer@example.com", primary: true, verified: true }] };
    idp.accounts.set("fuzzer", { email: "oidc-fuzzer@example.com", email_verified: true, name: "Fuzzer" });
    const many = "100000";
    rounds = await startTestServer(
      {
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        OIDC_PROVIDERS: "fuzz",
        OIDC_FUZZ_ISSUER: idp.issuer,
        OIDC_FUZZ_CLIENT_ID: idp.clientId,
        OIDC_FUZZ_CLIENT_SECRET: idp.clientSecret,
        OIDC_FUZZ_ALLOW_SIGNUP: "true",
        GITHUB_CLIENT_ID: github.clientId,
        GITHUB_CLIENT_SECRET: github.clientSecret,
        GITHUB_ALLOW_SIGNUP: "true",
        GITHUB_BASE_URL: github.url,
        GITHUB_API_URL: github.url,
        SMTP_URL: mailbox.url,
        SMTP_ALLOW_PLAINTEXT: "true",
        MAIL_FROM: "fuzz@example.com",
        ...stripe.env(),
        LOGIN_RATE_LIMIT_MAX: many,
        SEND_RATE_LIMIT_MAX: many,
        EMAIL_RATE_LIMIT_MAX: many,
        EMAIL_ACCOUNT_RATE_LIMIT_MAX: many,
      },
      { port },
    );
    stripe.webhookUrl = `${rounds.url}${PAYMENTS_API.webhook}`;
    // The first account of an installation is its admin.
    as.admin = new Device(rounds.url);
    await as.admin.register("Admin", "admin@example.com");
    if ((await as.admin.get(ADMIN_API.accounts)).status !== 200) throw new Error("the first account is not the admin");
    as.member = new Device(rounds.url);
    const member = await as.member.register("Member", "member@example.com");
    const other = await new Device(rounds.url).register("Other", "other@example.com");
    const discussion = await as.member.post<{ discussion: { id: string } }>(DISCUSSIONS_API.list, { title: "Fuzzed", display_name: "M" });
    as.visitor = new Device(rounds.url);
    // The admin's own id is left out, so a generated request does not end the admin's part of the run.
    ids = [member.id, other.id, discussion.body.discussion?.id ?? ""];
  });
  afterAll(async () => {
    await rounds?.close();
    await Promise.all([idp?.stop(), github?.close(), mailbox?.stop(), stripe?.close()]);
  });

  /** Strings for ids, tokens and queries: the accounts' and the discussion's ids among the usual odd ones. */
  const roundsText = () => fc.oneof({ arbitrary: fc.constantFrom(...ids), weight: 1 }, { arbitrary: anyText(), weight: 3 });

  function roundsBody() {
    const value = fc.oneof(fc.jsonValue(), roundsText());
    const wrap = fc.record(
      {
        epoch: value,
        recipient_key_id: value,
        mode: fc.oneof(value, fc.constantFrom("base", "auth", "psk")),
        enc: value,
        ciphertext: value,
      },
      { requiredKeys: [] },
    );
    const shaped = fc.record(
      {
        token: value,
        password: value,
        confirm_password: value,
        current_password: fc.oneof(value, fc.constant("correct horse")),
        new_password: value,
        email: fc.oneof(value, fc.constantFrom("member@example.com", "a@b", "x@example.com\r\nBcc: y@example.com")),
        name: value,
        keep_other_devices: value,
        until: fc.oneof(value, fc.constantFrom(null, "2030-01-01", -1, 8.64e15)),
        discussion_id: value,
        days: fc.oneof(value, fc.constantFrom(7, 30, 0, 365)),
        public_key: value,
        key_proof: value,
        epoch: value,
        wraps: fc.oneof(value, fc.array(wrap, { maxLength: 3 })),
        roster: value,
        recovery: value,
        proof: value,
        requester_share: value,
        approver_share: value,
        approver_confirmation: value,
      },
      { requiredKeys: [] },
    );
    return fc.oneof(
      anyBody(),
      shaped.map((v) => JSON.stringify(v)),
    );
  }

  type Who = keyof typeof as;
  const step = fc.constantFrom("answer", "confirm", "reject", "approve", "deny", "reveal");
  const ROUNDS: Array<{ methods: string[]; path: (s: string, t: string) => string; weight?: number; who?: Who[] }> = [
    { methods: ["GET"], path: () => IDENTITY_API.providers },
    { methods: ["GET"], path: (s) => `/api/auth/oidc/fuzz/start?return=${s}`, weight: 2 },
    { methods: ["GET"], path: (s, t) => `/api/auth/oidc/${s}/start?return=${t}` },
    { methods: ["GET"], path: (s, t) => `/api/auth/oidc/fuzz/callback?code=${s}&state=${t}&iss=${s}`, weight: 3 },
    { methods: ["GET", "POST"], path: (s, t) => `/api/auth/oidc/${s}/callback?${t}` },
    { methods: ["GET"], path: (s) => `/api/auth/github/start?return=${s}`, weight: 2 },
    { methods: ["GET"], path: (s, t) => `/api/auth/github/callback?code=${s}&state=${t}`, weight: 3 },
    { methods: ["POST"], path: (s) => `/api/auth/link/${s}` },
    { methods: ["POST"], path: () => "/api/auth/link/fuzz" },
    { methods: ["POST"], path: (s) => `/api/auth/confirm/${s}` },
    { methods: ["POST"], path: () => "/api/auth/confirm/github" },
    { methods: ["GET"], path: () => IDENTITY_API.identities },
    { methods: ["DELETE"], path: (s) => `/api/auth/identities/${s}` },
    { methods: ["GET"], path: () => EMAIL_API.config },
    { methods: ["POST"], path: () => EMAIL_API.forgotPassword, weight: 2 },
    { methods: ["POST"], path: () => EMAIL_API.signInLink, weight: 2 },
    { methods: ["POST"], path: () => EMAIL_API.useSignInLink, weight: 2 },
    { methods: ["POST"], path: () => EMAIL_API.verify, weight: 2 },
    { methods: ["POST"], path: () => EMAIL_API.resendVerification },
    { methods: ["POST"], path: () => RESET_PASSWORD_API, weight: 2 },
    { methods: ["GET"], path: (s, t) => `${ADMIN_API.accounts}?q=${s}&cursor=${t}&limit=${t}`, weight: 2 },
    { methods: ["PUT", "DELETE"], path: (s) => `/api/admin/accounts/${s}/premium`, weight: 2 },
    { methods: ["PUT", "DELETE"], path: (s) => `/api/admin/accounts/${s}/disabled`, weight: 2 },
    { methods: ["DELETE"], path: (s) => `/api/admin/accounts/${s}` },
    { methods: ["POST"], path: (s) => `/api/admin/accounts/${s}/password-reset` },
    { methods: ["GET"], path: () => ADMIN_API.figures },
    { methods: ["GET"], path: (s, t) => `${ADMIN_API.audit}?before=${s}&limit=${t}` },
    { methods: ["GET", "POST"], path: () => ADMIN_API.invites },
    { methods: ["GET"], path: () => PAYMENTS_API.config },
    { methods: ["POST"], path: () => PAYMENTS_API.premiumCheckout },
    { methods: ["POST"], path: () => PAYMENTS_API.extensionCheckout, weight: 2 },
    { methods: ["POST"], path: () => PAYMENTS_API.portal },
    { methods: ["POST"], path: (s) => `/api/payments/checkout/${s}/confirm`, weight: 2 },
    { methods: ["POST"], path: () => PAYMENTS_API.webhook, weight: 2, who: ["visitor"] },
    { methods: ["GET"], path: () => KEYS_API.keys },
    { methods: ["PUT"], path: () => KEYS_API.device },
    { methods: ["POST"], path: () => KEYS_API.epochs },
    { methods: ["PUT"], path: () => KEYS_API.ownWraps },
    { methods: ["GET", "POST"], path: () => KEYS_API.requests },
    { methods: ["POST"], path: (s, t) => `/api/keys/requests/${s}/${t}` },
    { methods: ["GET", "PUT", "DELETE"], path: () => KEYS_API.recovery },
    { methods: ["POST"], path: () => KEYS_API.recoveryUnlock },
    { methods: ["GET"], path: () => SETTINGS_API.confirmation },
    { methods: ["PUT"], path: () => SETTINGS_API.name },
    { methods: ["PUT"], path: () => SETTINGS_API.email },
    { methods: ["PUT"], path: () => SETTINGS_API.password },
    { methods: ["DELETE"], path: () => SETTINGS_API.account },
  ];

  function roundsRequest() {
    return fc
      .record({
        route: fc.oneof(...ROUNDS.map((r) => ({ arbitrary: fc.constant(r), weight: r.weight ?? 1 }))),
        methodIndex: fc.nat(),
        s: roundsText().map(encoded),
        t: fc.oneof(step, roundsText().map(encoded)),
        extraQuery: fc.option(
          fc.tuple(anyText(), anyText()).map(([k, v]) => `${encoded(k)}=${encoded(v)}`.slice(0, 2000)),
          { nil: undefined },
        ),
        body: fc.oneof({ arbitrary: fc.constant(undefined), weight: 1 }, { arbitrary: roundsBody(), weight: 3 }),
        contentType: fc.oneof({ arbitrary: fc.constant("application/json"), weight: 3 }, fc.constantFrom(...CONTENT_TYPES)),
        who: fc.constantFrom<Who>("admin", "member", "visitor"),
        // Short: a long cookie or query is only answered 431 by the HTTP parser, before any route runs.
        flowCookie: fc.option(
          anyText().map((v) => encoded(v).slice(0, 300)),
          { nil: undefined },
        ),
        signature: fc.option(fc.oneof(anyText().map(headerSafe), fc.constantFrom("t=1,v1=00", "t=abc,v1=", "v1=x,t=99999999999")), {
          nil: undefined,
        }),
        origin: fc.oneof(
          { arbitrary: fc.constant(undefined), weight: 6 },
          { arbitrary: fc.constantFrom("null", "https://evil.example"), weight: 1 },
        ),
      })
      .map(({ route, methodIndex, s, t, extraQuery, body, contentType, who, flowCookie, signature, origin }) => {
        const method = route.methods[methodIndex % route.methods.length] ?? "GET";
        const by = route.who?.includes(who) === false ? "visitor" : who;
        let path = route.path(s, t);
        if (extraQuery) path += `${path.includes("?") ? "&" : "?"}${extraQuery}`;
        const cookies = [as[by].cookie, flowCookie === undefined ? "" : `daysync_auth_flow=${flowCookie}`].filter(Boolean);
        const headers: Record<string, string> = {};
        if (cookies.length > 0) headers.cookie = headerSafe(cookies.join("; "));
        if (contentType && body !== undefined) headers["content-type"] = contentType;
        if (signature !== undefined) headers["stripe-signature"] = signature;
        if (origin !== undefined) headers.origin = origin;
        return { method, path, headers, body: method === "GET" || method === "HEAD" ? undefined : body };
      });
  }

  // 2,000 requests, some through argon2, the provider, Stripe's fake or SMTP: one to three minutes on a busy machine.
  it("answers every generated request below 500 and stays up", { timeout: 480_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(roundsRequest(), async (req) => {
        const res = await fetch(rounds.url + req.path, { method: req.method, headers: req.headers, body: req.body, redirect: "manual" });
        const text = await res.text();
        if (res.status >= 500) throw new Error(`${req.method} ${req.path.slice(0, 200)} answered ${res.status}: ${text.slice(0, 300)}`);
      }),
      { numRuns: 2000, seed: 4242 },
    );
    await rounds.mailSettled();
    expect((await fetch(`${rounds.url}/api/health`)).status).toBe(200);
    expect((await as.visitor.get(IDENTITY_API.providers)).status).toBe(200);
  });
});
