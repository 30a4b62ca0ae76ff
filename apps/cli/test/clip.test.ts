/** daysync clip on both desktops: a copy goes out, a text comes in, and neither echoes back. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countLog, created, desktops, useClipHarness, waitForLog } from "./clip-harness.ts";
import type { Desktop } from "./desktop.ts";

const { ann, startClip, openedText, serverTexts, sendFromPhone } = useClipHarness();

describe.each(desktops)("daysync clip on %s", (_name, start, tag) => {
  let desktop: Desktop;
  beforeAll(async () => {
    desktop = await start();
  });
  afterAll(async () => {
    await desktop?.stop();
  });

  it("a copy on the computer arrives on the other devices as a message within 2 s", async () => {
    const phone = await ann.browser.live(0);
    await startClip(desktop);
    await desktop.copy("copied on the computer");
    // From the moment the clipboard holds it (the copy tool's own start-up is not clip's).
    const copied = Date.now();
    await phone.waitFor((received) => created(received).length > 0, 2000);
    expect(Date.now() - copied).toBeLessThan(2000);
    const [message] = created(phone.received);
    // Sealed: the server relayed a value only Ann's devices open.
    expect(message?.epoch).toBe(1);
    expect(message?.content).not.toContain("copied on the computer");
    expect(message && (await openedText(message))).toBe("copied on the computer");
    phone.close();
  });

  it("a text sent from another device lands in the clipboard", async () => {
    const cli = await startClip(desktop);
    await sendFromPhone("from the phone");
    await waitForLog(cli, "Copied a text from");
    expect(await desktop.paste()).toBe("from the phone");
  });

  it("never echoes, in either direction, over 20 round trips", async () => {
    const before = await serverTexts();
    const cli = await startClip(desktop);
    for (let i = 1; i <= 20; i++) {
      await desktop.copy(`${tag} computer ${i}`);
      await waitForLog(cli, "Sent a copy", i);
      await sendFromPhone(`${tag} phone ${i}`);
      await waitForLog(cli, "Copied a text from", i);
      expect(await desktop.paste()).toBe(`${tag} phone ${i}`);
    }
    // A last copy: whatever clip would have sent back before it has been sent by the time it arrives.
    await desktop.copy(`${tag} the end`);
    await waitForLog(cli, "Sent a copy", 21);
    // Each text once: an echo would be a second message with the same text.
    const after = await serverTexts();
    const expected = [
      ...Array.from({ length: 20 }, (_, i) => [`${tag} computer ${i + 1}`, `${tag} phone ${i + 1}`]).flat(),
      `${tag} the end`,
    ];
    expect(after).toHaveLength(before.length + expected.length);
    expect(after.filter((t) => expected.includes(t)).sort()).toEqual(expected.sort());
    expect(countLog(cli, "Copied a text from")).toBe(20);
    expect(countLog(cli, "Sent a copy")).toBe(21);
  }, 240_000);
});
