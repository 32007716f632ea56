/**
 * The SIP carrier's settings, read from the environment (CONTRACT §8, docs/SIP.md):
 *
 * | variable | |
 * | - | - |
 * | `SIP_TRUNK` | required: `sip:host[:port][;transport=udp\|tcp]`, where outbound INVITEs go (port 5060, UDP by default) |
 * | `SIP_USERNAME`, `SIP_PASSWORD` | optional, together: digest credentials for the trunk's challenges |
 * | `SIP_REGISTER` | `true` or `false` (default): register with the trunk and keep it refreshed |
 * | `SIP_LISTEN` | `host:port`, default `0.0.0.0:5060`; port 0 picks a free one |
 * | `SIP_PUBLIC_ADDRESS` | the host put in Via, Contact and SDP; default the listening host |
 * | `RTP_PORTS` | `low-high`, default `10000-20000`: at least two ports, within 1..65535 |
 * | `SIP_RING_TIMEOUT_S` | default 30: seconds of ringing before CANCEL and `no-answer` |
 *
 * As for Twilio's: values are trimmed, an empty one counts as not set, a bad one fails with a
 * `ConfigError` of one sentence naming it, and the password is `Redacted`.
 *
 * @since 0.1.0
 */
import { Config, ConfigProvider, Effect, Option, Redacted, Result } from "effect"
import * as SipUri from "./SipUri.ts"

/**
 * @category models
 */
export interface SipConfig {
  readonly trunk: { readonly host: string; readonly port: number; readonly transport: "udp" | "tcp" }
  readonly credentials: { readonly username: string; readonly password: Redacted.Redacted } | undefined
  readonly register: boolean
  readonly listen: { readonly host: string; readonly port: number }
  readonly publicAddress: string
  readonly rtpPorts: { readonly low: number; readonly high: number }
  readonly ringTimeoutS: number
}

const invalid = (message: string) => Effect.fail(new Config.ConfigError(new ConfigProvider.SourceError({ message })))
const text = (value: Option.Option<string>) => Option.filter(Option.map(value, (v) => v.trim()), (v) => v !== "")

const raw = Config.all({
  trunk: Config.option(Config.String("SIP_TRUNK")),
  username: Config.option(Config.String("SIP_USERNAME")),
  password: Config.option(Config.Redacted("SIP_PASSWORD")),
  register: Config.option(Config.String("SIP_REGISTER")),
  listen: Config.option(Config.String("SIP_LISTEN")),
  publicAddress: Config.option(Config.String("SIP_PUBLIC_ADDRESS")),
  rtpPorts: Config.option(Config.String("RTP_PORTS")),
  ringTimeout: Config.option(Config.String("SIP_RING_TIMEOUT_S"))
})

const validate = (values: typeof raw extends Config.Config<infer A> ? A : never) =>
  Effect.gen(function*() {
    const trunkText = text(values.trunk)
    if (Option.isNone(trunkText)) {
      return yield* invalid(
        "SIP_TRUNK is not set: the SIP carrier needs the trunk, as sip:host[:port][;transport=udp|tcp]"
      )
    }
    const trunk = SipUri.parse(trunkText.value)
    const shape = "SIP_TRUNK must be sip:host[:port][;transport=udp|tcp]"
    if (Result.isFailure(trunk)) return yield* invalid(`${shape}: ${trunk.failure.detail}`)
    const uri = trunk.success
    if (uri.scheme !== "sip" || uri.user !== undefined || uri.headers.length > 0) {
      return yield* invalid(`${shape}, not ${JSON.stringify(trunkText.value)}`)
    }
    const transport = (SipUri.param(uri, "transport") ?? "udp").toLowerCase()
    if (transport !== "udp" && transport !== "tcp") {
      return yield* invalid(`SIP_TRUNK's transport must be udp or tcp, not ${JSON.stringify(transport)}`)
    }
    if (uri.port === 0) return yield* invalid("SIP_TRUNK's port must be 1..65535")

    const username = text(values.username)
    const password = Option.map(text(Option.map(values.password, Redacted.value)), (v) => Redacted.make(v))
    if (Option.isSome(username) && Option.isNone(password)) {
      return yield* invalid("SIP_PASSWORD is not set: SIP_USERNAME is used only with its password")
    }
    if (Option.isNone(username) && Option.isSome(password)) {
      return yield* invalid("SIP_USERNAME is not set: SIP_PASSWORD is used only with a username")
    }

    const registerText = Option.getOrElse(text(values.register), () => "false").toLowerCase()
    if (registerText !== "true" && registerText !== "false") {
      return yield* invalid(`SIP_REGISTER must be true or false, not ${JSON.stringify(registerText)}`)
    }

    const listenText = Option.getOrElse(text(values.listen), () => "0.0.0.0:5060")
    const listen = SipUri.parseHostPort(listenText)
    if (Result.isFailure(listen) || listen.success.port === undefined) {
      return yield* invalid(`SIP_LISTEN must be host:port (port 0 picks one), not ${JSON.stringify(listenText)}`)
    }

    const publicText = Option.getOrElse(text(values.publicAddress), () => listen.success.host)
    if (!SipUri.isHost(publicText)) {
      return yield* invalid(
        `SIP_PUBLIC_ADDRESS must be a host name or an IP address, not ${JSON.stringify(publicText)}`
      )
    }

    const portsText = Option.getOrElse(text(values.rtpPorts), () => "10000-20000")
    const ports = /^(\d{1,5})-(\d{1,5})$/.exec(portsText)
    const low = ports === null ? 0 : Number(ports[1])
    const high = ports === null ? 0 : Number(ports[2])
    if (ports === null || low < 1 || high > 65535 || high <= low) {
      return yield* invalid(
        `RTP_PORTS must be low-high, two or more ports within 1..65535, not ${JSON.stringify(portsText)}`
      )
    }

    const ringText = Option.getOrElse(text(values.ringTimeout), () => "30")
    if (!/^\d{1,4}$/.test(ringText) || Number(ringText) < 1) {
      return yield* invalid(
        `SIP_RING_TIMEOUT_S must be a whole number of seconds, 1 or more, not ${JSON.stringify(ringText)}`
      )
    }

    return {
      trunk: { host: uri.host, port: uri.port ?? 5060, transport },
      credentials: Option.isSome(username) && Option.isSome(password)
        ? { username: username.value, password: password.value }
        : undefined,
      register: registerText === "true",
      listen: { host: listen.success.host, port: listen.success.port },
      publicAddress: publicText.toLowerCase(),
      rtpPorts: { low, high },
      ringTimeoutS: Number(ringText)
    } satisfies SipConfig
  })

/**
 * The settings, from the environment (module header).
 *
 * @category constructors
 */
export const config: Config.Config<SipConfig> = raw.pipe(Config.mapEffect(validate))
