/**
 * An HTTP proxy in front of the test server that can stop passing an upload's bytes after a given count, or cut
 * the connection, as a network that hangs or drops halfway would; it counts the upload bytes it passes, so a test
 * sees what a resume sent again. WebSocket upgrades (a QR login's wait) pass through untouched.
 */
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import type { Duplex } from "node:stream";

export class StallProxy {
  /** PATCH body bytes passed on since the last reset. */
  patchBytes = 0;
  /** Pass at most this many PATCH body bytes, then hold the rest; null passes everything. */
  stallAfter: number | null = null;
  /** Cut the connection once when this many PATCH body bytes have passed, as a network that drops would. */
  dropAt: number | null = null;
  private readonly server: http.Server;
  private readonly tunnels = new Set<Duplex>();

  private constructor(readonly target: string) {
    this.server = http.createServer((req, res) => this.forward(req, res));
    this.server.on("upgrade", (req, socket, head) => this.tunnel(req, socket, head));
  }

  static async start(target: string): Promise<StallProxy> {
    const proxy = new StallProxy(target);
    await new Promise<void>((resolve) => proxy.server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse) {
    const upstream = http.request(`${this.target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    // The client went away (killed): the server sees its request end there too.
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    if (req.method !== "PATCH") {
      req.pipe(upstream);
      return;
    }
    req.on("data", (chunk: Buffer) => {
      const room = this.stallAfter === null ? chunk.length : Math.max(0, this.stallAfter - this.patchBytes);
      const part = chunk.subarray(0, room);
      if (part.length > 0) upstream.write(part);
      this.patchBytes += part.length;
      if (part.length < chunk.length) req.pause();
      if (this.dropAt !== null && this.patchBytes >= this.dropAt) {
        this.dropAt = null;
        upstream.destroy();
        req.socket.destroy();
      }
    });
    req.on("end", () => upstream.end());
  }

  private tunnel(req: http.IncomingMessage, client: Duplex, head: Buffer) {
    const { hostname, port } = new URL(this.target);
    const upstream = net.connect(Number(port), hostname, () => {
      const headers = Object.entries(req.headers).flatMap(([name, value]) =>
        (Array.isArray(value) ? value : [value ?? ""]).map((v) => `${name}: ${v}`),
      );
      upstream.write(`${req.method} ${req.url} HTTP/1.1\r\n${headers.join("\r\n")}\r\n\r\n`);
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    this.tunnels.add(client).add(upstream);
    client.on("close", () => this.tunnels.delete(client));
    upstream.on("close", () => this.tunnels.delete(upstream));
  }

  close(): Promise<void> {
    for (const socket of this.tunnels) socket.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
