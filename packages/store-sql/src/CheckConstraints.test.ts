/**
 * The migrations write core's lists of values a second time, as CHECK constraints (a column that
 * holds one of a few words). Read back from the migrated database (`pg_constraint`), each list is
 * core's, and every such list is one this test knows: a value added to core without a migration,
 * or a CHECK added without naming its list here, fails.
 */
import { assert, describe, layer } from "@effect/vitest"
import { ContactStatuses } from "@voice-agent/core/ContactState"
import { Direction, RecordedChannels, Speaker } from "@voice-agent/core/Conversation"
import { CallEventKinds } from "@voice-agent/core/ports/CallEvents"
import { AttemptErrorTypes, DeliveryStatus, WebhookEventTypes } from "@voice-agent/core/Webhook"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import * as TestDatabase from "./testing/TestDatabase.ts"

/** `table.column` → the core list its CHECK must hold. */
const coreLists: Readonly<Record<string, ReadonlyArray<string>>> = {
  "call_events.kind": CallEventKinds,
  "contacts.status": ContactStatuses,
  "conversations.direction": Direction.literals,
  "messages.direction": Direction.literals,
  "recordings.channel": RecordedChannels,
  "transcript_turns.speaker": Speaker.literals,
  "webhook_attempts.error_type": AttemptErrorTypes,
  "webhook_deliveries.status": DeliveryStatus.literals,
  "webhook_endpoints.events": WebhookEventTypes,
  "webhook_events.type": WebhookEventTypes
}

/**
 * The column and the words of a CHECK that lists them, as PostgreSQL writes it back:
 * `CHECK ((kind = ANY (ARRAY['Ringing'::text, …])))` or `… (events <@ ARRAY['call.started'::text, …])`.
 */
const listed = (
  definition: string
): { readonly column: string; readonly values: ReadonlyArray<string> } | undefined => {
  const match = /\(?(\w+) (?:= ANY \(|<@ )ARRAY\[([^\]]*)\]/.exec(definition)
  if (match === null) return undefined
  return { column: match[1]!, values: Array.from(match[2]!.matchAll(/'([^']*)'::text/g), (m) => m[1]!) }
}

const sorted = (values: ReadonlyArray<string>) => [...values].sort()

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`CHECK constraints on ${backend.name}`, () => {
    layer(backend.layer, { timeout: "60 seconds" })((it) => {
      it.effect("every list of values a CHECK holds is core's list for that column", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ table: string; name: string; definition: string }>`
            SELECT c.conrelid::regclass::text AS "table", c.conname AS name,
                   pg_get_constraintdef(c.oid) AS definition
            FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
            WHERE c.contype = 'c' AND n.nspname = 'public'
            ORDER BY 1, 2`
          assert.isAbove(rows.length, 10)
          const found: Record<string, ReadonlyArray<string>> = {}
          for (const row of rows) {
            const list = listed(row.definition)
            if (list !== undefined) found[`${row.table}.${list.column}`] = sorted(list.values)
          }
          assert.deepStrictEqual(Object.keys(found).sort(), Object.keys(coreLists).sort())
          for (const [column, values] of Object.entries(coreLists)) {
            assert.deepStrictEqual(found[column], sorted(values), column)
          }
        }))
    })
  })
}
