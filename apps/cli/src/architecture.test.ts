/**
 * The CLI's sealing boundary (issue 44): only src/sealing/ imports the crypto package; commands and the live printer
 * get opened text and domain steps from it. The send pipeline (sealing and sending a text or a file) is the other
 * holder until it moves into a package of its own. Read from the import statements, dynamic imports included.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = import.meta.dirname;
const CRYPTO = "@daysync/shared/crypto";
const BOUNDARY = "sealing";
/** The send pipeline: seals what it posts or uploads. */
const SEND_PIPELINE = ["sealed-send.ts", "upload.ts", "upload.test.ts"];

const IMPORT = /(?:\bimport|\bexport)\s[^'"]*?\bfrom\s*["']([^"']+)["']|\bimport\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** The files outside the boundary and the send pipeline that import the crypto package (or a file of it), relative to `src`. */
export function cryptoOutsideBoundary(src: string): string[] {
  return sourceFiles(src)
    .map((file) => path.relative(src, file).split(path.sep).join("/"))
    .filter((file) => !file.startsWith(`${BOUNDARY}/`) && !SEND_PIPELINE.includes(file))
    .filter((file) =>
      [...readFileSync(path.join(src, file), "utf8").matchAll(IMPORT)].some((match) => {
        const specifier = match[1] ?? match[2] ?? match[3] ?? "";
        return specifier === CRYPTO || specifier.startsWith(`${CRYPTO}/`);
      }),
    );
}

describe("CLI sealing boundary", () => {
  it("has a boundary", () => {
    expect(readdirSync(path.join(SRC, BOUNDARY)).length).toBeGreaterThan(5);
  });

  it("no file outside src/sealing/ and the send pipeline imports the crypto package", () => {
    expect(cryptoOutsideBoundary(SRC)).toEqual([]);
  });

  it("finds a planted crypto import in a command, a type-only one and a dynamic one, and lets the boundary's pass", () => {
    const src = mkdtempSync(path.join(tmpdir(), "cli-boundary-"));
    try {
      for (const dir of ["commands", BOUNDARY]) mkdirSync(path.join(src, dir));
      writeFileSync(path.join(src, "commands/devices.ts"), `import { securityCode } from "${CRYPTO}";\n`);
      writeFileSync(path.join(src, "commands/get.ts"), `import type { CryptoKey } from "${CRYPTO}";\n`);
      writeFileSync(path.join(src, "watch-printer.ts"), `const c = await import("${CRYPTO}");\n`);
      writeFileSync(path.join(src, "format.ts"), 'import { API } from "@daysync/shared";\n');
      writeFileSync(path.join(src, `${BOUNDARY}/message-keys.ts`), `import { openMessage } from "${CRYPTO}";\n`);
      writeFileSync(path.join(src, "sealed-send.ts"), `import { sealTextMessage } from "${CRYPTO}";\n`);
      expect(cryptoOutsideBoundary(src).sort()).toEqual(["commands/devices.ts", "commands/get.ts", "watch-printer.ts"]);
    } finally {
      rmSync(src, { recursive: true, force: true });
    }
  });
});
