import { StrictMode, startTransition } from "react";
import { createRoot, hydrateRoot } from "react-dom/client";
import "./styles/tokens.css";
import "./lib/zod-jitless.ts";
import { loadPublicPage } from "./app/public-page.tsx";
import { askWorkerToControl } from "./lib/worker-control.ts";

/** Lets the browser paint and answer input between pieces of start-up work, rather than in one long task. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Evaluating the app's code is the longest piece of its start: it runs in stages, a task each (the shared schemas,
 * the libraries, then the app's own code), so that no one task keeps the page from answering for long.
 * The sign-in pages preload every stage (START_UP_MODULES in vite.config.ts).
 */
async function loadApp() {
  await import("./app/start-up/schemas.ts");
  await nextTask();
  await import("./app/start-up/libraries.ts");
  await nextTask();
  const { App } = await import("./app/app.tsx");
  await nextTask();
  return <App />;
}

/**
 * The service worker (offline pages, push, the share target) registers when the browser is idle after the
 * page has started: installing it fetches the whole app shell, which would compete with the page's own start.
 */
function registerServiceWorker() {
  if (!import.meta.env.PROD || !("serviceWorker" in navigator)) return;
  const register = () => void navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(askWorkerToControl);
  if ("requestIdleCallback" in window) requestIdleCallback(register, { timeout: 5000 });
  else setTimeout(register, 1000);
}

const root = document.getElementById("root");
if (!root) throw new Error("#root is missing from index.html");
const path = window.location.pathname;
// Public pages load React and their own code only; every other path loads the router and the app.
const publicPage = loadPublicPage(path);
const page = publicPage ?? loadApp();
page.then((element) => {
  const tree = <StrictMode>{element}</StrictMode>;
  // The sign-in pages arrive rendered at build time (app/prerender.tsx); the rest start empty.
  // Hydrating as a transition lets React yield to the browser between components; so does the first render of a
  // public page (the landing's sections, rendered at once, were one long task that blocked input on a phone).
  if (root.hasChildNodes()) startTransition(() => void hydrateRoot(root, tree));
  else if (publicPage) {
    const fresh = createRoot(root);
    startTransition(() => fresh.render(tree));
  } else createRoot(root).render(tree);
  registerServiceWorker();
});
