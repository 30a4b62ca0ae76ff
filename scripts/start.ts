/**
 * `npm start` (issue 43): builds the web app and the server quietly, printing the build's output only when it fails,
 * then runs the server, whose own start says where to open it in a few lines.
 */
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

process.stdout.write("Building the web app and the server…\n");
const build = spawnSync(npm, ["run", "build", "--silent"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
if (build.status !== 0) {
  process.stderr.write(`${build.stdout ?? ""}${build.stderr ?? ""}${build.error ? `${build.error.message}\n` : ""}`);
  process.stderr.write("The build failed: the output above says why.\n");
  process.exit(build.status ?? 1);
}

// As `npm run serve` runs it: the bundle the build made, with glibc's allocator giving back what each password hash
// took (docs/deploy.md, "Memory").
const server = spawn(process.execPath, [path.join(root, "apps/server/dist/server/main.mjs")], {
  cwd: root,
  env: {
    ...process.env,
    NODE_ENV: process.env.NODE_ENV ?? "production",
    MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? "1048576",
  },
  stdio: "inherit",
});
// Ctrl-C reaches the server from the terminal itself; a stop sent to this process alone is passed on.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
