import { responseSchemas } from "@daysync/shared";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { answerSerializer, answers, type SharedSchemas } from "./answers.ts";

/** A server with one route that answers whatever the test gives it, declared as `{ ok: true }`. */
async function serverAnswering(body: unknown, check: boolean) {
  const app = Fastify({ logger: false }).withTypeProvider<SharedSchemas>();
  app.setSerializerCompiler(answerSerializer(check));
  // The cast stands for a route whose code drifted from its schema; the compiler stops the real ones.
  app.get("/answer", { schema: answers(responseSchemas.ok) }, async () => body as { ok: true });
  app.get("/plain", async () => body);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const get = async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`);
    return { status: res.status, body: await res.text() };
  };
  return { get, close: () => app.close() };
}

describe("answers checked against their shared schema in tests", () => {
  it("lets an answer that matches its schema through unchanged", async () => {
    const server = await serverAnswering({ ok: true }, true);
    expect(await server.get("/answer")).toEqual({ status: 200, body: '{"ok":true}' });
    await server.close();
  });

  it("refuses with a 500 an answer of the wrong shape, or with a field its schema does not name", async () => {
    for (const body of [{ ok: false }, { ok: true, password_hash: "x" }, { fine: true }]) {
      const server = await serverAnswering(body, true);
      expect((await server.get("/answer")).status).toBe(500);
      await server.close();
    }
  });

  it("does not check in production, nor routes without a schema", async () => {
    const server = await serverAnswering({ ok: true, extra: 1 }, false);
    expect(await server.get("/answer")).toEqual({ status: 200, body: '{"ok":true,"extra":1}' });
    await server.close();
    const checked = await serverAnswering({ anything: 1 }, true);
    expect(await checked.get("/plain")).toEqual({ status: 200, body: '{"anything":1}' });
    await checked.close();
  });
});
