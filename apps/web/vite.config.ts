import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { prerenderPages } from "./prerender-plugin.ts";
import { pwa } from "./pwa.config.ts";

const serverPort = process.env.PORT ?? "8080";
/** Where `build:prerender` puts the server-side bundle that the client build renders pages with. */
const PRERENDER_DIR = ".prerender";

export default defineConfig(({ isSsrBuild }) => ({
  plugins: isSsrBuild
    ? [react()]
    : [react(), prerenderPages({ entry: "src/app/app.tsx", ssrModule: `${PRERENDER_DIR}/prerender.js` }), pwa],
  server: {
    proxy: {
      "/api": { target: `http://127.0.0.1:${serverPort}`, ws: true },
    },
  },
  build: isSsrBuild ? { outDir: PRERENDER_DIR, copyPublicDir: false, emptyOutDir: true } : { outDir: "dist", sourcemap: false },
}));
