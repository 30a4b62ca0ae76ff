/**
 * Text a request may not carry (issue 24): Unicode bidirectional controls in any name a person chooses, which can
 * make "gnp.exe" read as "exe.png", and half a character (a lone surrogate), which has no UTF-8 form and would be
 * stored as replacement characters. Each is a 400 naming its field, and nothing is stored.
 */

import { connect } from "node:net";
import {
  API,
  DEVICES_API,
  type DevicesResponse,
  DISCUSSIONS_API,
  type DiscussionDetails,
  PAIRING_API,
  SETTINGS_API,
  type SendMessageInput,
} from "@daysync/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createThroughApi, join, person } from "../testing/discussion-api.ts";
import { Device, startTestServer, type TestServer, textMessage } from "../testing/test-server.ts";
import { b64, create, metadata } from "../testing/tus-client.ts";

/** Every bidirectional control: embeddings and overrides, isolates, and the LRM, RLM and ALM marks. */
const BIDI_CONTROLS = [..."\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C"];
/** Half of the pair that makes U+1F600; JSON.stringify sends it as the escape "\ud83d", which JSON.parse turns back into it. */
const HALF = "\ud83d";

const bidiRefusal = (what: string, field: string) => ({
  error: {
    code: "validation",
    message: `${what} must not contain Unicode direction controls (such as U+202E): they can make it read as something it is not.`,
    field,
  },
});
const halfRefusal = (what: string, field: string) => ({
  error: { code: "validation", message: `${what} must be valid text: it holds half of a character (a lone surrogate).`, field },
});

let server: TestServer;
beforeAll(async () => {
  // Each bidirectional control is a try to join.
  server = await startTestServer({ DISCUSSION_JOIN_RATE_LIMIT_MAX: "100", DISCUSSION_JOIN_ADDRESS_RATE_LIMIT_MAX: "100" });
});
afterAll(() => server.close());

/** The user's one device, as the Devices list shows it. */
async function ownDevice(device: Device) {
  const [own] = (await device.get<DevicesResponse>(DEVICES_API.list)).body.devices;
  return { id: own?.id ?? "", name: own?.name };
}

describe("bidirectional controls in names", () => {
  it("are refused in an account name, a device name, a discussion title and a display name, each naming its field", async () => {
    const { device } = await person(server, "Ann");
    const before = await ownDevice(device);
    const { discussion } = await createThroughApi(device, "Trip", "Ann");
    const { device: bob } = await person(server, "Bob");
    let n = 0;
    for (const control of BIDI_CONTROLS) {
      const name = `Ann${control}gnp.exe`;
      const register = await new Device(server.url).post(API.register, {
        name,
        email: `bidi${++n}@example.com`,
        password: "correct horse",
        confirm_password: "correct horse",
      });
      expect([register.status, register.body], JSON.stringify(control)).toEqual([400, bidiRefusal("A name", "name")]);

      const renamed = await device.request("PATCH", DEVICES_API.one(before.id), { name });
      expect([renamed.status, renamed.body]).toEqual([400, bidiRefusal("A device name", "name")]);

      const created = await device.post(DISCUSSIONS_API.list, { title: name, display_name: "Ann" });
      expect([created.status, created.body]).toEqual([400, bidiRefusal("A title", "title")]);
      const createdAs = await device.post(DISCUSSIONS_API.list, { title: "Trip", display_name: name });
      expect([createdAs.status, createdAs.body]).toEqual([400, bidiRefusal("A display name", "display_name")]);
      const retitled = await device.request("PATCH", DISCUSSIONS_API.one(discussion.id), { title: name });
      expect([retitled.status, retitled.body]).toEqual([400, bidiRefusal("A title", "title")]);

      const joined = await join(bob, discussion.public_id, `Bob${control}`);
      expect([joined.status, joined.body]).toEqual([400, bidiRefusal("A display name", "display_name")]);
    }

    expect(await ownDevice(device)).toEqual(before);
    const details = (await device.get<DiscussionDetails>(DISCUSSIONS_API.one(discussion.id))).body;
    expect(details.discussion.title).toBe("Trip");
    expect(details.members.map((m) => m.display_name)).toEqual(["Ann"]);
    const accounts = await server.db.selectFrom("users").select("id").where("email", "like", "bidi%").execute();
    expect(accounts).toEqual([]);
  });

  it("are refused in the file name of an upload's tus metadata with a 400 naming filename, before any upload exists", async () => {
    const { device } = await person(server, "Uma");
    for (const control of BIDI_CONTROLS) {
      const { res, location } = await create(device, 10, metadata(`invoice${control}fdp.exe`, server.clock.now()).header);
      expect(res.status, JSON.stringify(control)).toBe(400);
      expect(await res.json()).toEqual(bidiRefusal("filename", "filename"));
      expect(location).toBe("");
    }
    const { res } = await create(device, 10, metadata("invoice.pdf", server.clock.now()).header);
    expect(res.status).toBe(201);
  });
});

describe("half a character (a lone surrogate)", () => {
  it("is refused in a message, in a day or a discussion, naming content, and nothing is stored", async () => {
    const { device } = await person(server, "Hal");
    const { discussion } = await createThroughApi(device, "Notes", "Hal");
    const message = (): SendMessageInput => textMessage(`a smile ${HALF} cut in half`, server.clock.now());

    const sent = await device.post(API.messages, message());
    expect([sent.status, sent.body]).toEqual([400, halfRefusal("A message", "content")]);
    expect((await device.get<{ days: unknown[] }>(API.days)).body.days).toEqual([]);

    const said = await device.post(DISCUSSIONS_API.messages(discussion.id), message());
    expect([said.status, said.body]).toEqual([400, halfRefusal("A message", "content")]);
    expect((await device.get<{ messages: unknown[] }>(DISCUSSIONS_API.messages(discussion.id))).body.messages).toEqual([]);

    // Its other half alone, and a whole pair is a character like any other.
    expect((await device.post(API.messages, textMessage("\ude00 alone", server.clock.now()))).status).toBe(400);
    expect((await device.post(API.messages, textMessage("a smile \ud83d\ude00", server.clock.now()))).status).toBe(201);
  });

  it("is refused in every kind of name, a password and a pairing token, each naming its field", async () => {
    const { device, email } = await person(server, "Ivy");
    const { id } = await ownDevice(device);
    const { discussion } = await createThroughApi(device, "Plans", "Ivy");
    const { device: bob } = await person(server, "Bob");
    const account = { name: `Ivy${HALF}`, email: "half@example.com", password: "correct horse", confirm_password: "correct horse" };

    const refusals: Array<[Promise<{ status: number; body: unknown }>, unknown]> = [
      [new Device(server.url).post(API.register, account), halfRefusal("A name", "name")],
      [new Device(server.url).post(API.login, { email, password: `correct horse${HALF}` }), halfRefusal("A password", "password")],
      [device.request("PATCH", DEVICES_API.one(id), { name: `phone${HALF}` }), halfRefusal("A device name", "name")],
      [device.post(DISCUSSIONS_API.list, { title: `Plans${HALF}`, display_name: "Ivy" }), halfRefusal("A title", "title")],
      [device.request("PATCH", DISCUSSIONS_API.one(discussion.id), { title: HALF }), halfRefusal("A title", "title")],
      [join(bob, discussion.public_id, `Bob${HALF}`), halfRefusal("A display name", "display_name")],
      [
        device.post(PAIRING_API.exchange, { request_id: crypto.randomUUID(), secret: "s".repeat(16), token: HALF.repeat(16) }),
        halfRefusal("The token", "token"),
      ],
    ];
    for (const [answer, refusal] of refusals) {
      const { status, body } = await answer;
      expect([status, body]).toEqual([400, refusal]);
    }
    expect(await server.db.selectFrom("users").select("id").where("email", "=", "half@example.com").execute()).toEqual([]);
    const details = (await device.get<DiscussionDetails>(DISCUSSIONS_API.one(discussion.id))).body;
    expect([details.discussion.title, details.members.length]).toEqual(["Plans", 1]);
  });

  it("is refused in tus metadata as the bytes it would take (not UTF-8), naming the key, where tus reads replacement characters", async () => {
    const { device } = await person(server, "Tia");
    const half = Buffer.concat([Buffer.from("smile "), Buffer.from([0xed, 0xa0, 0xbd]), Buffer.from(".txt")]).toString("base64");
    const header = metadata("placeholder", server.clock.now()).header.replace(`filename ${b64("placeholder")}`, `filename ${half}`);
    const { res } = await create(device, 10, header);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: "validation", message: "filename must be UTF-8 text.", field: "filename" } });
  });
});

describe("control characters in names (issue 42, point 6)", () => {
  /** OSC 52: a terminal that honours it writes the base64 text to its clipboard. */
  const OSC_52 = "\u001b]52;c;cm0gLXJmIH4K\u0007";
  const CONTROLS = [OSC_52, "\u009b31m", "\u009d52;c;eA==\u009c", "line\nbreak", "back\rover", "tab\there", "del\u007f"];
  const controlRefusal = (what: string, field: string) => ({
    error: { code: "validation", message: `${what} must not contain line breaks or other control characters.`, field },
  });

  it("a device signed in by password is refused renaming itself, its account or a discussion with ESC, C1 or line breaks", async () => {
    const { device } = await person(server, "Cal");
    const before = await ownDevice(device);
    const { discussion } = await createThroughApi(device, "Trip", "Cal");
    const { device: bob } = await person(server, "Bob");
    let n = 0;
    for (const control of CONTROLS) {
      const name = `Cal${control}`;
      const label = JSON.stringify(control);
      const renamed = await device.request("PATCH", DEVICES_API.one(before.id), { name });
      expect([renamed.status, renamed.body], label).toEqual([400, controlRefusal("A device name", "name")]);
      const account = await device.request("PUT", SETTINGS_API.name, { name });
      expect([account.status, account.body], label).toEqual([400, controlRefusal("A name", "name")]);
      const register = await new Device(server.url).post(API.register, {
        name,
        email: `control${++n}@example.com`,
        password: "correct horse",
        confirm_password: "correct horse",
      });
      expect([register.status, register.body], label).toEqual([400, controlRefusal("A name", "name")]);
      const created = await device.post(DISCUSSIONS_API.list, { title: name, display_name: "Cal" });
      expect([created.status, created.body], label).toEqual([400, controlRefusal("A title", "title")]);
      const createdAs = await device.post(DISCUSSIONS_API.list, { title: "Trip", display_name: name });
      expect([createdAs.status, createdAs.body], label).toEqual([400, controlRefusal("A display name", "display_name")]);
      const retitled = await device.request("PATCH", DISCUSSIONS_API.one(discussion.id), { title: name });
      expect([retitled.status, retitled.body], label).toEqual([400, controlRefusal("A title", "title")]);
      const joined = await join(bob, discussion.public_id, `Bob${control}`);
      expect([joined.status, joined.body], label).toEqual([400, controlRefusal("A display name", "display_name")]);
    }
    expect(await ownDevice(device)).toEqual(before);
    const details = (await device.get<DiscussionDetails>(DISCUSSIONS_API.one(discussion.id))).body;
    expect([details.discussion.title, details.members.map((m) => m.display_name)]).toEqual(["Trip", ["Cal"]]);
    expect(await server.db.selectFrom("users").select("id").where("email", "like", "control%").execute()).toEqual([]);
  });

  it("a User-Agent's bytes 0x80–0x9F (C1 controls) never reach a device's name", async () => {
    const email = "ua-c1@example.com";
    await new Device(server.url).register("Uli", email);
    const device = new Device(server.url);
    // fetch refuses such bytes in a header: send them over a raw socket, as an attacker would.
    const body = JSON.stringify({ email, password: "correct horse" });
    const host = new URL(server.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(host.port), host.hostname, () => {
        socket.write(
          Buffer.concat([
            Buffer.from(
              `POST ${API.login} HTTP/1.1\r\nHost: ${host.host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n`,
            ),
            Buffer.from("User-Agent: daysync-cli/1.0.0 (box"),
            Buffer.from([0x9b, 0x33, 0x31, 0x6d, 0x9d]),
            Buffer.from("52; Linux)\r\nConnection: close\r\n\r\n"),
            Buffer.from(body),
          ]),
        );
      });
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString("latin1");
      });
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    device.cookie = /(daysync_session=[^;]+)/.exec(answer)?.[1] ?? "";
    const { devices } = (await device.get<DevicesResponse>(DEVICES_API.list)).body;
    expect(devices.length).toBeGreaterThan(0);
    for (const d of devices) expect(d.name).not.toMatch(/\p{Cc}/u);
  });
});
