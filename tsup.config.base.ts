import { defineConfig } from "tsup"

/**
 * The build of every workspace package: ESM and declarations, one entry per module (the
 * exports map's `./*`), modules shared between entries split into chunks. Bundling is what
 * turns the sources' `./X.ts` imports into working `.js` ones; dependencies stay external.
 */
export default defineConfig({
  entry: ["src/**/*.ts", "!src/**/*.test.ts"],
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: true,
  target: "es2024"
})
