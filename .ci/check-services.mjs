// CI: the server suite also runs on PostgreSQL and Redis; when either does not answer, fail here, loudly,
// instead of letting tests skip or time out. Node only, no client binaries needed.
import net from "node:net";
import pg from "pg";

const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const TIMEOUT_MS = 5000;

async function checkPostgres() {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: TIMEOUT_MS });
  try {
    await client.connect();
    await client.query("select 1");
  } finally {
    await client.end().catch(() => {});
  }
}

function checkRedis() {
  const { hostname, port } = new URL(REDIS_URL);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) });
    socket.setTimeout(TIMEOUT_MS, () => socket.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => {
      socket.end();
      const reply = String(data).trim();
      if (reply === "+PONG") resolve();
      else reject(new Error(`answered ${JSON.stringify(reply)} to PING`));
    });
    socket.once("error", reject);
  });
}

let failed = false;
for (const [name, url, check] of [
  ["PostgreSQL", POSTGRES_URL, checkPostgres],
  ["Redis", REDIS_URL, checkRedis],
]) {
  try {
    await check();
    console.log(`${name} answers at ${url}`);
  } catch (error) {
    failed = true;
    console.error(`${name} does not answer at ${url}: ${error instanceof Error ? error.message : error}`);
  }
}
if (failed) {
  console.error("The server suite runs on SQLite and on PostgreSQL with Redis: start both services, then run CI again.");
  process.exit(1);
}
