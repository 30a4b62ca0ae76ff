/**
 * The web app's walls (issue 44), for every folder under src/features/ as it is today, not a list kept by hand:
 * no feature imports another feature or app/ (app/ assembles them), and lib/ imports neither; and only the sealing
 * boundary (lib/sealing/) imports @daysync/shared/crypto (the send pipeline, @daysync/send, seals for the outbox,
 * the upload queue and the share target); and a feature's views hold opened messages: only its data hooks import the
 * sealing boundary's opening of messages and files. Read from the import statements of the files themselves, dynamic
 * imports included.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../src");

const IMPORT = /(?:\bimport|\bexport)\s[^'"]*?\bfrom\s*["']([^"']+)["']|\bimport\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** "features/<name>", "app", "lib" or another top folder of src/ that a path lies in. */
function area(src: string, file: string): string {
  const [top, name] = path.relative(src, file).split(path.sep);
  return top === "features" && name ? `features/${name}` : (top ?? "");
}

/** Every import that crosses a wall, as "<file> imports <target>", relative to src/. */
export function wallBreaches(src: string): string[] {
  const breaches: string[] = [];
  const walled = [...sourceFiles(path.join(src, "features")), ...sourceFiles(path.join(src, "lib"))];
  for (const file of walled) {
    const from = area(src, file);
    for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3] ?? "";
      if (!specifier.startsWith(".")) continue;
      const to = area(src, path.resolve(path.dirname(file), specifier));
      const crosses = to === "app" || (to.startsWith("features/") && to !== from);
      if (crosses) breaches.push(`${path.relative(src, file)} imports ${path.relative(src, path.resolve(path.dirname(file), specifier))}`);
    }
  }
  return breaches;
}

const CRYPTO = "@daysync/shared/crypto";
const SEALING = `lib${path.sep}sealing${path.sep}`;
/** Every file of src/ outside the sealing boundary that imports the crypto package (the send pipeline seals in @daysync/send). */
export function cryptoImports(src: string): string[] {
  return sourceFiles(src)
    .map((file) => path.relative(src, file))
    .filter((file) => !file.startsWith(SEALING))
    .filter((file) =>
      [...readFileSync(path.join(src, file), "utf8").matchAll(IMPORT)].some((match) => {
        const specifier = match[1] ?? match[2] ?? match[3] ?? "";
        return specifier === CRYPTO || specifier.startsWith(`${CRYPTO}/`);
      }),
    )
    .map((file) => file.split(path.sep).join("/"));
}

/**
 * The modules of the sealing boundary that open what the server holds of messages and files. The key handshakes
 * (pairing, approval, recovery codes) hold no message, and their pages still call lib/sealing/ for them.
 */
const OPENING = ["opened-messages.ts", "sealed-files.ts"].map((name) => path.join("lib", "sealing", name));
/** A feature's data hook: a file under an `api/` folder, or named `use-*.ts`; every other file of a feature is a view. */
const isDataHook = (file: string) => file.split(path.sep).includes("api") || /^use-[^/\\]*\.ts$/.test(path.basename(file));

/** Every view of a feature that opens messages itself (imports an opening module of lib/sealing/), relative to src/. */
export function viewOpenings(src: string): string[] {
  return sourceFiles(path.join(src, "features"))
    .filter((file) => !isDataHook(path.relative(src, file)))
    .flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(IMPORT)]
        .map((match) => match[1] ?? match[2] ?? match[3] ?? "")
        .filter(
          (specifier) => specifier.startsWith(".") && OPENING.includes(path.relative(src, path.resolve(path.dirname(file), specifier))),
        )
        .map((specifier) => `${path.relative(src, file)} imports ${path.relative(src, path.resolve(path.dirname(file), specifier))}`),
    )
    .map((line) => line.split(path.sep).join("/"));
}

describe("web feature walls", () => {
  it("has features to wall", () => {
    expect(readdirSync(path.join(SRC, "features")).length).toBeGreaterThan(10);
  });

  it("no feature imports another feature or app/, and lib/ imports neither", () => {
    expect(wallBreaches(SRC)).toEqual([]);
  });

  it("finds a planted cross-feature import, a dynamic one, and lib/ reaching into a feature", () => {
    const src = mkdtempSync(path.join(tmpdir(), "walls-"));
    try {
      for (const dir of ["features/chat", "features/keys/deep", "lib", "app"]) mkdirSync(path.join(src, dir), { recursive: true });
      writeFileSync(path.join(src, "features/keys/deep/key.ts"), "export const key = 1;\n");
      writeFileSync(path.join(src, "features/chat/own.ts"), 'import { x } from "./other.ts";\nimport { y } from "../../lib/api.ts";\n');
      writeFileSync(
        path.join(src, "features/chat/view.tsx"),
        'import { key } from "../keys/deep/key.ts";\nconst later = () => import("../../app/routes.tsx");\n',
      );
      writeFileSync(path.join(src, "lib/api.ts"), 'export { key } from "../features/keys/deep/key.ts";\n');
      expect(wallBreaches(src)).toEqual([
        "features/chat/view.tsx imports features/keys/deep/key.ts",
        "features/chat/view.tsx imports app/routes.tsx",
        "lib/api.ts imports features/keys/deep/key.ts",
      ]);
    } finally {
      rmSync(src, { recursive: true, force: true });
    }
  });

  it("only lib/sealing/ imports @daysync/shared/crypto", () => {
    expect(cryptoImports(SRC)).toEqual([]);
  });

  it("finds a planted crypto import in a feature, in lib/ beside the boundary, in the worker and a dynamic one", () => {
    const src = mkdtempSync(path.join(tmpdir(), "walls-"));
    try {
      for (const dir of ["features/chat", "lib/sealing", "sw", "app"]) mkdirSync(path.join(src, dir), { recursive: true });
      const imports = 'import { openMessage } from "@daysync/shared/crypto";\n';
      writeFileSync(path.join(src, "features/chat/view.tsx"), imports);
      writeFileSync(path.join(src, "features/chat/clear.ts"), 'import { SEALED_TEXT } from "@daysync/shared";\n');
      writeFileSync(path.join(src, "lib/opened.ts"), 'export type { HeldEpochs } from "@daysync/shared/crypto";\n');
      writeFileSync(path.join(src, "lib/sealing/opened.ts"), imports);
      writeFileSync(path.join(src, "lib/upload-queue.ts"), imports);
      writeFileSync(path.join(src, "sw/push.ts"), imports);
      writeFileSync(path.join(src, "app/routes.tsx"), 'const later = () => import("@daysync/shared/crypto");\n');
      expect(cryptoImports(src).sort()).toEqual([
        "app/routes.tsx",
        "features/chat/view.tsx",
        "lib/opened.ts",
        "lib/upload-queue.ts",
        "sw/push.ts",
      ]);
    } finally {
      rmSync(src, { recursive: true, force: true });
    }
  });

  it("a feature's views hold opened messages: only its data hooks (api/, use-*.ts) import lib/sealing/'s opening", () => {
    expect(viewOpenings(SRC)).toEqual([]);
  });

  it("finds a planted opening in a view, a type-only one and a dynamic one, and lets the data hooks open", () => {
    const src = mkdtempSync(path.join(tmpdir(), "walls-"));
    try {
      for (const dir of ["features/chat/messages", "features/chat/api", "features/days/list", "lib/sealing"]) {
        mkdirSync(path.join(src, dir), { recursive: true });
      }
      writeFileSync(path.join(src, "lib/sealing/opened-messages.ts"), "export const useOpenedMessages = () => [];\n");
      writeFileSync(path.join(src, "lib/sealing/sealed-files.ts"), "export const sealedFileOf = () => undefined;\n");
      writeFileSync(
        path.join(src, "features/chat/messages/message-item.tsx"),
        'import { useShownText } from "../../../lib/sealing/opened-messages.ts";\n',
      );
      writeFileSync(
        path.join(src, "features/chat/messages/shown.ts"),
        'import type { Shown } from "../../../lib/sealing/opened-messages.ts";\n',
      );
      writeFileSync(
        path.join(src, "features/days/list/day-row.tsx"),
        'const later = () => import("../../../lib/sealing/sealed-files.ts");\n',
      );
      // A hook named like a view is a view: only `use-*.ts` (no JSX) is a data hook.
      writeFileSync(
        path.join(src, "features/chat/messages/use-row.tsx"),
        'import { sealedFileOf } from "../../../lib/sealing/sealed-files.ts";\n',
      );
      writeFileSync(
        path.join(src, "features/chat/messages/use-opened.ts"),
        'import { useOpenedMessages } from "../../../lib/sealing/opened-messages.ts";\n',
      );
      writeFileSync(
        path.join(src, "features/chat/api/day-messages.ts"),
        'export { useOpenedMessages } from "../../../lib/sealing/opened-messages.ts";\n',
      );
      writeFileSync(path.join(src, "features/chat/messages/keys.tsx"), 'import { other } from "../../../lib/sealing/device-keys.ts";\n');
      expect(viewOpenings(src).sort()).toEqual([
        "features/chat/messages/message-item.tsx imports lib/sealing/opened-messages.ts",
        "features/chat/messages/shown.ts imports lib/sealing/opened-messages.ts",
        "features/chat/messages/use-row.tsx imports lib/sealing/sealed-files.ts",
        "features/days/list/day-row.tsx imports lib/sealing/sealed-files.ts",
      ]);
    } finally {
      rmSync(src, { recursive: true, force: true });
    }
  });
});
