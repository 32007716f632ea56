/**
 * Turn latency (docs/HTTP_API.md, `GET /v1/conversations/{call_id}/latency`): one row per agent
 * reply to the person, numbered in the order recorded, with the end of the person's speech and
 * the start of the reply's audio in ms from the answer on the call's timeline, and the ms each
 * step took (null when the step did not run). Voice-to-voice is derived when read.
 *
 * Forward-only and frozen once merged.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE turn_latencies (
      conversation_id uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
      seq integer NOT NULL,
      user_stopped_ms integer NOT NULL CHECK (user_stopped_ms >= 0),
      agent_started_ms integer NOT NULL CHECK (agent_started_ms >= 0),
      stt_ms integer CHECK (stt_ms >= 0),
      llm_first_token_ms integer CHECK (llm_first_token_ms >= 0),
      tts_first_byte_ms integer CHECK (tts_first_byte_ms >= 0),
      engine_ms integer CHECK (engine_ms >= 0),
      PRIMARY KEY (conversation_id, seq)
    )`
})
