/**
 * Session timers (RFC 4028): reading `Session-Expires` and `Min-SE`, and who refreshes.
 *
 * Owns: the interval a peer asks for and its refresher (`uac` or `uas`, the roles of the
 * transaction that carried it), the 422 a too-short interval gets, the headers of our answers
 * and refreshes, and the delays: the refresher refreshes at half the interval, the other side
 * ends the session when no refresh came by the interval less a third (at most 32 s). Pure; the
 * call's timer fiber uses it. Only when the peer asks: we never ask for a session timer.
 *
 * @since 0.1.0
 */
import { Result } from "effect"
import * as SipHeaders from "./SipHeaders.ts"
import * as SipMessage from "./SipMessage.ts"

/**
 * Our Min-SE (RFC 4028 §4: at least 90 s).
 *
 * @category limits
 */
export const MIN_SE = 90

/**
 * @category models
 */
export interface Asked {
  /** Seconds. */
  readonly interval: number
  readonly refresher: "uac" | "uas" | undefined
}

/**
 * The session timer a message asks for; `undefined` when it has no (valid) Session-Expires.
 *
 * @category decoding
 */
export const read = (message: { readonly headers: ReadonlyArray<SipMessage.Header> }): Asked | undefined => {
  const value = SipMessage.header(message, "Session-Expires")
  if (value === undefined) return undefined
  const [delta, ...rest] = value.split(";")
  const interval = SipHeaders.parseCount(delta!.trim(), "Session-Expires", 2 ** 31 - 1)
  if (Result.isFailure(interval)) return undefined
  const params = SipHeaders.parseParams(rest.length === 0 ? "" : `;${rest.join(";")}`, "Session-Expires")
  const refresher = Result.isSuccess(params)
    ? SipHeaders.param(params.success, "refresher")?.toLowerCase()
    : undefined
  return {
    interval: interval.success,
    refresher: refresher === "uac" || refresher === "uas" ? refresher : undefined
  }
}

/**
 * Whether the peer says it supports timers (`Supported: timer` or `Require: timer`).
 *
 * @category decoding
 */
export const supported = (message: { readonly headers: ReadonlyArray<SipMessage.Header> }): boolean =>
  [...SipMessage.headerValues(message, "Supported"), ...SipMessage.headerValues(message, "Require")]
    .some((value) => value.split(",").some((option) => option.trim().toLowerCase() === "timer"))

/**
 * The refresher a UAS answers with for a request asking `asked`: the one asked, else the peer
 * (uac) when it supports timers, else ourselves (uas).
 *
 * @category negotiation
 */
export const chooseRefresher = (asked: Asked, peerSupports: boolean): "uac" | "uas" =>
  asked.refresher ?? (peerSupports ? "uac" : "uas")

/**
 * The headers of a 2xx answering a request that asked `asked` (with `refresher` chosen).
 *
 * @category encoding
 */
export const answerHeaders = (interval: number, refresher: "uac" | "uas"): Array<SipMessage.Header> => [
  { name: "Session-Expires", value: `${interval};refresher=${refresher}` },
  { name: "Require", value: "timer" }
]

/**
 * The headers of a refresh we send as the refresher (we are its UAC).
 *
 * @category encoding
 */
export const refreshHeaders = (interval: number): Array<SipMessage.Header> => [
  { name: "Session-Expires", value: `${interval};refresher=uac` },
  { name: "Supported", value: "timer" }
]

/**
 * How long until the next action, in ms: the refresher refreshes at half the interval; the
 * other side sends BYE at the interval less min(32 s, a third) (RFC 4028 §10).
 *
 * @category timing
 */
export const delayMs = (interval: number, weRefresh: boolean): number =>
  weRefresh ? (interval * 1000) / 2 : (interval - Math.min(32, interval / 3)) * 1000
