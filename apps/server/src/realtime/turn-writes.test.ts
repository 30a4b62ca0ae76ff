/** A socket's writes of one turn reach the peer together, in order; the next turn's are not held back. */
import { once } from "node:events";
import net from "node:net";
import { afterEach, expect, it } from "vitest";
import { holdWritesForTurn } from "./turn-writes.ts";

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const close of cleanup.splice(0)) close();
});

/**
 * A connected pair of real TCP sockets. `writes` lists what each write the sender handed to the kernel held
 * (the stream's `_write` for one chunk, `_writev` for several); `received` is everything the peer read.
 */
async function socketPair() {
  const server = net.createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as net.AddressInfo).port;
  const sender = net.connect(port, "127.0.0.1");
  const [receiver] = (await once(server, "connection")) as [net.Socket];
  await once(sender, "connect");
  const writes: string[][] = [];
  const writeOne = sender._write.bind(sender);
  sender._write = (chunk, encoding, callback) => {
    writes.push([String(chunk)]);
    writeOne(chunk, encoding, callback);
  };
  const writeMany = sender._writev?.bind(sender);
  sender._writev = (chunks, callback) => {
    writes.push(chunks.map(({ chunk }) => String(chunk)));
    writeMany?.(chunks, callback);
  };
  let received = "";
  receiver.on("data", (chunk: Buffer) => {
    received += chunk.toString();
  });
  cleanup.push(() => {
    sender.destroy();
    receiver.destroy();
    server.close();
  });
  return { sender, writes, received: () => received };
}

it("hands the writes of one turn to the kernel together, in order", async () => {
  const { sender, writes, received } = await socketPair();
  for (const frame of ["a", "b", "c"]) {
    holdWritesForTurn(sender);
    sender.write(frame);
  }
  // Read as it arrives: a fixed wait was too short on a busy machine.
  await expect.poll(received).toBe("abc");
  expect(writes).toEqual([["a", "b", "c"]]);
});

it("releases the writes when the turn ends, so later turns are sent on their own", async () => {
  const { sender, writes, received } = await socketPair();
  holdWritesForTurn(sender);
  sender.write("first");
  await expect.poll(received).toBe("first");
  holdWritesForTurn(sender);
  sender.write("second");
  await expect.poll(received).toBe("firstsecond");
  expect(writes).toEqual([["first"], ["second"]]);
});
