/**
 * The house's "one concept per module" (docs/DEVELOPING.md), as a rule a reviewer need not
 * count: a source file of the packages, the daemon or the examples (tests aside) over 500 lines
 * opens with a comment line that says why it is one concept (`// One concept over 500 lines: <why>`), or is split along its
 * seams.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.join(import.meta.dirname, "..", "..")
const limit = 500
const justified = /^\/\/ One concept over 500 lines: \S/

const sources = (dir: string): ReadonlyArray<string> =>
  fs.existsSync(dir)
    ? fs.readdirSync(dir, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts") && !file.includes("node_modules"))
      .map((file) => path.join(dir, file))
    : []

const roots = [
  ...fs.readdirSync(path.join(root, "packages")).map((name) => path.join(root, "packages", name, "src")),
  ...fs.readdirSync(path.join(root, "examples")).map((name) => path.join(root, "examples", name, "src")),
  path.join(root, "daemon", "src")
]

describe("source files", () => {
  it("over 500 lines say in their first line why they are one concept", () => {
    const files = roots.flatMap(sources)
    assert.isAbove(files.length, 100)
    const offending = files.flatMap((file) => {
      const relative = path.relative(root, file)
      const text = fs.readFileSync(file, "utf8")
      const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0)
      if (lines <= limit) return []
      return justified.test(text.split("\n", 1)[0]!) ? [] : [`${relative} (${lines} lines)`]
    })
    assert.deepStrictEqual(offending, [])
  })
})
