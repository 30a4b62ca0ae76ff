/**
 * Reads by key where the keys asked for in one turn of the event loop go to the database as one statement. A restart
 * brings thousands of resumes within seconds, each with a session to look up and a sequence to read, and on
 * PostgreSQL each statement is a round trip (and a system call) of its own.
 */
const MAX_KEYS_PER_READ = 500;

export type BatchedRead<V> = (key: string) => Promise<V | undefined>;

/** `readMany` answers the keys it found; a key it leaves out is answered `undefined`. */
export function batchedReads<V>(readMany: (keys: string[]) => Promise<Map<string, V>>): BatchedRead<V> {
  let waiting = new Map<string, Array<{ resolve: (value: V | undefined) => void; reject: (error: unknown) => void }>>();

  async function read(keys: string[], asked: typeof waiting): Promise<void> {
    try {
      const found = await readMany(keys);
      for (const key of keys) for (const w of asked.get(key) ?? []) w.resolve(found.get(key));
    } catch (error) {
      for (const key of keys) for (const w of asked.get(key) ?? []) w.reject(error);
    }
  }

  function flush(): void {
    const asked = waiting;
    waiting = new Map();
    const keys = [...asked.keys()];
    for (let i = 0; i < keys.length; i += MAX_KEYS_PER_READ) void read(keys.slice(i, i + MAX_KEYS_PER_READ), asked);
  }

  return (key) =>
    new Promise<V | undefined>((resolve, reject) => {
      if (waiting.size === 0) setImmediate(flush);
      const waiters = waiting.get(key) ?? [];
      waiters.push({ resolve, reject });
      waiting.set(key, waiters);
    });
}
