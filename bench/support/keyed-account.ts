/**
 * A new account registered over HTTP whose device (this process) holds the account's first key, as the CLI does:
 * its session cookie, and the sealer its sends and uploads seal with (decision 020).
 */
import { API, deviceKeySchema, KEYS_API, keysStateSchema, responseSchemas } from "@daysync/shared";
import { AccountKeys, memoryKeyStorage, type Sealer } from "@daysync/shared/crypto";

export async function keyedAccount(baseUrl: string, email: string): Promise<{ cookie: string; sealer: Sealer }> {
  const password = "bench-password";
  const register = await fetch(`${baseUrl}${API.register}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Bench", email, password, confirm_password: password }),
  });
  if (register.status !== 201) throw new Error(`register answered ${register.status}: ${await register.text()}`);
  const userId = responseSchemas.user.parse(await register.json()).user.id;
  const cookie = (register.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const call = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}${route}`, {
      method,
      headers: { cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const keys = new AccountKeys(userId, memoryKeyStorage(userId), {
    state: async () => keysStateSchema.parse((await call("GET", KEYS_API.keys)).body),
    setDeviceKey: async (publicKey) => {
      deviceKeySchema.parse((await call("PUT", KEYS_API.device, { public_key: publicKey })).body);
    },
    createEpoch: async (input) => {
      const answer = await call("POST", KEYS_API.epochs, input);
      if (answer.status === 409) return { ok: false, code: responseSchemas.error.parse(answer.body).error.code };
      return { ok: true, state: keysStateSchema.parse(answer.body) };
    },
  });
  const status = await keys.sync();
  const epochKeys = status.state === "ready" ? status.keys.epochs.get(status.epoch) : undefined;
  if (status.state !== "ready" || !epochKeys) throw new Error(`The bench device cannot seal: ${status.state}`);
  return { cookie, sealer: { userId, sessionId: status.sessionId, epoch: status.epoch, keys: epochKeys } };
}
