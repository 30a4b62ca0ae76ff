/**
 * The extension's build: its pages (setup, popup) and its background service worker as ES modules in `dist/`, the
 * manifest from `public/`, and the web app's icons (one set for both). `scripts/zip.mjs` packs `dist/` afterwards.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const ICONS = ["icon-192.png", "icon-512.png"];

/** The web app's icons, copied into the extension as they are. */
const webIcons = (): Plugin => ({
  name: "daysync-web-icons",
  generateBundle() {
    for (const name of ICONS) this.emitFile({ type: "asset", fileName: name, source: readFileSync(here(`../web/public/icons/${name}`)) });
  },
});

export default defineConfig({
  plugins: [webIcons()],
  base: "./",
  resolve: {
    // Node's crypto is never reached in a browser (see the web app's stub, shared here).
    alias: [{ find: /^(node:)?crypto$/, replacement: here("../web/src/node-crypto-stub.ts") }],
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // The store reviews readable code; the bundles stay small without minifying.
    minify: false,
    modulePreload: false,
    rollupOptions: {
      input: {
        setup: here("setup.html"),
        popup: here("popup.html"),
        offscreen: here("offscreen.html"),
        background: here("src/background/service-worker.ts"),
      },
      output: { entryFileNames: (chunk) => (chunk.name === "background" ? "background.js" : "assets/[name]-[hash].js") },
    },
  },
});
