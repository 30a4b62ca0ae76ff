/** The event bus between processes: one Redis channel per topic, and each process fans a message out to its own listeners. */
import type { Redis } from "ioredis";
import { busTopicSchemas, createLocalFanOut, type EventBus, type Topic } from "./event-bus.ts";

/** Every topic, so the subscriber joins all channels before the bus is used (none is joined late). */
const TOPICS = Object.keys(busTopicSchemas).filter((name): name is Topic => name in busTopicSchemas);

/** Reads a message of `topic` back through its schema: another process (or anything that can publish) wrote it. */
function parse<T extends Topic>(topic: T, message: string) {
  return busTopicSchemas[topic].parse(JSON.parse(message));
}

export async function createRedisBus(options: {
  publisher: Redis;
  /** A connection of its own: one in subscriber mode can send nothing else. */
  subscriber: Redis;
  prefix: string;
  onError: (error: unknown) => void;
}): Promise<EventBus> {
  const { publisher, subscriber, prefix } = options;
  const local = createLocalFanOut();
  const reconnectListeners = new Set<() => void>();
  const channelOf = (topic: Topic) => `${prefix}bus:${topic}`;
  const topicOf = new Map(TOPICS.map((topic) => [channelOf(topic), topic]));

  subscriber.on("message", (channel: string, message: string) => {
    const topic = topicOf.get(channel);
    if (!topic) return;
    try {
      local.emit(topic, parse(topic, message));
    } catch (error) {
      options.onError(error);
    }
  });
  await subscriber.subscribe(...TOPICS.map(channelOf));
  // Messages published while the connection was down are gone: listeners look at the database again.
  let connected = true;
  subscriber.on("close", () => {
    connected = false;
  });
  subscriber.on("ready", () => {
    if (connected) return;
    connected = true;
    for (const listener of reconnectListeners) listener();
  });

  return {
    publish(topic, payload) {
      publisher.publish(channelOf(topic), JSON.stringify(payload)).catch(options.onError);
    },
    subscribe: (topic, listener) => local.add(topic, listener),
    onReconnect(listener) {
      reconnectListeners.add(listener);
      return () => reconnectListeners.delete(listener);
    },
    async close() {
      local.clear();
      reconnectListeners.clear();
    },
  };
}
