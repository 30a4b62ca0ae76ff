/** The pairing channel's client against a socket the test plays the server on. */
import { setImmediate as nextTick } from "node:timers/promises";
import type { TypedPairingExchange } from "@daysync/shared";
import { describe, expect, it } from "vitest";
import type { LiveSocket } from "./live-client.ts";
import { openPairingChannel, type PairingChannelOutcome } from "./pairing-channel.ts";

class FakeSocket implements LiveSocket {
  readyState = 0;
  readonly sent: unknown[] = [];
  terminated = false;
  onopen: LiveSocket["onopen"] = null;
  onmessage: LiveSocket["onmessage"] = null;
  onclose: LiveSocket["onclose"] = null;
  onerror: LiveSocket["onerror"] = null;

  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close() {
    this.readyState = 3;
  }
  terminate() {
    this.terminated = true;
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(frame: Record<string, unknown> | string) {
    this.onmessage?.({ data: typeof frame === "string" ? frame : JSON.stringify(frame) });
  }
  fail(message: string, code = 1006) {
    this.onerror?.({ message });
    this.readyState = 3;
    this.onclose?.({ code, reason: "" });
  }
}

const REQUEST = { request_id: "0b6f3f8e-3f1c-4c5e-9a55-0a7f1d1e2b3c", secret: "s".repeat(43) };

const exchange = (status: TypedPairingExchange["status"], failures = 0): TypedPairingExchange => ({
  request_id: REQUEST.request_id,
  status,
  requester_public_key: "pk",
  requester_key_id: "kid",
  requester_share: "share",
  approver_public_key: null,
  approver_key_id: null,
  approver_share: null,
  approver_confirmation: null,
  requester_confirmation: null,
  handover_confirmation: null,
  failures,
  expires_at: 0,
});

function open(onExchange?: (exchange: TypedPairingExchange) => Promise<string | undefined>) {
  const socket = new FakeSocket();
  const outcomes: PairingChannelOutcome[] = [];
  const close = openPairingChannel({
    openSocket: () => socket,
    hello: { type: "wait", ...REQUEST },
    onOutcome: (outcome) => outcomes.push(outcome),
    onExchange,
  });
  return { socket, outcomes, close };
}

describe("pairing channel client", () => {
  it("says what it waits for once open, passes over waiting and frames outside the contract, and settles once", async () => {
    const { socket, outcomes } = open();
    expect(socket.sent).toEqual([]);
    socket.open();
    expect(socket.sent).toEqual([{ type: "wait", ...REQUEST }]);
    socket.receive({ type: "waiting" });
    socket.receive("not json");
    socket.receive({ type: "approved" });
    await nextTick();
    expect(outcomes).toEqual([]);
    socket.receive({ type: "approved", token: "t" });
    socket.receive({ type: "denied" });
    await nextTick();
    expect(outcomes).toEqual([{ type: "approved", token: "t" }]);
    expect(socket.terminated).toBe(true);
  });

  it("holds the server's outcome until the exchange steps before it are judged; a step that ends the request is said", async () => {
    const judged: number[] = [];
    let release = () => {};
    const { socket, outcomes } = open(async (step) => {
      judged.push(step.failures);
      if (step.failures < 3) return undefined;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return "Three wrong codes.";
    });
    socket.open();
    socket.receive({ type: "exchange", exchange: exchange("answered", 1) });
    socket.receive({ type: "exchange", exchange: exchange("failed", 3) });
    socket.receive({ type: "failed" });
    await nextTick();
    expect(judged).toEqual([1, 3]);
    expect(outcomes).toEqual([]);
    release();
    await nextTick();
    expect(outcomes).toEqual([{ type: "ended", text: "Three wrong codes." }]);
  });

  it("a channel that closes first settles as closed, with its code and what its error said", async () => {
    const { socket, outcomes } = open();
    socket.open();
    socket.fail("connect ECONNREFUSED");
    await nextTick();
    expect(outcomes).toEqual([{ type: "closed", code: 1006, error: "connect ECONNREFUSED" }]);
  });

  it("closed by its opener, it says nothing more", async () => {
    const { socket, outcomes, close } = open();
    socket.open();
    close();
    expect(socket.terminated).toBe(true);
    socket.receive({ type: "denied" });
    await nextTick();
    expect(outcomes).toEqual([]);
  });
});
