/**
 * The bare relay the server is compared with: the same HTTP send and WebSocket fan-out, with no persistence,
 * auth or validation. `POST /send?user=U` with a message body answers 201 and sends one numbered
 * `message.created` frame (serialised once) to every socket of U, as `/api/live` does; `GET /live?user=U` joins.
 * A `{ type: "send", ref, body }` frame on a socket does the same as the POST and answers `{ type: "sent", ref }`
 * on that socket (the server's socket send, issue 47); any other frame (the resume) is answered `ready`.
 * Run as its own process (PORT) so its CPU and memory are measured apart from the load generator.
 */
import { createServer } from "node:http";
import { type WebSocket, WebSocketServer } from "ws";

const socketsByUser = new Map<string, Set<WebSocket>>();
const seqByUser = new Map<string, number>();
const wss = new WebSocketServer({ noServer: true });

function fanOut(user: string, message: unknown): void {
  const seq = (seqByUser.get(user) ?? 0) + 1;
  seqByUser.set(user, seq);
  const frame = JSON.stringify({ type: "event", seq, event: { kind: "message.created", message } });
  for (const socket of socketsByUser.get(user) ?? []) socket.send(frame);
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://relay");
  if (req.method === "GET" && url.pathname === "/health") return res.end("ok");
  if (req.method !== "POST" || url.pathname !== "/send") {
    res.statusCode = 404;
    return res.end();
  }
  const user = url.searchParams.get("user") ?? "";
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const message: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    fanOut(user, message);
    res.statusCode = 201;
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ message }));
  });
});

server.on("upgrade", (req, socket, head) => {
  const url = new URL(req.url ?? "/", "http://relay");
  const user = url.searchParams.get("user") ?? "";
  wss.handleUpgrade(req, socket, head, (ws) => {
    const set = socketsByUser.get(user) ?? new Set();
    socketsByUser.set(user, set);
    set.add(ws);
    ws.on("message", (raw) => {
      const frame = JSON.parse(String(raw)) as { type: string; ref?: string; body?: unknown };
      if (frame.type !== "send") return ws.send(JSON.stringify({ type: "ready", seq: seqByUser.get(user) ?? 0 }));
      fanOut(user, frame.body);
      ws.send(JSON.stringify({ type: "sent", ref: frame.ref, message: frame.body }));
    });
    ws.on("close", () => set.delete(ws));
  });
});

server.listen(Number(process.env.PORT), "127.0.0.1");
process.on("SIGTERM", () => process.exit(0));
