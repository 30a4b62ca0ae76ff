import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { pwa } from "./pwa.config.ts";

const serverPort = process.env.PORT ?? "8080";

export default defineConfig({
  plugins: [react(), pwa],
  server: {
    proxy: {
      "/api": { target: `http://127.0.0.1:${serverPort}`, ws: true },
    },
  },
  build: { outDir: "dist", sourcemap: false },
});
