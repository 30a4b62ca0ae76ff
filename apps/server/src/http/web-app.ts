/**
 * Serves the built web app: its files, pages rendered at build time, index.html for the app's own routes (and with
 * status 404 for any other page, where the app shows its error screen); JSON 404s under /api.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { isAppPath } from "@daysync/shared";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";
import { errorBody } from "./errors.ts";

export async function serveWebApp(app: FastifyInstance, webDist: string): Promise<void> {
  const indexHtml = path.join(webDist, "index.html");
  const serveWeb = existsSync(indexHtml);
  // Pages the web build rendered to HTML (login.html answers /login); other app routes get index.html.
  const prerendered = new Map(
    serveWeb
      ? readdirSync(webDist)
          .filter((file) => file.endsWith(".html") && file !== "index.html")
          .map((file) => [`/${file.slice(0, -".html".length)}`, file])
      : [],
  );
  if (serveWeb) {
    await app.register(fastifyStatic, {
      root: webDist,
      wildcard: true,
      cacheControl: false,
      setHeaders(res, filePath) {
        res.setHeader(
          "cache-control",
          filePath.includes(`${path.sep}assets${path.sep}`) ? "public, max-age=31536000, immutable" : "no-cache",
        );
      },
    });
  }

  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith("/api/") || request.url === "/api" || !serveWeb || (request.method !== "GET" && request.method !== "HEAD")) {
      return reply.status(404).send(errorBody("not_found", `No route ${request.method} ${request.url.split("?")[0]}.`));
    }
    // The app resolves its own routes; on any other path it shows its error screen, which the status matches.
    const pathname = request.url.split("?")[0] ?? "";
    const page = prerendered.get(pathname) ?? "index.html";
    return reply
      .status(isAppPath(pathname) ? 200 : 404)
      .header("cache-control", "no-cache")
      .sendFile(page);
  });
}
