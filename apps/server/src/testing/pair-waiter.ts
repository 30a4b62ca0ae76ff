/** The waiting side of pairing in tests: the anonymous channel a new device listens on for the outcome. */
import { PAIRING_API, type PairServerMessage } from "@daysync/shared";
import WebSocket from "ws";

export class PairWaiter {
  readonly received: PairServerMessage[] = [];
  closeCode: number | undefined;
  closeReason: string | undefined;
  private readonly closed: Promise<number>;

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (raw) => this.received.push(JSON.parse(String(raw)) as PairServerMessage));
    this.closed = new Promise((resolve) =>
      socket.on("close", (code, reason) => {
        this.closeCode = code;
        this.closeReason = String(reason);
        resolve(code);
      }),
    );
  }

  /** Opens the channel and says which request it waits for. */
  static async open(baseUrl: string, requestId: string, secret: string): Promise<PairWaiter> {
    const waiter = await PairWaiter.connect(baseUrl);
    waiter.socket.send(JSON.stringify({ type: "wait", request_id: requestId, secret }));
    return waiter;
  }

  /** Opens the channel as the signed-in device (its session cookie) that watches its Add a device offer. */
  static async watch(baseUrl: string, offerId: string, cookie: string): Promise<PairWaiter> {
    const waiter = await PairWaiter.connect(baseUrl, cookie ? { cookie } : {});
    waiter.socket.send(JSON.stringify({ type: "watch", offer_id: offerId }));
    return waiter;
  }

  /** Opens the channel without saying anything on it yet. */
  static async connect(baseUrl: string, headers: Record<string, string> = {}): Promise<PairWaiter> {
    const socket = new WebSocket(`${baseUrl.replace("http", "ws")}${PAIRING_API.live}`, { headers });
    const waiter = new PairWaiter(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("unexpected-response", (_req, res) => reject(new Error(`pairing channel refused: ${res.statusCode}`)));
      socket.once("error", reject);
    });
    return waiter;
  }

  /** Resolves with the first message of that type; rejects after `timeoutMs`. */
  next<T extends PairServerMessage["type"]>(type: T, timeoutMs = 3000): Promise<Extract<PairServerMessage, { type: T }>> {
    return this.nextAfter(type, 0, timeoutMs);
  }

  /** The first message of that type from `index` on (a channel that sends a type more than once). */
  async nextAfter<T extends PairServerMessage["type"]>(
    type: T,
    index: number,
    timeoutMs = 3000,
  ): Promise<Extract<PairServerMessage, { type: T }>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.slice(index).find((m): m is Extract<PairServerMessage, { type: T }> => m.type === type);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no ${type} after ${index}; received ${JSON.stringify(this.received)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  waitForClose(timeoutMs = 3000): Promise<number> {
    return Promise.race([
      this.closed,
      new Promise<number>((_, reject) => setTimeout(() => reject(new Error("pairing channel did not close")), timeoutMs)),
    ]);
  }

  close() {
    this.socket.close();
  }
}
