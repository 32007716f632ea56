/**
 * A call's media wire as the engine's media session sees it: what a carrier's stream says,
 * decoded to the session's events, and what the session says back, encoded to the carrier's
 * frames. The session is written against this interface, not against a wire format, so one
 * session serves every carrier whose stream carries the same audio (as a Pipecat transport
 * takes a frame serializer): Twilio Media Streams today (`TwilioMediaCodec`), a SIP trunk's
 * RTP tomorrow.
 *
 * Owns: the session's vocabulary of the wire, nothing else. Pure: a frame in, an event out and
 * back; no socket, no state (what an encoder needs from the handshake, the stream's id, is
 * handed to it on each call), no logging.
 *
 * From the carrier (`InboundEvent`):
 * - `Connected`: a greeting before `Start` (Twilio's `connected`); the handshake skips it;
 * - `Start`: the stream begins; `streamId` names it in what is sent back, `token` is the
 *   per-call media token the carrier was handed (absent when the stream carries none);
 * - `Media`: `audio` of the person, μ-law (G.711, 8 kHz, mono), `timestampMs` since the stream
 *   started on the carrier's clock;
 * - `Mark`: the echo of an outgoing `Mark` (everything sent before it has played, or was cleared);
 * - `Dtmf`: a key the person pressed;
 * - `Stop`: the person hung up; the last event;
 * - `Ignored`: anything else (a malformed frame, an unknown event, audio of another track): the
 *   session ignores it once started, and refuses a stream whose first event is one.
 *
 * To the carrier (`OutboundEvent`): `Media` (the agent's audio, μ-law 8 kHz, played in order
 * after what was sent before), `Mark` (asks for its echo once everything before it has
 * played), `Clear` (drop what is buffered and not played; pending marks come back).
 *
 * Frames are text (`MediaSocket`'s frames); a wire of binary frames widens the socket's frames
 * with the codec's. Audio is μ-law at 8 kHz both ways, the call's timeline's own format: a wire
 * of another payload (A-law, a wider band) transcodes in its codec.
 *
 * Buffer ownership: a decoded `Media`'s `audio` is the codec's fresh bytes, handed to the
 * session (and on to the agent); `encode` reads `audio` and keeps nothing.
 *
 * @since 0.1.0
 */

/**
 * What the carrier's stream says, as the session reads it.
 *
 * @category models
 */
export type InboundEvent =
  | { readonly _tag: "Connected" }
  | { readonly _tag: "Start"; readonly streamId: string; readonly token: string | undefined }
  | { readonly _tag: "Media"; readonly timestampMs: number; readonly audio: Uint8Array }
  | { readonly _tag: "Mark"; readonly name: string }
  | { readonly _tag: "Dtmf"; readonly digit: string }
  | { readonly _tag: "Stop" }
  | { readonly _tag: "Ignored" }

/**
 * What the session says to the carrier.
 *
 * @category models
 */
export type OutboundEvent =
  | { readonly _tag: "Media"; readonly audio: Uint8Array }
  | { readonly _tag: "Mark"; readonly name: string }
  | { readonly _tag: "Clear" }

/**
 * One wire format: `decode` of a frame from the carrier (never throws: what it cannot read is
 * `Ignored`), `encode` of an event to the carrier on the stream `streamId` (the `Start`'s).
 *
 * @category models
 */
export interface MediaCodec {
  /** For logs: which wire this is. */
  readonly name: string
  readonly decode: (frame: string) => InboundEvent
  readonly encode: (streamId: string, event: OutboundEvent) => string
}

/**
 * The one `Ignored` event (decoders answer it without allocating).
 *
 * @category constructors
 */
export const ignored: InboundEvent = { _tag: "Ignored" }
