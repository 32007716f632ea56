import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Redacted } from "effect"
import { inspect } from "node:util"
import * as SipConfig from "./SipConfig.ts"

const load = (env: Record<string, string | undefined>) => SipConfig.config.parse(ConfigProvider.fromEnvRecord(env))
const failure = (env: Record<string, string | undefined>) =>
  Effect.flip(load(env)).pipe(Effect.map((error) => error.cause.message))

describe("SipConfig", () => {
  it.effect("reads CONTRACT §8's defaults", () =>
    Effect.gen(function*() {
      const config = yield* load({ SIP_TRUNK: "sip:Trunk.Example.com" })
      assert.deepStrictEqual(config, {
        trunk: { host: "trunk.example.com", port: 5060, transport: "udp" },
        credentials: undefined,
        register: false,
        listen: { host: "0.0.0.0", port: 5060 },
        publicAddress: "0.0.0.0",
        rtpPorts: { low: 10000, high: 20000 },
        ringTimeoutS: 30
      })
    }))

  it.effect("reads every setting, the password redacted", () =>
    Effect.gen(function*() {
      const config = yield* load({
        SIP_TRUNK: " sip:198.51.100.2:5080;transport=TCP ",
        SIP_USERNAME: "acct-17",
        SIP_PASSWORD: "hunter2-secret",
        SIP_REGISTER: "TRUE",
        SIP_LISTEN: "192.0.2.10:0",
        SIP_PUBLIC_ADDRESS: "203.0.113.7",
        RTP_PORTS: "30000-30100",
        SIP_RING_TIMEOUT_S: "45"
      })
      assert.deepStrictEqual(config.trunk, { host: "198.51.100.2", port: 5080, transport: "tcp" })
      assert.strictEqual(config.credentials?.username, "acct-17")
      assert.strictEqual(Redacted.value(config.credentials!.password), "hunter2-secret")
      assert.notInclude(inspect(config, { depth: 5 }), "hunter2-secret")
      assert.isTrue(config.register)
      assert.deepStrictEqual(config.listen, { host: "192.0.2.10", port: 0 })
      assert.strictEqual(config.publicAddress, "203.0.113.7")
      assert.deepStrictEqual(config.rtpPorts, { low: 30000, high: 30100 })
      assert.strictEqual(config.ringTimeoutS, 45)
    }))

  it.effect("names the setting that is wrong, in one sentence", () =>
    Effect.gen(function*() {
      const trunk = { SIP_TRUNK: "sip:trunk.example.com" }
      assert.strictEqual(
        yield* failure({}),
        "SIP_TRUNK is not set: the SIP carrier needs the trunk, as sip:host[:port][;transport=udp|tcp]"
      )
      assert.strictEqual(
        yield* failure({ SIP_TRUNK: "sip:+1555@trunk.example.com" }),
        "SIP_TRUNK must be sip:host[:port][;transport=udp|tcp], not \"sip:+1555@trunk.example.com\""
      )
      assert.strictEqual(
        yield* failure({ SIP_TRUNK: "sip:trunk.example.com;transport=tls" }),
        "SIP_TRUNK's transport must be udp or tcp, not \"tls\""
      )
      assert.include(yield* failure({ SIP_TRUNK: "trunk.example.com" }), "SIP_TRUNK must be sip:host")
      assert.strictEqual(
        yield* failure({ ...trunk, SIP_PASSWORD: "x" }),
        "SIP_USERNAME is not set: SIP_PASSWORD is used only with a username"
      )
      assert.strictEqual(
        yield* failure({ ...trunk, SIP_USERNAME: "u" }),
        "SIP_PASSWORD is not set: SIP_USERNAME is used only with its password"
      )
      assert.strictEqual(
        yield* failure({ ...trunk, SIP_REGISTER: "yes" }),
        "SIP_REGISTER must be true or false, not \"yes\""
      )
      assert.strictEqual(
        yield* failure({ ...trunk, SIP_LISTEN: "5060" }),
        "SIP_LISTEN must be host:port (port 0 picks one), not \"5060\""
      )
      assert.strictEqual(
        yield* failure({ ...trunk, RTP_PORTS: "20000-10000" }),
        "RTP_PORTS must be low-high, two or more ports within 1..65535, not \"20000-10000\""
      )
      assert.strictEqual(
        yield* failure({ ...trunk, SIP_RING_TIMEOUT_S: "0" }),
        "SIP_RING_TIMEOUT_S must be a whole number of seconds, 1 or more, not \"0\""
      )
      assert.strictEqual(
        yield* failure({ ...trunk, SIP_PUBLIC_ADDRESS: "not an address" }),
        "SIP_PUBLIC_ADDRESS must be a host name or an IP address, not \"not an address\""
      )
    }))
})
