/**
 * The bare relay the server is compared with: the same HTTP send and WebSocket fan-out, with no persistence,
 * auth or validation. `POST /send?user=U` with a message body answers 201 and sends one numbered
 * `message.created` frame (serialised once) to every socket of U, as `/api/live` does; `GET /live?user=U` joins.
 * Run as its own process (PORT) so its CPU and memory are measured apart from the load generator.
 */
import { createServer } from "node:http";
import { type WebSocket, WebSocketServer } from "ws";

const socketsByUser = new Map<string, Set<WebSocket>>();
const seqByUser = new Map<string, number>();
const wss = new WebSocketServer({ noServer: true });

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
    const seq = (seqByUser.get(user) ?? 0) + 1;
    seqByUser.set(user, seq);
    const frame = JSON.stringify({ type: "event", seq, event: { kind: "message.created", message } });
    for (const socket of socketsByUser.get(user) ?? []) socket.send(frame);
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
    ws.on("message", () => ws.send(JSON.stringify({ type: "ready", seq: seqByUser.get(user) ?? 0 })));
    ws.on("close", () => set.delete(ws));
  });
});

server.listen(Number(process.env.PORT), "127.0.0.1");
process.on("SIGTERM", () => process.exit(0));
