/**
 * What the command line keeps between runs, in the user's config directory (mode 700; files mode 600):
 * the session token per server, where `watch` stopped per account, the URLs of unfinished uploads, and this
 * terminal's keys per server (decision 020: its key pair and the account's epoch keys it opened), and the highest
 * key generation it took of each encrypted discussion (issue 45; the room keys themselves are kept by the server, sealed).
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import envPaths from "env-paths";
import { z } from "zod";

/** DAYSYNC_CONFIG_DIR wins; otherwise the platform's place ($XDG_CONFIG_HOME/daysync, ~/Library/Preferences/daysync, %APPDATA%\daysync\Config). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.DAYSYNC_CONFIG_DIR || envPaths("daysync", { suffix: "" }).config;
}

const sessionSchema = z.object({
  token: z.string().min(1),
  user: z.object({ id: z.string(), name: z.string(), email: z.string() }),
  signed_in_at: z.number(),
});
export type StoredSession = z.infer<typeof sessionSchema>;

const sessionsFileSchema = z.object({
  /** The server of the last sign-in: used when neither --server nor DAYSYNC_SERVER names one. */
  default_server: z.string().optional(),
  servers: z.record(z.string(), sessionSchema).default({}),
});
type SessionsFile = z.infer<typeof sessionsFileSchema>;

const watchFileSchema = z.record(
  z.string(),
  z.object({
    /** The last sequence number `watch` handled. */
    seq: z.number().int().nonnegative(),
    /** Creation time of the last message it handled: the catch-up point after a `reset`. */
    last_message_at: z.number().default(0),
  }),
);
export type WatchPosition = z.infer<typeof watchFileSchema>[string];

const storedUploadSchema = z.object({
  size: z.number().nullable(),
  metadata: z.record(z.string(), z.string()),
  creationTime: z.string(),
  urlStorageKey: z.string(),
  uploadUrl: z.string().nullable(),
  parallelUploadUrls: z.array(z.string()).nullable().default(null),
});
export type StoredUpload = z.infer<typeof storedUploadSchema>;
const uploadsFileSchema = z.record(z.string(), storedUploadSchema);

const storedKeysSchema = z.object({
  user_id: z.string(),
  key_id: z.string(),
  /** PKCS#8 and raw public key, base64url. */
  private_key: z.string(),
  public_key: z.string(),
  /** Opened epoch keys by epoch number, base64url. */
  epochs: z.record(z.string(), z.string()).default({}),
  /** How this terminal numbers what it sends (`send-numbers-file.ts`); reset with the pair. */
  numbers: z
    .object({
      next: z.number().int().positive(),
      dates: z.record(z.string(), z.number().int().nonnegative()),
      given: z.array(
        z.object({ id: z.string(), n: z.number().int(), date: z.string(), d: z.number().int(), stored: z.boolean().optional() }),
      ),
    })
    .optional(),
  /** The account's encryption state as this terminal saw it (`AccountState`): absent until it saw the account keyed. */
  account: z
    .object({
      keyed_at: z.number(),
      highest_epoch: z.number().int().nonnegative(),
      removed_key_ids: z.array(z.string()).default([]),
      /** The signed device list's head this terminal last verified (docs/protocol/encryption.md, "Signed device list"). */
      list_head: z.object({ seq: z.number().int().nonnegative(), hash: z.string() }).optional(),
    })
    .optional(),
  /** This terminal's Ed25519 signing key for the signed device list: the 32-byte secret, base64url. */
  signing_key: z.string().optional(),
});
export type StoredKeys = z.infer<typeof storedKeysSchema>;
const keysFileSchema = z.record(z.string(), storedKeysSchema);

/** Per "<server> <room id>": the highest key generation this terminal took of an encrypted discussion (never lowered). */
const roomsFileSchema = z.record(z.string(), z.object({ highest: z.number().int().nonnegative() }));

export class ConfigStore {
  constructor(readonly dir: string) {}

  private file(name: string) {
    return path.join(this.dir, name);
  }

  private read<T>(name: string, schema: z.ZodType<T>, empty: T): T {
    let text: string;
    try {
      text = readFileSync(this.file(name), "utf8");
    } catch {
      return empty;
    }
    try {
      return schema.parse(JSON.parse(text));
    } catch {
      // A damaged file is started afresh rather than blocking every command.
      return empty;
    }
  }

  /** Written whole to a temporary file and renamed, so a crash never leaves half a file. */
  private write(name: string, value: unknown) {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const temporary = `${this.file(name)}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.file(name));
  }

  private sessions(): SessionsFile {
    return this.read("session.json", sessionsFileSchema, { servers: {} });
  }

  defaultServer(): string | undefined {
    return this.sessions().default_server;
  }

  session(server: string): StoredSession | undefined {
    return this.sessions().servers[server];
  }

  saveSession(server: string, session: StoredSession) {
    const file = this.sessions();
    this.write("session.json", { default_server: server, servers: { ...file.servers, [server]: session } });
  }

  deleteSession(server: string) {
    const file = this.sessions();
    const { [server]: _gone, ...servers } = file.servers;
    const default_server = file.default_server === server ? undefined : file.default_server;
    if (Object.keys(servers).length === 0 && !default_server) rmSync(this.file("session.json"), { force: true });
    else this.write("session.json", { default_server, servers });
  }

  watchPosition(key: string): WatchPosition | undefined {
    return this.read("watch.json", watchFileSchema, {})[key];
  }

  saveWatchPosition(key: string, position: WatchPosition) {
    this.write("watch.json", { ...this.read("watch.json", watchFileSchema, {}), [key]: position });
  }

  /** Unfinished uploads by key (tus-js-client's URL storage), so the same command resumes them. */
  uploads(): Record<string, StoredUpload> {
    return this.read("uploads.json", uploadsFileSchema, {});
  }

  saveUploads(uploads: Record<string, StoredUpload>) {
    if (Object.keys(uploads).length === 0) rmSync(this.file("uploads.json"), { force: true });
    else this.write("uploads.json", uploads);
  }

  keys(server: string): StoredKeys | undefined {
    return this.read("keys.json", keysFileSchema, {})[server];
  }

  saveKeys(server: string, keys: StoredKeys) {
    this.write("keys.json", { ...this.read("keys.json", keysFileSchema, {}), [server]: keys });
  }

  /** The highest generation of discussion `roomId` on `server` this terminal held, if it ever read it. */
  roomGeneration(server: string, roomId: string): number | undefined {
    return this.read("rooms.json", roomsFileSchema, {})[`${server} ${roomId}`]?.highest;
  }

  saveRoomGeneration(server: string, roomId: string, highest: number) {
    this.write("rooms.json", { ...this.read("rooms.json", roomsFileSchema, {}), [`${server} ${roomId}`]: { highest } });
  }

  deleteKeys(server: string) {
    const { [server]: _gone, ...rest } = this.read("keys.json", keysFileSchema, {});
    if (Object.keys(rest).length === 0) rmSync(this.file("keys.json"), { force: true });
    else this.write("keys.json", rest);
  }
}
