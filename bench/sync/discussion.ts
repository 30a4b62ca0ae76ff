/**
 * One discussion of `members` members (issue 45), each its own user with `memberDevices` live devices: the same sends
 * into a discussion in clear and into an encrypted one (a room) of the same members, on the same sockets, and into the
 * bare relay fanning out to as many sockets, in alternating rounds. Timed from the send to the
 * `discussion.message.created` frame at every other member's devices. An encrypted text is sealed here, in the load
 * generator, before the window whose CPU counts (`Target.prepare`); its cost is reported apart.
 */
import os from "node:os";
import { API, DISCUSSIONS_API, type DiscussionDetails, formatStoredDate, formatStoredTime } from "@daysync/shared";
import { type RoomSender, roomSender, sealRoomText } from "@daysync/shared/crypto";
import { createRoomThroughApi, linkJoinThroughApi, type Poster } from "../../apps/server/src/testing/room-client.ts";
import { serverUsers } from "./accounts.ts";
import { type BenchUser, connect, type Device, sendRound, Tally, type Target } from "./load.ts";
import { type Measured, sumStats } from "./processes.ts";
import { ratio, round, spread } from "./ratios.ts";
import { runStamp } from "./results-file.ts";
import type { Servers } from "./servers.ts";

export interface DiscussionOptions {
  members: number;
  memberDevices: number;
  rate: number;
  seconds: number;
  warmupSeconds: number;
  rounds: number;
}

type RoundResult = Awaited<ReturnType<typeof sendRound>> & { load_1m: number };

const cpuNow = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/** A member's first device, as the room helpers post with it. */
function poster(url: string, cookie: string): Poster {
  return {
    async post<T>(path: string, body?: unknown): Promise<{ status: number; body: T }> {
      const res = await fetch(url + path, {
        method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify(body ?? {}),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
    },
  };
}

const expectStatus = (res: { status: number; body: unknown }, statuses: number[], what: string) => {
  if (!statuses.includes(res.status)) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
};

/** Member 0 creates both discussions through the API; every other member joins each (the room by its link). */
async function makeDiscussions(url: string, members: BenchUser[]) {
  const devices = members.map((m) => poster(url, m.cookies[0] ?? ""));
  const name = (i: number) => `Member ${i}`;
  const [creator, ...others] = devices;
  if (!creator) throw new Error("no members");
  const clear = await creator.post<DiscussionDetails>(DISCUSSIONS_API.list, { title: "Bench in clear", display_name: name(0) });
  expectStatus(clear, [201], "create the discussion in clear");
  const room = await createRoomThroughApi(creator, name(0), "Bench room");
  expectStatus(room.res, [201], "create the encrypted discussion");
  const senders: RoomSender[] = [];
  const holdings = [room.holding];
  for (const [i, device] of others.entries()) {
    expectStatus(
      await device.post(DISCUSSIONS_API.join(clear.body.discussion.public_id), { display_name: name(i + 1) }),
      [201],
      "join in clear",
    );
    // One after another: each join adds to the room's chain of entries, which the next joiner checks.
    const joined = await linkJoinThroughApi(device, room.res.body.public_id, room.holding, name(i + 1));
    expectStatus(joined.res, [201], "join the room by its link");
    if (!joined.holding) throw new Error("the room's answer to a join did not verify");
    holdings.push(joined.holding);
  }
  for (const holding of holdings) senders.push(roomSender(holding, holding.highest));
  return { clearId: clear.body.discussion.id, roomId: room.res.body.id, senders };
}

/** Seals each send's text ahead (send k from member k % members), timing the load generator's sealing. */
function sealedMessages(senders: RoomSender[]) {
  const bodies = new Map<number, { id: string; body: string }>();
  const cost = { messages: 0, wall_ms: 0, cpu_ms: 0 };
  return {
    cost,
    message(k: number) {
      const made = bodies.get(k);
      if (!made) throw new Error(`send ${k} was not sealed ahead`);
      bodies.delete(k);
      return made;
    },
    async prepare(first: number, count: number) {
      const started = performance.now();
      const cpu = cpuNow();
      for (let k = first; k < first + count; k += 100) {
        await Promise.all(
          Array.from({ length: Math.min(100, first + count - k) }, async (_, j) => {
            const sender = senders[(k + j) % senders.length] as RoomSender;
            const now = new Date();
            const id = crypto.randomUUID();
            const typed = { id, content: `bench ${id}`, date: formatStoredDate(now), time: formatStoredTime(now) };
            const sealed = await sealRoomText(sender, typed);
            bodies.set(k + j, { id, body: JSON.stringify({ ...sealed, sender_key_id: sender.memberKeyId }) });
          }),
        );
      }
      cost.messages += count;
      cost.wall_ms += performance.now() - started;
      cost.cpu_ms += cpuNow() - cpu;
    },
  };
}

/** Sets up the members and both discussions, runs the warm-up and the rounds; the run's figures for the results file. */
export async function discussionRun(servers: Servers, relay: Measured, options: DiscussionOptions) {
  const loadBefore = os.loadavg();
  const started = Date.now();
  const processes = servers.processes;
  const at = (i: number) => (processes[i % processes.length] ?? processes[0])?.url ?? "";
  const members = await serverUsers(at(0), options.members, options.memberDevices, "member");
  const { clearId, roomId, senders } = await makeDiscussions(at(0), members);
  const setupSeconds = round((Date.now() - started) / 1000, 1);
  console.error(`${options.members} members in both discussions in ${setupSeconds} s`);
  const sealing = sealedMessages(senders);
  const server = {
    stats: async (o?: { gc?: boolean }) => sumStats(await Promise.all(processes.map((p) => p.stats(o)))),
    profile: (step: "start" | "stop") => {
      for (const p of processes) p.profile(step);
    },
    users: members,
    // Member m's device d on process (m × devices + d) mod N: with several processes a discussion spans them.
    liveUrl: (user: BenchUser, device: number) =>
      `${at(members.indexOf(user) * options.memberDevices + device).replace("http", "ws")}${API.live}`,
    sendUrl: (k: number) => at(k),
    discussion: true,
  };
  const clear: Target = { ...server, name: "clear", sendPath: () => DISCUSSIONS_API.messages(clearId) };
  const room: Target = {
    ...server,
    name: "room",
    sendPath: () => DISCUSSIONS_API.messages(roomId),
    message: sealing.message,
    prepare: sealing.prepare,
  };
  // The relay's sockets all join one made-up user, so each send reaches every one of them, as a discussion's does.
  const bare: Target = {
    name: "relay",
    stats: (o) => relay.stats(o),
    profile: (step) => relay.profile(step),
    users: members.map((_, i) => ({ id: `m${i}`, cookies: Array.from({ length: options.memberDevices }, () => "") })),
    liveUrl: () => `${relay.url.replace("http", "ws")}/live?user=discussion`,
    sendUrl: () => relay.url,
    sendPath: () => "/send?user=discussion",
    discussion: true,
  };
  // Clear and room share the server's devices (one socket per device, in both discussions) and so one tally.
  const serverTally = new Tally();
  const relayTally = new Tally();
  const tallyOf = (target: Target) => (target === bare ? relayTally : serverTally);
  const sockets: Device[] = [...(await connect(clear, serverTally)), ...(await connect(bare, relayTally))];
  const sent = new Map<Target, number>([
    [clear, 0],
    [room, 0],
    [bare, 0],
  ]);
  // With --profile-dir: each target's first measured round is profiled (server-0-1 clear, server-0-2 room, relay-1).
  const send = async (target: Target, seconds: number, profile = false): Promise<RoundResult> => {
    const load = os.loadavg()[0] ?? 0;
    const first = sent.get(target) ?? 0;
    const result = await sendRound(target, tallyOf(target), { rate: options.rate, seconds, first, profile });
    sent.set(target, (sent.get(target) ?? 0) + result.messages);
    return { ...result, load_1m: round(load) };
  };
  const warmup: Record<string, RoundResult> = {};
  for (const target of [clear, room, bare]) {
    console.error(`${target.name}: warm-up`);
    warmup[target.name] = await send(target, options.warmupSeconds);
  }
  const rounds: Record<string, RoundResult[]> = { clear: [], room: [], relay: [] };
  for (let i = 0; i < options.rounds; i++) {
    // Clear and room take turns going first, so neither always runs right after the relay or the other.
    for (const target of i % 2 ? [room, clear, bare] : [clear, room, bare]) {
      console.error(`${target.name}: round ${i + 1} of ${options.rounds}`);
      rounds[target.name]?.push(await send(target, options.seconds, i === 0));
    }
  }
  for (const device of sockets) device.ws.terminate();
  const each = (name: string) => rounds[name] ?? [];
  const pairs = (of: string, to: string, get: (r: RoundResult) => number) =>
    spread(each(of).map((r, i) => ratio(get(r), get(each(to)[i] as RoundResult))));
  const ratios = (of: string, to: string) => ({
    cpu_per_message: pairs(of, to, (r) => r.cpu_ms_per_message),
    latency_p99: pairs(of, to, (r) => r.latency_ms.p99),
  });
  const totals = (tally: Tally) => ({
    sender_echoes: tally.senderEchoes,
    duplicates: tally.duplicates,
    out_of_order: tally.outOfOrder,
  });
  return {
    ...runStamp(loadBefore),
    settings: {
      ...servers.setup,
      members: options.members,
      member_devices: options.memberDevices,
      rate_per_s: options.rate,
      seconds: options.seconds,
      warmup_seconds: options.warmupSeconds,
      rounds: options.rounds,
    },
    setup_s: setupSeconds,
    /** The load generator's sealing of the room's texts, done ahead of each window (not in the server's figures). */
    sealing: {
      messages: sealing.cost.messages,
      wall_ms_per_message: round(sealing.cost.wall_ms / Math.max(1, sealing.cost.messages), 3),
      cpu_ms_per_message: round(sealing.cost.cpu_ms / Math.max(1, sealing.cost.messages), 3),
    },
    warmup,
    rounds,
    /** After the last round: everything sent to the server (both discussions) and to the relay. */
    totals: { server: totals(serverTally), relay: totals(relayTally) },
    /** Round by round (same round's pair), median and min to max. */
    ratios: { room_to_clear: ratios("room", "clear"), room_to_relay: ratios("room", "relay"), clear_to_relay: ratios("clear", "relay") },
  };
}
