/**
 * An HTTP proxy in front of the test server that can stop passing an upload's bytes after a given count, or cut
 * the connection, as a network that hangs or drops halfway would; it counts the upload bytes it passes, so a test
 * sees what a resume sent again.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export class StallProxy {
  /** PATCH body bytes passed on since the last reset. */
  patchBytes = 0;
  /** Pass at most this many PATCH body bytes, then hold the rest; null passes everything. */
  stallAfter: number | null = null;
  /** Cut the connection once when this many PATCH body bytes have passed, as a network that drops would. */
  dropAt: number | null = null;
  private readonly server: http.Server;

  private constructor(readonly target: string) {
    this.server = http.createServer((req, res) => this.forward(req, res));
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

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
