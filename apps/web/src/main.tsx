import { StrictMode, startTransition } from "react";
import { createRoot, hydrateRoot } from "react-dom/client";
import "./styles/tokens.css";
import "./lib/zod-jitless.ts";

/** Public pages load React and their own code only; every other path loads the router and the app. */
const PUBLIC_PATHS = new Set(["/", "/landing", "/home"]);

const root = document.getElementById("root");
if (!root) throw new Error("#root is missing from index.html");
const path = window.location.pathname;
const page = PUBLIC_PATHS.has(path)
  ? import("./app/public-page.tsx").then(({ PublicPage }) => <PublicPage path={path} />)
  : import("./app/app.tsx").then(({ App }) => <App />);
page.then((element) => {
  const tree = <StrictMode>{element}</StrictMode>;
  // The sign-in pages arrive rendered at build time (app/prerender.tsx); the rest start empty.
  // Hydrating as a transition lets React yield to the browser between components.
  if (root.hasChildNodes()) startTransition(() => void hydrateRoot(root, tree));
  else createRoot(root).render(tree);
});
