import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    reporters: ["default", ["json", { outputFile: "test-results.json" }]],
    projects: [
      { test: { name: "shared", root: "packages/shared", include: ["src/**/*.test.ts"] } },
      {
        test: {
          name: "server",
          root: "apps/server",
          include: ["src/**/*.test.ts"],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: "cli",
          root: "apps/cli",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: "e2e",
          root: "e2e",
          include: ["**/*.e2e.ts"],
          setupFiles: ["./support/policy-check.ts"],
          testTimeout: 90_000,
          hookTimeout: 90_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
