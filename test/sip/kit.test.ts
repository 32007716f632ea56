/**
 * The SIP conformance kit (`npm run sip:check`, docs/SIP.md) run against the engine: the real
 * daemon with `VOICE_AGENT_CARRIER=sip`, its trunk the kit's SIPp, digest credentials set. Every
 * check must pass: outbound answered (audio both ways), voicemail, busy, no answer (CANCEL),
 * failure, a digest challenge, hold, key presses (RFC 4733) collected by an agent, a transfer
 * (REFER, its NOTIFYs, BYE: `bot-transfer`) asked by an SDK agent, inbound to an
 * owned number and to a stranger's (404), and RFC 4475's torture messages while calls are up.
 * Over TCP too (`SIP_TRUNK=...;transport=tcp`, SIPp `-t t1`), the checks of the signalling.
 *
 * SIPp must be installed (Debian's sip-tester): without it the test fails and says so.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Kit from "../../packages/carrier-sip/scripts/kit/Kit.ts"
import * as Sipp from "../../packages/carrier-sip/scripts/kit/Sipp.ts"
import * as Daemon from "../support/Daemon.ts"

const host = "127.0.0.1"

/** A daemon whose trunk is the kit's SIPp over `transport`, and the kit's `only` checks against it. */
const kitAgainstDaemon = (transport: "udp" | "tcp", only?: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "va-sip-kit-"))
    const trunkPort = yield* Sipp.freePort(host)
    const credentials = { username: "kit", password: "kit-secret" }
    const api = yield* Daemon.serve(["--port", "0", "--data-dir", ":memory:"], {
      VOICE_AGENT_CARRIER: "sip",
      SIP_TRUNK: `sip:${host}:${trunkPort};transport=${transport}`,
      SIP_LISTEN: `${host}:0`,
      SIP_USERNAME: credentials.username,
      SIP_PASSWORD: credentials.password,
      SIP_RING_TIMEOUT_S: "2",
      RTP_PORTS: "40000-49999"
    })
    const listening = yield* api.waitFor(/SIP carrier listening on 127\.0\.0\.1:(\d+)/)
    const results = yield* Kit.run({
      api: { url: api.url, key: Option.getOrThrow(api.apiKey) },
      sip: { host, port: Number(/listening on 127\.0\.0\.1:(\d+)/.exec(listening)![1]) },
      trunk: { host, port: trunkPort },
      owned: "+12025550100",
      credentials,
      dir,
      waitS: 45,
      transport,
      ...(only === undefined ? {} : { only })
    })
    assert.strictEqual(yield* api.stop("SIGTERM"), 0)
    fs.rmSync(dir, { recursive: true, force: true })
    return results
  })

describe("the SIP conformance kit, against the engine", () => {
  it.live("every check passes", () =>
    Effect.gen(function*() {
      const results = yield* kitAgainstDaemon("udp")
      const report = Kit.report(results)
      assert.sameMembers(results.map((r) => r.name), [...Kit.checks, "trunk"], report)
      assert.isTrue(results.every((r) => r.failure === undefined), report)
    }), { timeout: 120_000 })

  it.live("over TCP, the signalling checks pass", () =>
    Effect.gen(function*() {
      const only = ["busy", "no-answer", "failure", "digest", "hold", "inbound", "stranger"]
      const results = yield* kitAgainstDaemon("tcp", only)
      const report = Kit.report(results)
      assert.sameMembers(results.map((r) => r.name), [...only, "trunk"], report)
      assert.isTrue(results.every((r) => r.failure === undefined), report)
    }), { timeout: 120_000 })
})
