/**
 * Installation-wide secrets shared by every daemon on the database (ServerSecrets port).
 * The cursor key is 32 bytes from two random UUIDs' 122 random bits each, made once here so
 * that every daemon signs and checks list cursors with the same key.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE server_secrets (
      name text PRIMARY KEY,
      value bytea NOT NULL CHECK (octet_length(value) >= 32)
    )`
  yield* sql`
    INSERT INTO server_secrets (name, value)
    VALUES (
      'cursor_key',
      decode(replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''), 'hex')
    )`
})
