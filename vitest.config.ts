import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: [
      "packages/**/*.test.ts",
      "daemon/**/*.test.ts",
      "test/**/*.test.ts",
      "examples/**/*.test.ts"
    ],
    exclude: ["**/node_modules/**", "**/dist/**"]
  }
})
