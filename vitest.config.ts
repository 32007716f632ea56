import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: [
      "packages/**/*.test.ts",
      "daemon/**/*.test.ts",
      "test/**/*.test.ts",
      "examples/**/*.test.ts"
    ],
    exclude: ["**/node_modules/**", "**/dist/**"],
    // The daemon tests mostly wait on calls in real time (simulated speech), not on the CPU:
    // three files at once on a 2-core machine take the run from about 950 s to about 450 s.
    maxWorkers: 3,
    // The first statements on a fresh PGlite run while V8 still compiles its WebAssembly: up to
    // 6.6 s for a test of a few small queries with three files at once on a loaded 2-core
    // machine (CI, 2026-11-23), against about 1 s alone. Vitest's default of 5 s failed it.
    testTimeout: 30_000
  }
})
