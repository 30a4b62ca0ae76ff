/**
 * Devices of one account that read each other's messages: what the browser sends is sealed (decision 020), so a
 * device signed in by password reads and sends only once a device holding the key approved it by check code.
 */
import { APP_ROUTES, SEALED_TEXT } from "@daysync/shared";
import type { Browser } from "playwright-core";
import { type Device, keyStateOf, twoDevicesOfOneUser, visible } from "./daysync.ts";

/** Each step waits this long: the approval is several round trips and live events, and e2e workers share two cores. */
const STEP_MS = 60_000;

/**
 * Approves `locked` (signed in by password) from `keyed` (holds the key) as a person does: Compare codes on the
 * keyed device, the same six digits on both, Approve there and "Yes, it shows …" here. Both end on their dashboard.
 */
export async function approveByCheckCode(keyed: Device, locked: Device): Promise<void> {
  const lockedNotice = locked.page.getByRole("heading", { name: SEALED_TEXT.approveToSend });
  await locked.page.goto(APP_ROUTES.dashboard);
  await visible(lockedNotice, STEP_MS);
  await keyed.page.goto(APP_ROUTES.dashboard);
  await (await visible(keyed.page.getByRole("button", { name: /^Compare codes with / }), STEP_MS)).click();
  const code = await (await visible(keyed.page.locator(".key-approval-code"), STEP_MS)).textContent();
  const shown = await (await visible(locked.page.locator(".key-approval-code"), STEP_MS)).textContent();
  if (shown !== code) throw new Error(`The devices show different codes: ${code} and ${shown}`);
  await keyed.page.getByRole("button", { name: /^Approve / }).click();
  await locked.page.getByRole("button", { name: `Yes, it shows ${code}` }).click();
  await lockedNotice.waitFor({ state: "detached", timeout: STEP_MS });
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
