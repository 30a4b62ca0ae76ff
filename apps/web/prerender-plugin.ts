/**
 * Writes login.html and register.html next to index.html: the page's HTML rendered at build time by
 * the server-side bundle of src/app/prerender.tsx (built first, see package.json), with the app
 * chunk's styles inlined and its code preloaded, so the form paints before any script has run.
 * Runs before the service worker is generated, so the pages are in its precache.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Plugin, Rolldown } from "vite";

type OutputBundle = Rolldown.OutputBundle;
type OutputChunk = Rolldown.OutputChunk;

type PrerenderModule = typeof import("./src/app/prerender.tsx");

/**
 * The chunks and every chunk they import statically, imported ones first (the order their styles
 * cascade in): what the page needs before it can hydrate.
 */
function staticGraph(bundle: OutputBundle, entries: OutputChunk[]): OutputChunk[] {
  const seen = new Set<string>();
  const ordered: OutputChunk[] = [];
  const visit = (chunk: OutputChunk) => {
    if (seen.has(chunk.fileName)) return;
    seen.add(chunk.fileName);
    for (const name of chunk.imports) {
      const imported = bundle[name];
      if (imported?.type === "chunk") visit(imported);
    }
    ordered.push(chunk);
  };
  for (const entry of entries) visit(entry);
  return ordered;
}

const ENTRY_SCRIPT = /\s*<script type="module" crossorigin src="\/([^"]+)"><\/script>/;
/**
 * The entry's static imports, which Vite preloads from the head: on these pages the loader below preloads them after
 * the paint, as a script fetched before it counts towards the first paint.
 */
const HEAD_MODULEPRELOAD = /\s*<link rel="modulepreload" crossorigin href="\/[^"]+">/g;

/**
 * The inline script (allowed by its hash, like every inline script of the build) that fetches the page's
 * code once the HTML has painted: after the next frame, or a second at the latest (a hidden tab gets no
 * frames). Module scripts do not block the paint, but when they arrive before it (from the service worker's
 * cache, or a fast network) their evaluation would run first; and Lighthouse counts any script that
 * finished loading before the paint as part of it.
 */
function paintThenLoad(entry: string, preloads: string[]): string {
  return [
    "(() => {",
    "  let started = false;",
    "  const start = () => {",
    "    if (started) return;",
    "    started = true;",
    `    for (const href of ${JSON.stringify(preloads)}) {`,
    '      const link = Object.assign(document.createElement("link"), { rel: "modulepreload", crossOrigin: "", href });',
    "      document.head.append(link);",
    "    }",
    `    const script = Object.assign(document.createElement("script"), { type: "module", crossOrigin: "", src: ${JSON.stringify(entry)} });`,
    "    document.head.append(script);",
    "  };",
    "  requestAnimationFrame(() => setTimeout(start));",
    "  setTimeout(start, 1000);",
    "})();",
  ].join("\n      ");
}

const stylesheetLink = (file: string) => new RegExp(`\\s*<link rel="stylesheet"[^>]*href="/${file.replaceAll(".", "\\.")}">`);

/** entries: the modules main.tsx imports to start the app, in order; ssrModule: the server-side bundle. */
export function prerenderPages({ entries, ssrModule }: { entries: string[]; ssrModule: string }): Plugin {
  let root = "";
  return {
    name: "daysync:prerender-pages",
    apply: "build",
    configResolved(config) {
      root = config.root;
    },
    async writeBundle(options, bundle) {
      const outDir = options.dir ?? path.join(root, "dist");
      const chunks = entries.map((entry) => {
        const entryPath = path.join(root, entry);
        const chunk = Object.values(bundle).find((file): file is OutputChunk => file.type === "chunk" && file.facadeModuleId === entryPath);
        if (!chunk) throw new Error(`prerender: no chunk for ${entry}`);
        return chunk;
      });
      const shell = await readFile(path.join(outDir, "index.html"), "utf8");
      if (!shell.includes('<div id="root"></div>')) throw new Error("prerender: index.html has no empty #root");
      const graph = staticGraph(bundle, chunks);
      // The styles are inlined: a few KiB that would otherwise each cost a round trip before the first paint.
      const styleFiles = [...new Set(graph.flatMap((chunk) => [...(chunk.viteMetadata?.importedCss ?? [])]))];
      const css = styleFiles.map((file) => {
        const asset = bundle[file];
        if (asset?.type !== "asset") throw new Error(`prerender: no stylesheet ${file}`);
        return String(asset.source);
      });
      const entryScript = shell.match(ENTRY_SCRIPT);
      if (!entryScript?.[1]) throw new Error("prerender: index.html has no entry script");
      const entryFile = entryScript[1];
      const page = styleFiles
        .reduce((html, file) => html.replace(stylesheetLink(file), ""), shell)
        .replace(entryScript[0], "")
        .replace(HEAD_MODULEPRELOAD, "");
      const preloads = graph.map((chunk) => chunk.fileName).filter((file) => file !== entryFile);
      const loader = `<script>${paintThenLoad(
        `/${entryFile}`,
        preloads.map((file) => `/${file}`),
      )}</script>`;
      // The app chunk's loader adds a stylesheet link for each of its CSS files unless the page has one. These
      // disabled links (never fetched, never applied) tell it the inlined copy is here: otherwise it would load
      // them again, and each arriving file would briefly reorder the rules and shift the page.
      const present = styleFiles.map((file) => `<link rel="stylesheet" href="/${file}" disabled>`);
      const head = [`<style>${css.join("")}</style>`, ...present].join("\n    ");

      const { PRERENDERED_PATHS, renderPage } = (await import(pathToFileURL(path.join(root, ssrModule)).href)) as PrerenderModule;
      for (const route of PRERENDERED_PATHS) {
        const markup = await renderPage(route);
        const html = page
          .replace("</head>", `\n    ${head}\n  </head>`)
          .replace('<div id="root"></div>', () => `<div id="root">${markup}</div>\n    ${loader}`);
        await writeFile(path.join(outDir, `${route.slice(1)}.html`), html);
      }
    },
  };
}
