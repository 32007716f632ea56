/**
 * The credential one daemon presents to another to relay a call's live audio (ListenRelay,
 * docs/LISTEN.md "Several daemons"): the daemon that accepted a listener (its key or ticket
 * checked there) asks the daemon serving the call's media for one channel of it.
 *
 * A grant names the daemon it is for, the organization and call, the channel, and whether the
 * listener was waiting since before the media started (then the relay starts with the call's
 * opening, LiveCalls' `fromAnswer`). It is signed like a media stream token (MediaToken's
 * format and checks, the grant as JSON in place of the call id) with a key of its own, derived
 * from the installation's cursor key (ServerSecrets) that every daemon on the database shares:
 * any daemon can make one, and only for the daemons of its installation. It lives `ttlMs` and
 * is good for one relay (the serving daemon remembers the grants it took until they expire).
 *
 * @since 0.1.0
 */
import { RecordingChannel } from "@voice-agent/core/Conversation"
import { Option, Schema } from "effect"
import { derive } from "./internal/hmacKeys.ts"
import * as MediaToken from "./MediaToken.ts"

const label = "voice-agent listen relay grant v1"

/**
 * What a grant allows.
 *
 * @category models
 */
export interface Grant {
  /** The daemon that serves the call's media, the only one that accepts the grant. */
  readonly daemonId: string
  readonly organizationId: string
  readonly callId: string
  readonly channel: typeof RecordingChannel.Type
  /** Start with the call's opening (the listener has been waiting since before the media). */
  readonly fromAnswer: boolean
}

/**
 * How long a grant is good for: the time to open one WebSocket between two daemons.
 *
 * @category constructors
 */
export const ttlMs = 10_000

const Wire = Schema.Tuple([Schema.String, Schema.String, Schema.String, RecordingChannel, Schema.Boolean])
const decodeWire = Schema.decodeUnknownOption(Schema.fromJsonString(Wire))

/**
 * The grant key for an installation's cursor key.
 *
 * @category constructors
 */
export const keyFrom = (cursorKey: Uint8Array): Uint8Array => derive(cursorKey, label)

/**
 * A grant, good until `expiresAt` (epoch ms).
 *
 * @category encoding
 */
export const sign = (key: Uint8Array, grant: Grant, expiresAt: number): string =>
  MediaToken.sign(
    key,
    JSON.stringify([grant.daemonId, grant.organizationId, grant.callId, grant.channel, grant.fromAnswer]),
    expiresAt
  )

/**
 * The grant of a valid token not expired at `now`, with its expiry; none for anything else.
 *
 * @category decoding
 */
export const verify = (
  key: Uint8Array,
  token: string,
  now: number
): Option.Option<{ readonly grant: Grant; readonly expiresAt: number }> =>
  Option.flatMap(
    MediaToken.verify(key, token, now),
    (subject) =>
      Option.map(decodeWire(subject), ([daemonId, organizationId, callId, channel, fromAnswer]) => ({
        grant: { daemonId, organizationId, callId, channel, fromAnswer },
        expiresAt: Number(token.split(".")[1])
      }))
  )
