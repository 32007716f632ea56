/**
 * SDP for an audio call (RFC 4566) and its offer/answer (RFC 3264): what the engine offers, what
 * it reads from the trunk, and the codec both ends then use.
 *
 * Owns: parsing a session description into its origin, connection and media sections (formats,
 * `rtpmap`, `fmtp`, `ptime`, direction); building the engine's offer (PCMU 0, PCMA 8,
 * telephone-event 101 `0-16`, 20 ms, sendrecv) and its answer to a trunk's offer (the first of
 * the offer's audio formats the engine speaks, the offer's own telephone-event payload type
 * honoured, every other stream refused with port 0, the direction mirrored); and reading the
 * choice out of an answer. Static payload types 0 and 8 need no `rtpmap`. Dynamic types are
 * matched by name case-insensitively. Does not own RTP.
 *
 * @since 0.1.0
 */
import { Result } from "effect"

/**
 * @category models
 */
export type Direction = "sendrecv" | "sendonly" | "recvonly" | "inactive"

/**
 * @category models
 */
export interface RtpMap {
  readonly encoding: string
  readonly clockRate: number
  readonly channels: number | undefined
}

/**
 * One `m=` section.
 *
 * @category models
 */
export interface Media {
  readonly type: string
  readonly port: number
  readonly proto: string
  /** As written; numbers for RTP profiles. */
  readonly formats: ReadonlyArray<string>
  /** The section's `c=` address, else the session's. */
  readonly address: string | undefined
  readonly rtpmap: ReadonlyMap<number, RtpMap>
  readonly fmtp: ReadonlyMap<number, string>
  readonly direction: Direction
  readonly ptime: number | undefined
}

/**
 * @category models
 */
export interface SessionDescription {
  readonly origin: {
    readonly username: string
    readonly sessionId: string
    readonly version: string
    readonly address: string
  }
  readonly media: ReadonlyArray<Media>
}

const DIRECTIONS: ReadonlyArray<Direction> = ["sendrecv", "sendonly", "recvonly", "inactive"]

/**
 * Parses a session description. Fails (with what is wrong) when a line is not `x=value`, the
 * origin or an `m=` line is malformed, or a media section has no connection address.
 *
 * @category decoding
 */
export const parse = (text: string): Result.Result<SessionDescription, string> => {
  const lines = text.split(/\r?\n/).filter((line) => line !== "")
  if (lines[0] !== "v=0") return Result.fail("SDP does not start with v=0")
  let origin: SessionDescription["origin"] | undefined
  let sessionAddress: string | undefined
  let sessionDirection: Direction = "sendrecv"
  interface Building {
    type: string
    port: number
    proto: string
    formats: Array<string>
    address: string | undefined
    rtpmap: Map<number, RtpMap>
    fmtp: Map<number, string>
    direction: Direction | undefined
    ptime: number | undefined
  }
  const media: Array<Building> = []
  for (const line of lines) {
    const match = /^([a-z])=(.*)$/.exec(line)
    if (match === null) return Result.fail(`a malformed SDP line "${line.slice(0, 40)}"`)
    const [, kind, value] = match as unknown as [string, string, string]
    const current = media[media.length - 1]
    if (kind === "o") {
      const parts = value.split(" ")
      if (parts.length !== 6 || parts[3] !== "IN") return Result.fail("a malformed SDP origin")
      origin = { username: parts[0]!, sessionId: parts[1]!, version: parts[2]!, address: parts[5]! }
    } else if (kind === "c") {
      const parts = /^IN IP[46] ([^\s/]+)(?:\/\d+)*$/.exec(value)
      if (parts === null) return Result.fail("a malformed SDP connection")
      if (current === undefined) sessionAddress = parts[1]
      else current.address = parts[1]
    } else if (kind === "m") {
      const parts = /^(\S+) (\d{1,5})(?:\/\d+)? (\S+)((?: \S+)*)$/.exec(value)
      if (parts === null || Number(parts[2]) > 65535) return Result.fail("a malformed SDP media line")
      media.push({
        type: parts[1]!,
        port: Number(parts[2]),
        proto: parts[3]!,
        formats: parts[4]!.trim() === "" ? [] : parts[4]!.trim().split(" "),
        address: undefined,
        rtpmap: new Map(),
        fmtp: new Map(),
        direction: undefined,
        ptime: undefined
      })
    } else if (kind === "a") {
      const colon = value.indexOf(":")
      const name = colon >= 0 ? value.slice(0, colon) : value
      const rest = colon >= 0 ? value.slice(colon + 1) : ""
      if ((DIRECTIONS as ReadonlyArray<string>).includes(name)) {
        if (current === undefined) sessionDirection = name as Direction
        else current.direction = name as Direction
      } else if (current !== undefined && name === "rtpmap") {
        const map = /^(\d{1,3}) ([^/\s]+)\/(\d+)(?:\/(\d+))?$/.exec(rest.trim())
        if (map !== null) {
          current.rtpmap.set(Number(map[1]), {
            encoding: map[2]!,
            clockRate: Number(map[3]),
            channels: map[4] === undefined ? undefined : Number(map[4])
          })
        }
      } else if (current !== undefined && name === "fmtp") {
        const fmtp = /^(\d{1,3}) (.*)$/.exec(rest.trim())
        if (fmtp !== null) current.fmtp.set(Number(fmtp[1]), fmtp[2]!)
      } else if (current !== undefined && name === "ptime" && /^\d+$/.test(rest.trim())) {
        current.ptime = Number(rest.trim())
      }
    }
  }
  if (origin === undefined) return Result.fail("SDP has no origin")
  for (const section of media) {
    section.address ??= sessionAddress
    if (section.address === undefined && section.port !== 0) return Result.fail("an SDP media stream has no address")
  }
  return Result.succeed({
    origin,
    media: media.map((section) => ({ ...section, direction: section.direction ?? sessionDirection }))
  })
}

/**
 * @category models
 */
export type Codec = "PCMU" | "PCMA"

const STATIC: Readonly<Record<Codec, number>> = { PCMU: 0, PCMA: 8 }

const codecOf = (media: Media, format: string): Codec | undefined => {
  if (!/^\d{1,3}$/.test(format)) return undefined
  const pt = Number(format)
  const map = media.rtpmap.get(pt)
  if (map !== undefined) {
    if (map.clockRate !== 8000 || (map.channels !== undefined && map.channels !== 1)) return undefined
    const name = map.encoding.toUpperCase()
    return name === "PCMU" || name === "PCMA" ? name : undefined
  }
  return pt === 0 ? "PCMU" : pt === 8 ? "PCMA" : undefined
}

const telephoneEventOf = (media: Media): number | undefined => {
  for (const format of media.formats) {
    const map = media.rtpmap.get(Number(format))
    if (map !== undefined && map.encoding.toLowerCase() === "telephone-event" && map.clockRate === 8000) {
      return Number(format)
    }
  }
  return undefined
}

/**
 * What both ends use for the call's audio.
 *
 * @category models
 */
export interface Negotiated {
  /** Index of the audio stream among the description's `m=` lines. */
  readonly index: number
  readonly codec: Codec
  readonly payloadType: number
  /** The peer's telephone-event payload type; `undefined` when it offers none. */
  readonly telephoneEvent: number | undefined
  /** Where to send RTP (until symmetric RTP learns better). */
  readonly address: string
  readonly port: number
  /** The peer's direction as it wrote it. */
  readonly direction: Direction
  /** The peer holds the call: it will not send (sendonly/inactive or the 0.0.0.0 address). */
  readonly held: boolean
}

/**
 * Picks the call's audio from the peer's description: the first active `RTP/AVP` audio stream,
 * its first PCMU or PCMA format in the peer's order. Fails with why (a 488's reason).
 *
 * @category negotiation
 */
export const negotiate = (description: SessionDescription): Result.Result<Negotiated, string> => {
  const offered: Array<string> = []
  for (let index = 0; index < description.media.length; index++) {
    const media = description.media[index]!
    if (media.type !== "audio" || media.port === 0) continue
    if (media.proto.toUpperCase() !== "RTP/AVP") {
      offered.push(media.proto)
      continue
    }
    for (const format of media.formats) {
      const codec = codecOf(media, format)
      if (codec === undefined) {
        const map = media.rtpmap.get(Number(format))
        offered.push(map === undefined ? format : `${format} ${map.encoding}`)
        continue
      }
      const address = media.address!
      return Result.succeed({
        index,
        codec,
        payloadType: Number(format),
        telephoneEvent: telephoneEventOf(media),
        address,
        port: media.port,
        direction: media.direction,
        held: media.direction === "sendonly" || media.direction === "inactive" || address === "0.0.0.0"
      })
    }
  }
  return Result.fail(
    offered.length === 0 ? "no audio stream offered" : `no common codec (offered: ${offered.join(", ")})`
  )
}

/**
 * The engine's side of the session.
 *
 * @category models
 */
export interface Local {
  /** Put in `o=` and `c=` (`SIP_PUBLIC_ADDRESS`). */
  readonly address: string
  /** The RTP port. */
  readonly port: number
  readonly sessionId: string
  /** Increase it for every new description of the same session (RFC 3264 §8). */
  readonly version: number
  readonly direction?: Direction
}

const header = (local: Local): Array<string> => {
  const ip = local.address.includes(":") ? "IP6" : "IP4"
  return [
    "v=0",
    `o=voice-agent ${local.sessionId} ${local.version} IN ${ip} ${local.address}`,
    "s=voice-agent",
    `c=IN ${ip} ${local.address}`,
    "t=0 0"
  ]
}

const TELEPHONE_EVENT = 101

/**
 * The engine's offer: PCMU, PCMA, telephone-event 101, 20 ms.
 *
 * @category negotiation
 */
export const offer = (local: Local): string =>
  [
    ...header(local),
    `m=audio ${local.port} RTP/AVP 0 8 ${TELEPHONE_EVENT}`,
    "a=rtpmap:0 PCMU/8000",
    "a=rtpmap:8 PCMA/8000",
    `a=rtpmap:${TELEPHONE_EVENT} telephone-event/8000`,
    `a=fmtp:${TELEPHONE_EVENT} 0-16`,
    "a=ptime:20",
    `a=${local.direction ?? "sendrecv"}`,
    ""
  ].join("\r\n")

const mirror = (direction: Direction): Direction =>
  direction === "sendonly" ? "recvonly" : direction === "recvonly" ? "sendonly" : direction

/**
 * The engine's answer to a peer's offer, with the negotiated audio. Every stream but the chosen
 * one is refused (port 0), as RFC 3264 §6 keeps the `m=` lines in number and order.
 *
 * @category negotiation
 */
export const answer = (
  remote: SessionDescription,
  local: Local
): Result.Result<{ readonly sdp: string; readonly negotiated: Negotiated }, string> => {
  const negotiated = negotiate(remote)
  if (Result.isFailure(negotiated)) return Result.fail(negotiated.failure)
  const chosen = negotiated.success
  const lines = header(local)
  remote.media.forEach((media, index) => {
    if (index !== chosen.index) {
      lines.push(`m=${media.type} 0 ${media.proto} ${media.formats[0] ?? "0"}`)
      return
    }
    const te = chosen.telephoneEvent
    lines.push(`m=audio ${local.port} RTP/AVP ${chosen.payloadType}${te === undefined ? "" : ` ${te}`}`)
    lines.push(`a=rtpmap:${chosen.payloadType} ${chosen.codec}/8000`)
    if (te !== undefined) lines.push(`a=rtpmap:${te} telephone-event/8000`, `a=fmtp:${te} 0-16`)
    lines.push("a=ptime:20", `a=${local.direction ?? mirror(chosen.direction)}`)
  })
  lines.push("")
  return Result.succeed({ sdp: lines.join("\r\n"), negotiated: chosen })
}

/**
 * The static payload type of a codec.
 *
 * @category negotiation
 */
export const payloadTypeOf = (codec: Codec): number => STATIC[codec]
