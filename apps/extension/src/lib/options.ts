/** The extension's one option, kept in its storage: copy texts from the other devices as they come (off by default). */
import { z } from "zod";

const KEY = "auto-copy";

export async function autoCopyOn(): Promise<boolean> {
  return z
    .boolean()
    .catch(false)
    .parse((await chrome.storage.local.get(KEY))[KEY]);
}

export async function setAutoCopy(on: boolean): Promise<void> {
  await chrome.storage.local.set({ [KEY]: on });
}
