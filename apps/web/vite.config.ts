import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { prerenderPages } from "./prerender-plugin.ts";
import { pwa } from "./pwa.config.ts";

const serverPort = process.env.PORT ?? "8080";
/** Where `build:prerender` puts the server-side bundle that the client build renders pages with. */
const PRERENDER_DIR = ".prerender";
/** What main.tsx imports, stage by stage, to start the app: the prerendered pages fetch them all at once. */
const START_UP_MODULES = ["src/app/start-up/schemas.ts", "src/app/start-up/libraries.ts", "src/app/app.tsx"];

export default defineConfig(({ isSsrBuild }) => ({
  plugins: isSsrBuild
    ? [react()]
    : [react(), prerenderPages({ entries: START_UP_MODULES, ssrModule: `${PRERENDER_DIR}/prerender.js` }), pwa],
  resolve: {
    // react-toastify's default build injects its stylesheet from script as the container mounts, in the middle
    // of hydration; the unstyled build with the same stylesheet imported (app-shell-route.tsx) ships it as CSS.
    alias: [
      { find: /^react-toastify$/, replacement: "react-toastify/unstyled" },
      // In the browser (and its service worker) Node's crypto is never reached: see the stub.
      ...(isSsrBuild
        ? []
        : [{ find: /^(node:)?crypto$/, replacement: fileURLToPath(new URL("./src/node-crypto-stub.ts", import.meta.url)) }]),
    ],
  },
  server: {
    proxy: {
      "/api": { target: `http://127.0.0.1:${serverPort}`, ws: true },
    },
  },
  build: isSsrBuild ? { outDir: PRERENDER_DIR, copyPublicDir: false, emptyOutDir: true } : { outDir: "dist", sourcemap: false },
}));
