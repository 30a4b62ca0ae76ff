import { defineConfig } from "vitest/config";

/**
 * A slow machine or CI sets DAYSYNC_TEST_TIME_SCALE (2, 3…) to give every wait more time. Hooks that start servers
 * get room for the start's own wait, which grows with the load (apps/server/src/testing/start-wait.ts, up to 4 minutes),
 * so a server that does not start fails with its output rather than as a hook timeout.
 */
const scale = Math.max(1, Number(process.env.DAYSYNC_TEST_TIME_SCALE) || 1);
const ms = (base: number) => Math.round(base * scale);

/** Bundles the server and the `daysync` command once before the workers start (fresh-bundle.ts keeps them current). */
const serverBundle = `${import.meta.dirname}/apps/server/src/testing/server-bundle.ts`;
const cliBundle = `${import.meta.dirname}/apps/cli/test/cli-bundle.ts`;

/**
 * The server's, the command's and the browser tests' files share their worker's modules rather than each loading them
 * again (the whole server, for most): that load was most of the server tests' CPU time (server project on two cores:
 * 196 s of CPU and 111 s before, 91 s and 58 s after). They can, as none mocks a module, stubs a global or fakes timers,
 * and each starts servers and browsers of its own; what a module keeps (caches of parsed user agents, prepared
 * statements) a running server keeps across requests too. Setup files and hooks still run for each file.
 */
const sharedModules = { isolate: false };

export default defineConfig({
  test: {
    // Most test files wait on servers, browsers and sockets rather than the CPU: three at once on two cores
    // (vitest's default there is one) keeps CI well under its time budget.
    maxWorkers: 3,
    // Closing the workers (each with its servers, browsers and sockets to end) took over vitest's 10 s on a busy
    // machine, which then printed "close timed out" and exited without waiting (issue 43).
    teardownTimeout: ms(60_000),
    reporters: ["default", ["json", { outputFile: "test-results.json" }]],
    projects: [
      { test: { name: "shared", root: "packages/shared", include: ["src/**/*.test.ts"] } },
      // The web app's own checks that need no browser (the feature walls).
      { test: { name: "web", root: "apps/web", include: ["test/**/*.test.ts"] } },
      // The browser extension's parts that need no browser (what it reads from input and from a menu click).
      { test: { name: "extension", root: "apps/extension", include: ["src/**/*.test.ts"] } },
      {
        test: {
          name: "live-client",
          root: "packages/live-client",
          include: ["src/**/*.test.ts"],
          testTimeout: ms(30_000),
          hookTimeout: ms(300_000),
        },
      },
      {
        // The send pipeline against a real server (apps/server/src/testing).
        test: {
          name: "send",
          root: "packages/send",
          include: ["src/**/*.test.ts"],
          testTimeout: ms(30_000),
          hookTimeout: ms(300_000),
        },
      },
      {
        test: {
          name: "server",
          root: "apps/server",
          include: ["src/**/*.test.ts"],
          ...sharedModules,
          globalSetup: [serverBundle],
          testTimeout: ms(30_000),
          hookTimeout: ms(300_000),
        },
      },
      {
        // The same server tests on PostgreSQL and Redis: each test server gets a database of its own on this
        // PostgreSQL (testing/pg-database.ts) and a key prefix of its own in this Redis, so files run side by side.
        test: {
          name: "server-pg",
          root: "apps/server",
          include: ["src/**/*.test.ts"],
          ...sharedModules,
          globalSetup: [serverBundle],
          testTimeout: ms(30_000),
          hookTimeout: ms(300_000),
          env: {
            DATABASE_URL: process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
            REDIS_URL: process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379",
          },
        },
      },
      {
        test: {
          name: "cli",
          root: "apps/cli",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          ...sharedModules,
          globalSetup: [cliBundle],
          setupFiles: ["./test/scratch-cleanup.ts"],
          testTimeout: ms(60_000),
          hookTimeout: ms(300_000),
        },
      },
      {
        test: {
          name: "e2e",
          root: "e2e",
          include: ["**/*.e2e.ts"],
          ...sharedModules,
          setupFiles: ["./support/policy-check.ts"],
          globalSetup: [serverBundle, cliBundle],
          testTimeout: ms(90_000),
          hookTimeout: ms(360_000),
          // Two browsers with their servers at a time, after the other projects (a group of its own).
          maxWorkers: 2,
          // On CI a browser test that fails gets one more try: on two shared cores a page can be starved past a
          // wait. A test that passes only the second time is named in the run's summary (scripts/test-summary.mjs).
          retry: process.env.CI ? 1 : 0,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
