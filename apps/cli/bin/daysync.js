#!/usr/bin/env node
// The `daysync` command. In the repository it runs the TypeScript source through tsx; a packed copy
// (npm pack, which builds dist/ first) runs the bundle instead.
import { existsSync } from "node:fs";

const source = new URL("../src/main.ts", import.meta.url);
if (existsSync(source)) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(source.href);
} else {
  await import("../dist/daysync.js");
}
