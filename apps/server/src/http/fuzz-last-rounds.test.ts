/**
 * Property-based fuzzing of the routes of the last rounds (issue 42), beside fuzz.test.ts's every route and both
 * WebSockets, in a file of its own so the two run side by side: whatever arrives, the server answers below 500.
 */
import {
  ADMIN_API,
  DISCUSSIONS_API,
  EMAIL_API,
  IDENTITY_API,
  KEYS_API,
  PAYMENTS_API,
  RESET_PASSWORD_API,
  SETTINGS_API,
} from "@daysync/shared";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../testing/free-port.ts";
import { anyBody, anyText, CONTENT_TYPES, encoded, headerSafe } from "../testing/fuzz-arbitraries.ts";
import { type FakeGithub, startFakeGithub } from "../testing/github-fake.ts";
import { startTestProvider, type TestProvider } from "../testing/oidc-test-provider.ts";
import { type SmtpMailbox, startSmtpMailbox } from "../testing/smtp-mailbox.ts";
import { StripeFake } from "../testing/stripe-fake.ts";
import { Device, startTestServer, type TestServer } from "../testing/test-server.ts";

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
  const roundsText = () => fc.oneof({ arbitrary: fc.constantFrom(...ids), weight: 1 }, { arbitrary: anyText(ids), weight: 3 });

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
      anyBody(ids),
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
          fc.tuple(anyText(ids), anyText(ids)).map(([k, v]) => `${encoded(k)}=${encoded(v)}`.slice(0, 2000)),
          { nil: undefined },
        ),
        body: fc.oneof({ arbitrary: fc.constant(undefined), weight: 1 }, { arbitrary: roundsBody(), weight: 3 }),
        contentType: fc.oneof({ arbitrary: fc.constant("application/json"), weight: 3 }, fc.constantFrom(...CONTENT_TYPES)),
        who: fc.constantFrom<Who>("admin", "member", "visitor"),
        // Short: a long cookie or query is only answered 431 by the HTTP parser, before any route runs.
        flowCookie: fc.option(
          anyText(ids).map((v) => encoded(v).slice(0, 300)),
          { nil: undefined },
        ),
        signature: fc.option(fc.oneof(anyText(ids).map(headerSafe), fc.constantFrom("t=1,v1=00", "t=abc,v1=", "v1=x,t=99999999999")), {
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
