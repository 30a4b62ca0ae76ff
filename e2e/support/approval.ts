/**
 * Devices of one account that read each other's messages: what the browser sends is sealed (decision 020), so a
 * device signed in by password reads and sends only once a device holding the key approved it by typing the code it
 * shows (docs/protocol/encryption.md, "Approving a device").
 */
import { APP_ROUTES, APPROVAL_TEXT, SEALED_TEXT } from "@daysync/shared";
import type { Browser } from "playwright-core";
import { type Device, keyStateOf, twoDevicesOfOneUser, visible } from "./daysync.ts";

/** Each step waits this long: the approval is several round trips and live events, and e2e workers share two cores. */
const STEP_MS = 60_000;

/**
 * Approves `locked` (signed in by password) from `keyed` (holds the key) as a person does: reads the code the locked
 * device shows, types it on the keyed device in "Code shown on the new device" and presses Approve. Both end on their
 * dashboard, the locked one able to read.
 */
export async function approveByCheckCode(keyed: Device, locked: Device): Promise<void> {
  const lockedNotice = locked.page.getByRole("heading", { name: SEALED_TEXT.approveToSend });
  await locked.page.goto(APP_ROUTES.dashboard);
  await visible(lockedNotice, STEP_MS);
  await keyed.page.goto(APP_ROUTES.dashboard);
  const code = await (await visible(locked.page.locator(".key-approval-code"), STEP_MS)).textContent();
  await typeCodeOn(keyed, code ?? "");
  await lockedNotice.waitFor({ state: "detached", timeout: STEP_MS });
}

/** Types `code` in the keyed device's field for the request and presses Approve. */
export async function typeCodeOn(keyed: Device, code: string): Promise<void> {
  await (await visible(keyed.page.getByLabel(APPROVAL_TEXT.codeField), STEP_MS)).fill(code);
  await keyed.page.getByRole("button", { name: /^Approve / }).click();
}

/**
 * Two devices of one new account, the second approved by the first, both on the dashboard: the first registers and
 * makes the account's key, the second signs in with the password.
 */
export async function twoReadingDevices(
  browser: Browser,
  baseURL: string,
  account: { name: string; email: string },
  viewports: Parameters<typeof twoDevicesOfOneUser>[3] = {},
): Promise<[Device, Device]> {
  const [first, second] = await twoDevicesOfOneUser(browser, baseURL, account, viewports);
  await first.page.goto(APP_ROUTES.dashboard);
  // Its key first (a loop, not expect.poll: this runs in beforeAll too), so the second is the one asking.
  const deadline = Date.now() + STEP_MS;
  while ((await keyStateOf(first, baseURL)).wraps.length === 0) {
    if (Date.now() > deadline) throw new Error("The first device made no key");
    await first.page.waitForTimeout(100);
  }
  await approveByCheckCode(first, second);
  return [first, second];
}
