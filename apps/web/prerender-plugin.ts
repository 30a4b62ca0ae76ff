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
 * The chunk and every chunk it imports statically, imported ones first (the order their styles
 * cascade in): what the page needs before it can hydrate.
 */
function staticGraph(bundle: OutputBundle, entry: OutputChunk): OutputChunk[] {
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
  visit(entry);
  return ordered;
}

const stylesheetLink = (file: string) => new RegExp(`\\s*<link rel="stylesheet"[^>]*href="/${file.replaceAll(".", "\\.")}">`);

export function prerenderPages({ entry, ssrModule }: { entry: string; ssrModule: string }): Plugin {
  let root = "";
  return {
    name: "daysync:prerender-pages",
    apply: "build",
    configResolved(config) {
      root = config.root;
    },
    async writeBundle(options, bundle) {
      const outDir = options.dir ?? path.join(root, "dist");
      const entryPath = path.join(root, entry);
      const app = Object.values(bundle).find((file): file is OutputChunk => file.type === "chunk" && file.facadeModuleId === entryPath);
      if (!app) throw new Error(`prerender: no chunk for ${entry}`);
      const shell = await readFile(path.join(outDir, "index.html"), "utf8");
      if (!shell.includes('<div id="root"></div>')) throw new Error("prerender: index.html has no empty #root");
      const graph = staticGraph(bundle, app);
      // The styles are inlined: a few KiB that would otherwise each cost a round trip before the first paint.
      const styleFiles = [...new Set(graph.flatMap((chunk) => [...(chunk.viteMetadata?.importedCss ?? [])]))];
      const css = styleFiles.map((file) => {
        const asset = bundle[file];
        if (asset?.type !== "asset") throw new Error(`prerender: no stylesheet ${file}`);
        return String(asset.source);
      });
      const page = styleFiles.reduce((html, file) => html.replace(stylesheetLink(file), ""), shell);
      // The entry script is in index.html already; the rest of the app's code is fetched alongside it.
      const preloads = graph
        .filter((chunk) => !shell.includes(chunk.fileName))
        .map((chunk) => `<link rel="modulepreload" crossorigin href="/${chunk.fileName}">`);
      // The app chunk's loader adds a stylesheet link for each of its CSS files unless the page has one. These
      // disabled links (never fetched, never applied) tell it the inlined copy is here: otherwise it would load
      // them again, and each arriving file would briefly reorder the rules and shift the page.
      const present = styleFiles.map((file) => `<link rel="stylesheet" href="/${file}" disabled>`);
      const head = [`<style>${css.join("")}</style>`, ...present, ...preloads].join("\n    ");

      const { PRERENDERED_PATHS, renderPage } = (await import(pathToFileURL(path.join(root, ssrModule)).href)) as PrerenderModule;
      for (const route of PRERENDERED_PATHS) {
        const markup = await renderPage(route);
        const html = page
          .replace("</head>", `\n    ${head}\n  </head>`)
          .replace('<div id="root"></div>', () => `<div id="root">${markup}</div>`);
        await writeFile(path.join(outDir, `${route.slice(1)}.html`), html);
      }
    },
  };
}
