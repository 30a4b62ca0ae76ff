/** The bench's users on the server: registered and signed in through the real API (argon2 and all). */
import { API } from "@daysync/shared";
import type { BenchUser } from "./load.ts";

export async function signIn(url: string, path: string, body: unknown): Promise<{ cookie: string; userId: string }> {
  const init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  // A reused keep-alive connection may be closed under the request: try once more on a new one.
  const res = await fetch(url + path, init).catch(() => fetch(url + path, init));
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  const json = (await res.json()) as { user: { id: string } };
  return { cookie: (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "", userId: json.user.id };
}

/** Registers `count` users (emails `<prefix><i>@example.com`) and signs each in on `devices` devices in all, 8 users at a time. */
export async function serverUsers(url: string, count: number, devices: number, prefix = "bench"): Promise<BenchUser[]> {
  const users: BenchUser[] = [];
  for (let i = 0; i < count; i += 8) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(8, count - i) }, async (_, j) => {
        const email = `${prefix}${i + j}@example.com`;
        const password = "bench-password";
        const first = await signIn(url, API.register, { name: "Bench", email, password, confirm_password: password });
        const cookies = [first.cookie];
        for (let d = 1; d < devices; d++) cookies.push((await signIn(url, API.login, { email, password })).cookie);
        return { id: first.userId, cookies };
      }),
    );
    users.push(...batch);
  }
  return users;
}
