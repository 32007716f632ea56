/**
 * Where Twilio reaches the daemon (docs/TWILIO.md): the webhook paths under
 * `VOICE_AGENT_PUBLIC_URL`, the URLs this carrier hands Twilio with each call and message, and
 * the media streams' URL (the public URL's `ws`/`wss` twin). Pure: strings in, strings out.
 *
 * A call's webhooks carry our call id in the query (`call_id`), so a report reaching any daemon
 * names the call without a lookup; Twilio signs the URL with its query, so the id cannot be
 * changed in transit. The daemon validates `X-Twilio-Signature` against the public URL followed
 * by the path and query it received, which is the URL built here.
 *
 * @since 0.1.0
 */

/**
 * The webhook paths, relative to the public URL.
 *
 * @category constructors
 */
export const paths = {
  /** A call we placed, answered (its `Url`), or an incoming call (the number's voice URL). */
  voice: "/carrier/twilio/voice",
  /** A call's status callbacks. */
  status: "/carrier/twilio/status",
  /** An incoming SMS (the number's messaging URL). */
  sms: "/carrier/twilio/sms",
  /** A sent message's status callbacks. */
  smsStatus: "/carrier/twilio/sms-status",
  /** Media streams (WebSocket). */
  media: "/carrier/twilio/media"
} as const

/**
 * The query parameter that carries our call id.
 *
 * @category constructors
 */
export const callIdParameter = "call_id"

const withCallId = (url: string, callId: string) => `${url}?${callIdParameter}=${encodeURIComponent(callId)}`

/**
 * The `Url` of a call we place: Twilio requests it once the call is answered.
 *
 * @category constructors
 */
export const voiceUrl = (publicUrl: string, callId: string): string => withCallId(`${publicUrl}${paths.voice}`, callId)

/**
 * The `StatusCallback` of a call we place.
 *
 * @category constructors
 */
export const statusUrl = (publicUrl: string, callId: string): string =>
  withCallId(`${publicUrl}${paths.status}`, callId)

/**
 * The `StatusCallback` of a message we send.
 *
 * @category constructors
 */
export const smsStatusUrl = (publicUrl: string): string => `${publicUrl}${paths.smsStatus}`

/**
 * The URL media streams connect to: the public URL's WebSocket twin (`https` to `wss`, `http`
 * to `ws`; Twilio accepts only `wss`).
 *
 * @category constructors
 */
export const mediaUrl = (publicUrl: string): string => `${publicUrl.replace(/^http/, "ws")}${paths.media}`
