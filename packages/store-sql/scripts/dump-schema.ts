/**
 * Writes packages/store-sql/schema.sql from a fresh database migrated on the test server
 * (TEST_DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres). Maintenance, not a test.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as SchemaDump from "../src/testing/SchemaDump.ts"

const schema = await Effect.runPromise(SchemaDump.dump)
fs.writeFileSync(SchemaDump.schemaFile, schema)
console.log(`wrote ${SchemaDump.schemaFile} (${schema.split("\n").length} lines)`)
