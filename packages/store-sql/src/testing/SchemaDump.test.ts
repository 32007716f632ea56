import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as SchemaDump from "./SchemaDump.ts"
import * as TestDatabase from "./TestDatabase.ts"

const postgres = (await TestDatabase.backends()).find((b) => b.name === "postgres")
const pgDump = spawnSync("pg_dump", ["--version"]).status === 0
if (!pgDump && process.env["CI"] === "true") {
  throw new Error("pg_dump is not on PATH; CI checks the committed schema.sql with it")
}

describe.skipIf(postgres?.skip !== undefined || !pgDump)("schema.sql", () => {
  it.effect("matches what the migrations produce (regenerate with npm run db:dump)", () =>
    Effect.gen(function*() {
      const current = yield* SchemaDump.dump
      assert.strictEqual(fs.readFileSync(SchemaDump.schemaFile, "utf8"), current)
    }), { timeout: 60_000 })
})

describe("normalize", () => {
  it("keeps statements and drops comments, settings and restrict guards", () => {
    const dump =
      "--\n-- PostgreSQL dump\n\\restrict abc\nSET statement_timeout = 0;\n\n\n\nCREATE TABLE t (\n    id integer\n);\n\\unrestrict abc\n"
    assert.strictEqual(SchemaDump.normalize(dump), "CREATE TABLE t (\n    id integer\n);\n")
  })
})
