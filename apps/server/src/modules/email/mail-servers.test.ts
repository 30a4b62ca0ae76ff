/**
 * Email's servers other than the working one: a limit per address, a mail server that is down, one that offers no
 * STARTTLS, and none at all; each its own Daysync server, beside the working one of useEmailServer().
 */
import { API, EMAIL_API } from "@daysync/shared";
import { describe, expect, it } from "vitest";
import { FROM, mailbox, nextPerson, person, server, useEmailServer } from "../../testing/email-server.ts";
import { freePort } from "../../testing/free-port.ts";
import { LOG_LEVEL, LogCapture } from "../../testing/log-capture.ts";
import { Device, startTestServer } from "../../testing/test-server.ts";

useEmailServer();

describe("limits per address", () => {
  it("answers 429 past EMAIL_RATE_LIMIT_MAX requests from one address, whatever the email", async () => {
    const limited = await startTestServer({
      SMTP_URL: mailbox.url,
      SMTP_ALLOW_PLAINTEXT: "true",
      MAIL_FROM: FROM,
      EMAIL_RATE_LIMIT_MAX: "2",
    });
    try {
      const visitor = new Device(limited.url);
      expect((await visitor.post(EMAIL_API.signInLink, { email: "a@example.com" })).status).toBe(202);
      expect((await visitor.post(EMAIL_API.signInLink, { email: "b@example.com" })).status).toBe(202);
      const third = await visitor.post(EMAIL_API.signInLink, { email: "c@example.com" });
      expect(third).toMatchObject({ status: 429, body: { error: { code: "rate_limited" } } });
      expect(third.headers.get("retry-after")).toMatch(/^\d+$/);
    } finally {
      await limited.close();
    }
  });
});

describe("a mail server that is down", () => {
  it("does not stop the start or change the answer; the problem is logged", async () => {
    const log = new LogCapture();
    const down = await startTestServer(
      { SMTP_URL: `smtp://127.0.0.1:${await freePort()}`, MAIL_FROM: FROM, LOG_LEVEL: "warn" },
      { logStream: log },
    );
    try {
      const device = new Device(down.url);
      const user = await device.register("Patient", "patient@example.com");
      expect(user.email_verified).toBe(false);
      const res = await new Device(down.url).post(EMAIL_API.forgotPassword, { email: "patient@example.com" });
      expect(res).toMatchObject({ status: 202, body: { requested: true } });
      await down.mailSettled();
      const errors = log.atLeast(LOG_LEVEL.error).map((line) => line.msg);
      expect(errors).toContain("password_reset mail: the mail was not sent");
      expect(errors).toContain("verification mail: the mail was not sent");
      expect((await device.get(API.me)).status).toBe(200);
    } finally {
      await down.close();
    }
  });
});

describe("a mail server that offers no STARTTLS", () => {
  it("gets no mail through smtp:// unless SMTP_ALLOW_PLAINTEXT=true, and the log says why from the start", async () => {
    const log = new LogCapture();
    const strict = await startTestServer({ SMTP_URL: mailbox.url, MAIL_FROM: FROM, LOG_LEVEL: "info" }, { logStream: log });
    try {
      const email = `strict${nextPerson()}@example.com`;
      await new Device(strict.url).register("Strict", email);
      await strict.mailSettled();
      expect(mailbox.to(email)).toEqual([]);
      const lines = log.lines();
      expect(lines.map((line) => line.msg)).toContainEqual(expect.stringMatching(/only over STARTTLS.*SMTP_ALLOW_PLAINTEXT=true/));
      const failed = lines.find((line) => line.msg === "verification mail: the mail was not sent");
      expect(JSON.stringify(failed?.err)).toMatch(/offers no STARTTLS, and mail is not sent in clear unless SMTP_ALLOW_PLAINTEXT=true/);
    } finally {
      await strict.close();
    }
    // The main server of this file sets SMTP_ALLOW_PLAINTEXT=true against the same mailbox: its mail arrives, with a warning at start.
    const { email } = await person("Plain");
    expect(mailbox.to(email)).toHaveLength(1);
  });
});

describe("without SMTP", () => {
  it("says email is off, answers 404 email_not_configured, and registration sends nothing", async () => {
    const plain = await startTestServer();
    try {
      const visitor = new Device(plain.url);
      expect(await visitor.get(EMAIL_API.config)).toMatchObject({ status: 200, body: { enabled: false } });
      expect((await new Device(server.url).get(EMAIL_API.config)).body).toEqual({ enabled: true });
      const user = await visitor.register("Offline", "offline@example.com");
      expect(user.email_verified).toBe(false);
      const calls: Array<[string, unknown]> = [
        [EMAIL_API.forgotPassword, { email: "offline@example.com" }],
        [EMAIL_API.signInLink, { email: "offline@example.com" }],
        [EMAIL_API.useSignInLink, { token: "a".repeat(43) }],
        [EMAIL_API.verify, { token: "a".repeat(43) }],
        [EMAIL_API.resendVerification, {}],
      ];
      for (const [path, body] of calls) {
        const res = await visitor.post(path, body);
        expect(res, path).toMatchObject({ status: 404, body: { error: { code: "email_not_configured" } } });
      }
      await plain.mailSettled();
      expect(mailbox.to("offline@example.com")).toHaveLength(0);
    } finally {
      await plain.close();
    }
  });
});
