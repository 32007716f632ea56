/**
 * `VOICE_AGENT_CARRIER=sip`'s settings and limits at start, as a self-hoster meets them: a
 * missing or malformed setting stops `serve` with a sentence naming it, and nothing else
 * happens; so does a `SIP_LISTEN` that cannot be bound; the SIP carrier runs in one process
 * (`--workers 2` and `voice-agent dial` refused, saying why).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as dgram from "node:dgram"
import * as Daemon from "../support/Daemon.ts"

const sip = { VOICE_AGENT_CARRIER: "sip", SIP_TRUNK: "sip:127.0.0.1:5999", SIP_LISTEN: "127.0.0.1:0" }

describe("the SIP carrier's settings, at start", () => {
  it.live("a missing or malformed setting stops serve with a sentence naming it", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
        [{ ...sip, SIP_TRUNK: "" }, "Invalid setting: SIP_TRUNK is not set"],
        [{ ...sip, SIP_TRUNK: "sip:trunk.example;transport=sctp" }, "SIP_TRUNK's transport must be udp or tcp"],
        [{ ...sip, RTP_PORTS: "20000" }, "RTP_PORTS must be low-high"],
        [{ ...sip, SIP_USERNAME: "alice" }, "SIP_PASSWORD is not set"],
        [{ ...sip, SIP_RING_TIMEOUT_S: "soon" }, "SIP_RING_TIMEOUT_S must be a whole number of seconds"],
        [{ VOICE_AGENT_CARRIER: "pstn" }, "VOICE_AGENT_CARRIER must be sim, twilio or sip, not \"pstn\""]
      ]
      for (const [env, sentence] of cases) {
        const run = yield* Daemon.cli(["serve", "--port", "0", "--data-dir", ":memory:"], env)
        assert.strictEqual(run.code, 1, sentence)
        assert.include(run.stderr, sentence)
        assert.notInclude(run.stdout, "ready on", sentence)
      }
    }), { timeout: 60_000 })

  it.live("a SIP_LISTEN port in use stops serve and says so", () =>
    Effect.gen(function*() {
      const taken = dgram.createSocket("udp4")
      const port = yield* Effect.callback<number>((resume) => {
        taken.bind(0, "127.0.0.1", () => resume(Effect.succeed(taken.address().port)))
      })
      const run = yield* Daemon.cli(["serve", "--port", "0", "--data-dir", ":memory:"], {
        ...sip,
        SIP_LISTEN: `127.0.0.1:${port}`
      }).pipe(Effect.ensuring(Effect.sync(() => taken.close())))
      assert.strictEqual(run.code, 1)
      assert.include(run.stderr, `SIP_LISTEN 127.0.0.1:${port} cannot be used`)
      assert.include(run.stderr, "EADDRINUSE")
    }), { timeout: 30_000 })

  it.live(
    "the SIP carrier runs in one process: --workers 2 and voice-agent dial are refused",
    () =>
      Effect.gen(function*() {
        const workers = yield* Daemon.cli(["serve", "--port", "0", "--workers", "2"], {
          ...sip,
          DATABASE_URL: "postgres://postgres@127.0.0.1:1/none"
        })
        assert.strictEqual(workers.code, 1)
        assert.include(workers.stderr, "--workers 2 cannot run VOICE_AGENT_CARRIER=sip")
        const dial = yield* Daemon.cli(["dial", "--data-dir", ":memory:"], sip)
        assert.strictEqual(dial.code, 1)
        assert.include(dial.stderr, "VOICE_AGENT_CARRIER=sip runs in voice-agent serve only")
      }),
    { timeout: 30_000 }
  )
})
