/** The installable app: web app manifest (icons, share target) and the service worker built from src/sw/sw.ts. */
// Relative imports: the config is bundled by Vite and run by Node, which cannot load the workspace's TypeScript entry.

import type { Plugin } from "vite";
import { VitePWA } from "vite-plugin-pwa";
import { SHARE_FIELDS, SHARE_TARGET_PATH } from "../../packages/shared/src/share-target.ts";
import { TEXT } from "../../packages/shared/src/ui-text.ts";

/**
 * The worker is one file: vite-plugin-pwa asks for that with the output option `inlineDynamicImports`, which the
 * bundler now warns is deprecated on every build; this says the same with its successor, `codeSplitting: false`.
 */
const oneFileWorker: Plugin = {
  name: "daysync-sw-one-file",
  outputOptions(options) {
    const { inlineDynamicImports: _deprecated, ...rest } = options as typeof options & { inlineDynamicImports?: boolean };
    return { ...rest, codeSplitting: false } as typeof options;
  },
};

/**
 * The worker is a classic script, where `import.meta` does not parse: the bundler's helper for a dynamic import uses
 * it. @hpke/common (room key wraps) has one, `import("crypto")`, reached only without `globalThis.crypto`, which a
 * service worker always has; it is read as that here, so no helper is bundled.
 */
const noDynamicNodeCrypto: Plugin = {
  name: "daysync-sw-no-dynamic-node-crypto",
  enforce: "pre",
  transform(code, id) {
    if (!id.includes("@hpke/") || !code.includes('import("crypto")')) return;
    return { code: code.replaceAll('import("crypto")', "Promise.resolve({ webcrypto: globalThis.crypto })"), map: null };
  },
};

export const pwa = VitePWA({
  strategies: "injectManifest",
  srcDir: "src/sw",
  filename: "sw.ts",
  // main.tsx registers the worker once the page has started: its precaching would compete with that.
  injectRegister: false,
  registerType: "autoUpdate",
  includeAssets: ["favicon.svg", "apple-touch-icon.png", "icons/badge-96.png"],
  manifest: {
    id: "/",
    name: TEXT.productName,
    short_name: TEXT.productName,
    description: TEXT.tagline,
    start_url: "/dashboard",
    scope: "/",
    display: "standalone",
    background_color: "#ffffff",
    theme_color: "#2563eb",
    categories: ["productivity", "utilities"],
    icons: [
      { src: "/icons/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
      { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
      { src: "/icons/icon-maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
    ],
    share_target: {
      action: SHARE_TARGET_PATH,
      method: "POST",
      enctype: "multipart/form-data",
      params: {
        title: SHARE_FIELDS.title,
        text: SHARE_FIELDS.text,
        url: SHARE_FIELDS.url,
        files: [{ name: SHARE_FIELDS.files, accept: ["*/*"] }],
      },
    },
  },
  injectManifest: {
    // The app shell: code, styles, the page and icons. Gallery screenshots load from the network.
    globPatterns: ["**/*.{js,css,html,svg,png,webmanifest}"],
    globIgnores: ["screenshots/**", "og-image.png"],
    buildPlugins: { vite: [oneFileWorker, noDynamicNodeCrypto] },
  },
});
