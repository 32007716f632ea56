/**
 * The Twilio carrier's settings, read from the environment (docs/DAEMON.md, docs/TWILIO.md):
 *
 * | variable | |
 * | - | - |
 * | `TWILIO_ACCOUNT_SID` | required: `AC` and 32 hexadecimal digits |
 * | `TWILIO_AUTH_TOKEN` | required: Twilio signs every webhook with it, so it is needed even with an API key |
 * | `TWILIO_API_KEY`, `TWILIO_API_SECRET` | optional, together: an API key (`SK` and 32 hexadecimal digits) and its secret; when set, REST requests authenticate with them instead of the auth token |
 * | `TWILIO_API_BASE` | default `https://api.twilio.com`: an http(s) URL, trailing slashes dropped (a fake Twilio in tests) |
 * | `VOICE_AGENT_PUBLIC_URL` | required: the daemon's public http(s) URL (https in production: Twilio streams media only to `wss`), trailing slashes dropped |
 *
 * Values are trimmed; an empty one counts as not set. A missing or malformed variable fails with
 * a `ConfigError` whose message is one sentence naming it (the daemon prints "Invalid setting:
 * " and that sentence); a secret's value never appears in a message, and secrets are held as
 * `Redacted`, which prints as `<redacted>`.
 *
 * @since 0.1.0
 */
import { Config, ConfigProvider, Effect, Option, Redacted } from "effect"
import type { Credentials } from "./TwilioRest.ts"
import { defaultApiBase } from "./TwilioRest.ts"

/**
 * @category models
 */
export interface TwilioConfig {
  readonly accountSid: string
  /** Signs the webhooks; authenticates REST requests when there is no API key. */
  readonly authToken: Redacted.Redacted
  readonly apiKey: { readonly sid: string; readonly secret: Redacted.Redacted } | undefined
  readonly apiBase: string
  readonly publicUrl: string
}

const invalid = (message: string) => Effect.fail(new Config.ConfigError(new ConfigProvider.SourceError({ message })))

const text = (value: Option.Option<string>) => Option.filter(Option.map(value, (v) => v.trim()), (v) => v !== "")
const secret = (value: Option.Option<Redacted.Redacted>) =>
  Option.map(text(Option.map(value, Redacted.value)), (v) => Redacted.make(v))

/** An http(s) URL without query or fragment, trailing slashes dropped; none if it is not one. */
const httpUrl = (value: string): Option.Option<string> => {
  if (!URL.canParse(value)) return Option.none()
  const url = new URL(value)
  const usable = (url.protocol === "http:" || url.protocol === "https:") && url.search === "" && url.hash === ""
  return usable ? Option.some(value.replace(/\/+$/, "")) : Option.none()
}

const raw = Config.all({
  accountSid: Config.option(Config.String("TWILIO_ACCOUNT_SID")),
  authToken: Config.option(Config.Redacted("TWILIO_AUTH_TOKEN")),
  apiKey: Config.option(Config.String("TWILIO_API_KEY")),
  apiSecret: Config.option(Config.Redacted("TWILIO_API_SECRET")),
  apiBase: Config.option(Config.String("TWILIO_API_BASE")),
  publicUrl: Config.option(Config.String("VOICE_AGENT_PUBLIC_URL"))
})

const validate = (values: typeof raw extends Config.Config<infer A> ? A : never) =>
  Effect.gen(function*() {
    const accountSid = text(values.accountSid)
    if (Option.isNone(accountSid)) {
      return yield* invalid("TWILIO_ACCOUNT_SID is not set: the Twilio carrier needs the account's SID")
    }
    if (!/^AC[0-9a-fA-F]{32}$/.test(accountSid.value)) {
      return yield* invalid("TWILIO_ACCOUNT_SID must be AC followed by 32 hexadecimal digits")
    }
    const authToken = secret(values.authToken)
    if (Option.isNone(authToken)) {
      return yield* invalid(
        "TWILIO_AUTH_TOKEN is not set: Twilio signs its webhooks with the account's auth token, so it is needed even with an API key"
      )
    }
    const apiKey = text(values.apiKey)
    const apiSecret = secret(values.apiSecret)
    if (Option.isSome(apiKey) && Option.isNone(apiSecret)) {
      return yield* invalid("TWILIO_API_SECRET is not set: TWILIO_API_KEY is used only with its secret")
    }
    if (Option.isNone(apiKey) && Option.isSome(apiSecret)) {
      return yield* invalid("TWILIO_API_KEY is not set: TWILIO_API_SECRET is used only with the SID of its API key")
    }
    if (Option.isSome(apiKey) && !/^SK[0-9a-fA-F]{32}$/.test(apiKey.value)) {
      return yield* invalid("TWILIO_API_KEY must be SK followed by 32 hexadecimal digits")
    }
    const apiBaseText = Option.getOrElse(text(values.apiBase), () => defaultApiBase)
    const apiBase = httpUrl(apiBaseText)
    if (Option.isNone(apiBase)) {
      return yield* invalid(
        `TWILIO_API_BASE must be an http or https URL without query string, not ${JSON.stringify(apiBaseText)}`
      )
    }
    const publicUrlText = text(values.publicUrl)
    if (Option.isNone(publicUrlText)) {
      return yield* invalid(
        "VOICE_AGENT_PUBLIC_URL is not set: Twilio needs the daemon's public URL for its webhooks and media streams"
      )
    }
    const publicUrl = httpUrl(publicUrlText.value)
    if (Option.isNone(publicUrl)) {
      return yield* invalid(
        `VOICE_AGENT_PUBLIC_URL must be an http or https URL without query string, not ${
          JSON.stringify(publicUrlText.value)
        }`
      )
    }
    return {
      accountSid: accountSid.value,
      authToken: authToken.value,
      apiKey: Option.isSome(apiKey) && Option.isSome(apiSecret)
        ? { sid: apiKey.value, secret: apiSecret.value }
        : undefined,
      apiBase: apiBase.value,
      publicUrl: publicUrl.value
    } satisfies TwilioConfig
  })

/**
 * The settings, from the environment (module header).
 *
 * @category constructors
 */
export const config: Config.Config<TwilioConfig> = raw.pipe(Config.mapEffect(validate))

/**
 * How REST requests authenticate: the API key when there is one, else the auth token.
 *
 * @category constructors
 */
export const credentials = (config: TwilioConfig): Credentials =>
  config.apiKey === undefined
    ? { _tag: "AuthToken", authToken: config.authToken }
    : { _tag: "ApiKey", apiKeySid: config.apiKey.sid, apiKeySecret: config.apiKey.secret }
