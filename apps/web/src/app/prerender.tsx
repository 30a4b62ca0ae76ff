/**
 * Build-time rendering of the sign-in pages (run by Node, see prerender-plugin.ts): their HTML paints
 * before the app's code has arrived, and the app then hydrates it in place.
 */
import { StrictMode } from "react";
import { renderToString } from "react-dom/server";
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from "react-router";
import { routes } from "./routes.tsx";

export const PRERENDERED_PATHS = ["/login", "/register"] as const;

export async function renderPage(path: string): Promise<string> {
  const handler = createStaticHandler(routes);
  const context = await handler.query(new Request(new URL(path, "http://daysync.invalid")));
  if (context instanceof Response) throw new Error(`${path} redirects; only plain pages can be prerendered`);
  const router = createStaticRouter(handler.dataRoutes, context);
  // No hydration data: these routes have no loaders, so the browser router starts ready by itself.
  return renderToString(
    <StrictMode>
      <StaticRouterProvider router={router} context={context} hydrate={false} />
    </StrictMode>,
  );
}
