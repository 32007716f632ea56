import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import * as Webhooks from "./Webhooks.ts"

const retention = (env: Record<string, string>) =>
  Webhooks.retention.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))))

describe("VOICE_AGENT_WEBHOOK_RETENTION", () => {
  it.effect("30 days by default, one duration, or none (kept forever)", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* retention({})).retentionMs, 30 * 86_400_000)
      assert.strictEqual((yield* retention({ VOICE_AGENT_WEBHOOK_RETENTION: "7d" })).retentionMs, 7 * 86_400_000)
      assert.strictEqual((yield* retention({ VOICE_AGENT_WEBHOOK_RETENTION: "36h" })).retentionMs, 36 * 3_600_000)
      assert.isNull((yield* retention({ VOICE_AGENT_WEBHOOK_RETENTION: "none" })).retentionMs)
    }))

  it.effect("anything else stops the daemon with a sentence that names the setting", () =>
    Effect.gen(function*() {
      for (const text of ["forever", "30", "1d,2d", "0s"]) {
        const error = yield* Effect.flip(retention({ VOICE_AGENT_WEBHOOK_RETENTION: text }))
        assert.include(String(error), "VOICE_AGENT_WEBHOOK_RETENTION must be one duration such as 30d", text)
      }
    }))
})
