/** A socket the test plays the server on, and a live client over it with what it reported; the clock is the test's. */
import { setImmediate as nextTick } from "node:timers/promises";
import type { ClientLiveMessage, LiveEvent, ServerLiveMessage } from "@daysync/shared";
import { LiveClient, type LiveHandlers, type LiveSocket, type LiveStatus, type LostConnection } from "../live-client.ts";

export class FakeSocket implements LiveSocket {
  readyState = 0;
  readonly sent: ClientLiveMessage[] = [];
  closedWith: number | undefined;
  onopen: LiveSocket["onopen"] = null;
  onmessage: LiveSocket["onmessage"] = null;
  onclose: LiveSocket["onclose"] = null;
  onerror: LiveSocket["onerror"] = null;

  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close(code = 1005) {
    this.closedWith = code;
    this.readyState = 3;
  }
  // What the server and the network do:
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(frame: ServerLiveMessage | Record<string, unknown> | string) {
    this.onmessage?.({ data: typeof frame === "string" ? frame : JSON.stringify(frame) });
  }
  serverClose(code: number, reason = "") {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
}

export const deleted = (id: string): LiveEvent => ({ kind: "messages.deleted", ids: [id] });
export const event = (seq: number, id = `m${seq}`): ServerLiveMessage => ({ type: "event", seq, event: deleted(id) });

/** Lets the client's queue of frames run. */
export async function settle() {
  for (let i = 0; i < 5; i++) await nextTick();
}

export function setUp(
  options: { position?: number; handlers?: Partial<LiveHandlers>; random?: () => number; online?: () => boolean } = {},
) {
  const sockets: FakeSocket[] = [];
  const position = { value: options.position ?? 0 };
  const seen = {
    handled: [] as Array<{ seq: number; live: boolean }>,
    lost: [] as LostConnection[],
    statuses: [] as LiveStatus[],
    signedOut: 0,
    errors: [] as unknown[],
  };
  const client = new LiveClient({
    openSocket: () => {
      const socket = new FakeSocket();
      sockets.push(socket);
      return socket;
    },
    position: {
      get: () => position.value,
      set: (seq) => {
        position.value = seq;
      },
    },
    canConnect: options.online,
    random: options.random ?? (() => 1),
    handlers: {
      onEvent: (_event, { seq, live }) => void seen.handled.push({ seq, live }),
      onLost: (lost) => void seen.lost.push(lost),
      onStatus: (status) => void seen.statuses.push(status),
      onSignedOut: () => void seen.signedOut++,
      onError: (error) => void seen.errors.push(error),
      ...options.handlers,
    },
  });
  const latest = () => {
    const socket = sockets.at(-1);
    if (!socket) throw new Error("no socket opened");
    return socket;
  };
  return Object.assign(seen, { client, sockets, latest, position });
}

export type Setup = ReturnType<typeof setUp>;

/** Opens the latest socket and answers its resume with `ready` at `seq`. */
export async function connectReady(setup: Setup, seq: number) {
  setup.latest().open();
  await settle();
  setup.latest().receive({ type: "ready", seq });
  await settle();
}

export function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
