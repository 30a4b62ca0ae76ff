/**
 * An HTTP proxy in front of the test server that runs a test's step just before it passes on a chosen request, so
 * a test can change the server's state between what a command has read and what it sends next (as another device
 * acting at that moment would). WebSocket upgrades pass through untouched.
 */
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import type { Duplex } from "node:stream";

export type Hook = (req: http.IncomingMessage) => Promise<void>;

export class HookProxy {
  /** Runs before each request `matches` picks is passed on; the request waits for it. */
  hook: { matches: (req: http.IncomingMessage) => boolean; run: Hook } | null = null;
  private readonly server: http.Server;
  private readonly tunnels = new Set<Duplex>();

  private constructor(readonly target: string) {
    this.server = http.createServer((req, res) => void this.forward(req, res));
    this.server.on("upgrade", (req, socket, head) => this.tunnel(req, socket, head));
  }

  static async start(target: string): Promise<HookProxy> {
    const proxy = new HookProxy(target);
    await new Promise<void>((resolve) => proxy.server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async forward(req: http.IncomingMessage, res: http.ServerResponse) {
    if (this.hook?.matches(req)) await this.hook.run(req);
    const upstream = http.request(`${this.target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
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
