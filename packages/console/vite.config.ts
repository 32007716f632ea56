/**
 * The console's build: one page at `/console/`, everything bundled (nothing fetched from another
 * host), asset names hashed so the daemon may cache them for a year. The upload checks run in a
 * Web Worker (its own chunk); the call page's player is a chunk loaded when a call is opened.
 */
import { defineConfig } from "vite"

export default defineConfig({
  base: "/console/",
  root: import.meta.dirname,
  // Preact's JSX runtime for .tsx files (Vite's oxc transform).
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
    // The API client (effect's HttpApiClient and the schemas of the whole API) is one chunk of
    // about 570 KB before compression; the budget that matters is the gzipped first load.
    chunkSizeWarningLimit: 800,
    modulePreload: { polyfill: false },
    // Timing warnings only say the machine was busy (CI shares two cores with the tests).
    rolldownOptions: { checks: { bundlerTimings: false } }
  },
  worker: { format: "es" }
})
