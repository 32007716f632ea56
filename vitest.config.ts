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
    maxWorkers: 3
  }
})
