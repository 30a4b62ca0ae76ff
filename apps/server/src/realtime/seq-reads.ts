/**
 * The current sequence number of a user, for a replay: the reads asked for in one turn of the event loop go to the
 * database as one statement. A restart brings thousands of resumes within seconds, and on PostgreSQL each statement
 * is a round trip (and a system call) of its own.
 */
const MAX_USERS_PER_READ = 500;

export type CurrentSeq = (userId: string) => Promise<number>;

export function batchedCurrentSeq(currentSeqs: (userIds: string[]) => Promise<Map<string, number>>): CurrentSeq {
  let waiting = new Map<string, Array<{ resolve: (seq: number) => void; reject: (error: unknown) => void }>>();

  async function read(userIds: string[], asked: typeof waiting): Promise<void> {
    try {
      const seqs = await currentSeqs(userIds);
      for (const id of userIds) for (const w of asked.get(id) ?? []) w.resolve(seqs.get(id) ?? 0);
    } catch (error) {
      for (const id of userIds) for (const w of asked.get(id) ?? []) w.reject(error);
    }
  }

  function flush(): void {
    const asked = waiting;
    waiting = new Map();
    const userIds = [...asked.keys()];
    for (let i = 0; i < userIds.length; i += MAX_USERS_PER_READ) void read(userIds.slice(i, i + MAX_USERS_PER_READ), asked);
  }

  return (userId) =>
    new Promise<number>((resolve, reject) => {
      if (waiting.size === 0) setImmediate(flush);
      const waiters = waiting.get(userId) ?? [];
      waiters.push({ resolve, reject });
      waiting.set(userId, waiters);
    });
}
