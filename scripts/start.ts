/**
 * `npm start` (issue 43): builds the web app quietly, printing the build's output only when it fails, then runs the
 * server, whose own start says where to open it in a few lines.
 */
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

process.stdout.write("Building the web app…\n");
const build = spawnSync(npm, ["run", "build", "--silent"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
if (build.status !== 0) {
  process.stderr.write(`${build.stdout ?? ""}${build.stderr ?? ""}${build.error ? `${build.error.message}\n` : ""}`);
  process.stderr.write("The build failed: the output above says why.\n");
  process.exit(build.status ?? 1);
}

const server = spawn(process.execPath, ["--import", "tsx", path.join(root, "apps/server/src/main.ts")], {
  cwd: root,
  env: { ...process.env, NODE_ENV: process.env.NODE_ENV ?? "production" },
  stdio: "inherit",
});
// Ctrl-C reaches the server from the terminal itself; a stop sent to this process alone is passed on.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
