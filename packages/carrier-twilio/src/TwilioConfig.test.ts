import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Redacted } from "effect"
import { format, inspect } from "node:util"
import * as TwilioConfig from "./TwilioConfig.ts"

const ACCOUNT = "AC0123456789abcdef0123456789abcdef"
const TOKEN = "f00dfeedf00dfeedf00dfeedf00dfeed"
const API_KEY = "SKfedcba9876543210fedcba9876543210"
const API_SECRET = "s3cr3t-api-key-secret"

const base = {
  TWILIO_ACCOUNT_SID: ACCOUNT,
  TWILIO_AUTH_TOKEN: TOKEN,
  VOICE_AGENT_PUBLIC_URL: "https://agent.example.com"
}

const load = (env: Record<string, string | undefined>) => TwilioConfig.config.parse(ConfigProvider.fromEnvRecord(env))

/** The one sentence a bad environment fails with. */
const failure = (env: Record<string, string | undefined>) =>
  Effect.flip(load(env)).pipe(Effect.map((error) => error.cause.message))

describe("config", () => {
  it.effect("reads the settings, with the default API base", () =>
    Effect.gen(function*() {
      const config = yield* load(base)
      assert.strictEqual(config.accountSid, ACCOUNT)
      assert.strictEqual(Redacted.value(config.authToken), TOKEN)
      assert.isUndefined(config.apiKey)
      assert.strictEqual(config.apiBase, "https://api.twilio.com")
      assert.strictEqual(config.publicUrl, "https://agent.example.com")
      assert.deepStrictEqual(TwilioConfig.credentials(config), { _tag: "AuthToken", authToken: config.authToken })
    }))
  it.effect("trims values and drops trailing slashes of the URLs, keeping a path prefix", () =>
    Effect.gen(function*() {
      const config = yield* load({
        TWILIO_ACCOUNT_SID: ` ${ACCOUNT} `,
        TWILIO_AUTH_TOKEN: `${TOKEN}\n`,
        TWILIO_API_BASE: "http://127.0.0.1:9999/twilio/",
        VOICE_AGENT_PUBLIC_URL: "https://example.com/agent//"
      })
      assert.strictEqual(config.accountSid, ACCOUNT)
      assert.strictEqual(Redacted.value(config.authToken), TOKEN)
      assert.strictEqual(config.apiBase, "http://127.0.0.1:9999/twilio")
      assert.strictEqual(config.publicUrl, "https://example.com/agent")
    }))
  it.effect("takes an API key with its secret, for REST requests", () =>
    Effect.gen(function*() {
      const config = yield* load({ ...base, TWILIO_API_KEY: API_KEY, TWILIO_API_SECRET: API_SECRET })
      assert.strictEqual(config.apiKey?.sid, API_KEY)
      assert.strictEqual(Redacted.value(config.apiKey!.secret), API_SECRET)
      const credentials = TwilioConfig.credentials(config)
      assert.strictEqual(credentials._tag, "ApiKey")
      if (credentials._tag === "ApiKey") assert.strictEqual(credentials.apiKeySid, API_KEY)
    }))
  it.effect("never prints a secret", () =>
    Effect.gen(function*() {
      const config = yield* load({ ...base, TWILIO_API_KEY: API_KEY, TWILIO_API_SECRET: API_SECRET })
      for (const printed of [inspect(config, { depth: 5 }), JSON.stringify(config), format("%s", config.authToken)]) {
        assert.notInclude(printed, TOKEN)
        assert.notInclude(printed, API_SECRET)
      }
    }))
  it.effect("fails with one sentence naming what is missing", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* failure({ ...base, TWILIO_ACCOUNT_SID: undefined }),
        "TWILIO_ACCOUNT_SID is not set: the Twilio carrier needs the account's SID"
      )
      assert.strictEqual(
        yield* failure({ ...base, TWILIO_AUTH_TOKEN: " " }),
        "TWILIO_AUTH_TOKEN is not set: Twilio signs its webhooks with the account's auth token, so it is needed even with an API key"
      )
      assert.strictEqual(
        yield* failure({
          ...base,
          TWILIO_AUTH_TOKEN: undefined,
          TWILIO_API_KEY: API_KEY,
          TWILIO_API_SECRET: API_SECRET
        }),
        "TWILIO_AUTH_TOKEN is not set: Twilio signs its webhooks with the account's auth token, so it is needed even with an API key"
      )
      assert.strictEqual(
        yield* failure({ ...base, TWILIO_API_KEY: API_KEY }),
        "TWILIO_API_SECRET is not set: TWILIO_API_KEY is used only with its secret"
      )
      assert.strictEqual(
        yield* failure({ ...base, TWILIO_API_SECRET: API_SECRET }),
        "TWILIO_API_KEY is not set: TWILIO_API_SECRET is used only with the SID of its API key"
      )
      assert.strictEqual(
        yield* failure({ ...base, VOICE_AGENT_PUBLIC_URL: "" }),
        "VOICE_AGENT_PUBLIC_URL is not set: Twilio needs the daemon's public URL for its webhooks and media streams"
      )
    }))
  it.effect("fails with one sentence naming what is malformed, without echoing a secret", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* failure({ ...base, TWILIO_ACCOUNT_SID: "AC123" }),
        "TWILIO_ACCOUNT_SID must be AC followed by 32 hexadecimal digits"
      )
      assert.strictEqual(
        yield* failure({ ...base, TWILIO_ACCOUNT_SID: API_KEY }),
        "TWILIO_ACCOUNT_SID must be AC followed by 32 hexadecimal digits"
      )
      assert.strictEqual(
        yield* failure({ ...base, TWILIO_API_KEY: ACCOUNT, TWILIO_API_SECRET: API_SECRET }),
        "TWILIO_API_KEY must be SK followed by 32 hexadecimal digits"
      )
      assert.strictEqual(
        yield* failure({ ...base, TWILIO_API_BASE: "ftp://api.twilio.com" }),
        "TWILIO_API_BASE must be an http or https URL without query string, not \"ftp://api.twilio.com\""
      )
      assert.strictEqual(
        yield* failure({ ...base, VOICE_AGENT_PUBLIC_URL: "agent.example.com" }),
        "VOICE_AGENT_PUBLIC_URL must be an http or https URL without query string, not \"agent.example.com\""
      )
      assert.strictEqual(
        yield* failure({ ...base, VOICE_AGENT_PUBLIC_URL: "https://agent.example.com/?x=1" }),
        "VOICE_AGENT_PUBLIC_URL must be an http or https URL without query string, not \"https://agent.example.com/?x=1\""
      )
    }))
})
