/**
 * A reverse proxy in front of a test server that does what nginx's `$proxy_add_x_forwarded_for` does: it keeps the
 * `X-Forwarded-For` the client wrote and appends the address the client really connected from. It reaches the server
 * from its own address (`127.0.0.2`), so a test can tell the proxy's address, the client's and a forged one apart.
 */
import http from "node:http";
import net from "node:net";

export const PROXY_ADDRESS = "127.0.0.2";

export interface AppendingProxy {
  url: string;
  close(): Promise<void>;
}

function forwardedHeaders(request: http.IncomingMessage): http.OutgoingHttpHeaders {
  const written = request.headers["x-forwarded-for"];
  const client = request.socket.remoteAddress ?? "";
  return { ...request.headers, "x-forwarded-for": written ? `${written}, ${client}` : client };
}

export async function startAppendingProxy(target: string): Promise<AppendingProxy> {
  const upstream = new URL(target);
  const port = Number(upstream.port);

  const server = http.createServer((request, response) => {
    const forwarded = http.request(
      {
        host: upstream.hostname,
        port,
        localAddress: PROXY_ADDRESS,
        method: request.method,
        path: request.url,
        headers: forwardedHeaders(request),
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on("error", () => response.destroy());
    request.pipe(forwarded);
  });

  const upgraded = new Set<net.Socket>();
  // WebSocket upgrades: the handshake is rewritten like a request, then bytes flow both ways untouched.
  server.on("upgrade", (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const socket = net.connect({ host: upstream.hostname, port, localAddress: PROXY_ADDRESS }, () => {
      const lines = [`${request.method} ${request.url} HTTP/1.1`];
      for (const [name, value] of Object.entries(forwardedHeaders(request))) {
        for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${one}`);
      }
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length > 0) socket.write(head);
      socket.pipe(client).pipe(socket);
    });
    upgraded.add(client).add(socket);
    socket.on("error", () => client.destroy());
    client.on("error", () => socket.destroy());
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of upgraded) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
