/**
 * The `TextToSpeech` port over an OpenAI-compatible speech endpoint, `POST {baseUrl}/audio/speech`:
 * OpenAI's (`tts-1`, `tts-1-hd`, `gpt-4o-mini-tts`) and self-hosted servers that speak the same
 * protocol (Kokoro-FastAPI: `baseUrl` `http://host:8880/v1`, model `kokoro`, its own voice
 * names, no key).
 *
 * Request: JSON `{model, input, voice, response_format: "pcm"}`, plus `speed` (0.25 to 4) and
 * `instructions` (gpt-4o-mini-tts only) when configured. `voice` is `options.voice` (the
 * agent's `persona.voice`) or the configured default (`alloy`). `options.language` is not
 * sent: the endpoint has no such field (the voice and the text decide). An empty or blank text
 * gives no frames and no request.
 *
 * Answer: `pcm` is raw 16-bit little-endian mono PCM at 24 kHz, no header (OpenAI's reference;
 * Kokoro-FastAPI answers the same). The body is read as it arrives, never buffered whole:
 * each piece is decoded (a byte left over from an odd-sized piece waits for the next one),
 * brought to 8 kHz by `media/Resample` (a 60 dB anti-aliasing low-pass, no delay, its state
 * carried from piece to piece), and cut into 20 ms frames of 160 samples; when the body ends,
 * the resampler's tail is flushed and the last frame padded with silence. So the first frame
 * goes out as soon as the server has sent 20 ms of audio (plus the filter's 3 ms look-ahead).
 * A 2xx whose Content-Type says it is not raw PCM (JSON, text, a compressed or WAV format: a
 * server that ignored `response_format`) is `rejected`.
 *
 * Time: `timeoutMs` (default 10 s) bounds each wait, for the answer's headers and first bytes
 * and then for every next piece of the body: a server that stalls mid-answer fails the stream
 * with `timeout`, one that closes the connection mid-answer with `unavailable`. Either way the
 * audio received comes out first, all of it (the resampler's tail flushed, the last frame
 * padded), then the failure: the frames sent stay valid and nothing received is lost.
 * Interrupting the stream (barge-in) aborts the request and emits nothing more.
 *
 * Errors map to `SpeechError` as internal/OpenAiAudio says (an unknown voice or a text over
 * 4096 characters is OpenAI's 400: `rejected`); the key never appears in a message.
 *
 * @since 0.1.0
 */
import { SpeechError } from "@voice-agent/core/ports/SpeechToText"
import type { SynthesizeOptions } from "@voice-agent/core/ports/TextToSpeech"
import { TextToSpeech } from "@voice-agent/core/ports/TextToSpeech"
import * as Resample from "@voice-agent/media/Resample"
import * as Wav from "@voice-agent/media/Wav"
import { Duration, Effect, Layer, Stream } from "effect"
import type { Redacted } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import * as OpenAiAudio from "./internal/OpenAiAudio.ts"

/**
 * @category models
 */
export interface Config {
  /** Default `https://api.openai.com/v1`; a path prefix is kept, a trailing slash dropped. */
  readonly baseUrl?: string | undefined
  /** Sent as `Authorization: Bearer`; undefined for a server that takes no key. */
  readonly apiKey: Redacted.Redacted | undefined
  /** Default `tts-1`. */
  readonly model?: string | undefined
  /** The voice when the caller names none. Default `alloy`. */
  readonly voice?: string | undefined
  /** 0.25 to 4; absent: the server's default (1). */
  readonly speed?: number | undefined
  /** How to speak (gpt-4o-mini-tts); absent: not sent. */
  readonly instructions?: string | undefined
  /** For the answer's first bytes, then for each next piece of it. Default 10,000. */
  readonly timeoutMs?: number | undefined
}

/**
 * The rate of the `pcm` answer.
 *
 * @category models
 */
export const PCM_SAMPLE_RATE = 24_000

/**
 * Samples per frame: 20 ms at 8 kHz.
 *
 * @category models
 */
export const FRAME_SAMPLES = 160

/**
 * Bytes of 24 kHz PCM in, frames of 8 kHz PCM out (mutable: it lives inside one stream).
 *
 * @category models
 */
export interface Decoder {
  /** A byte left over from an odd-sized piece (the low byte of the next sample). */
  carry: number | undefined
  readonly downsampler: Resample.Downsampler
  /** The frame being filled, and how many samples it has. */
  frame: Int16Array
  filled: number
}

/**
 * @category constructors
 */
export const decoder = (): Decoder => ({
  carry: undefined,
  downsampler: new Resample.Downsampler(PCM_SAMPLE_RATE, 8000),
  frame: new Int16Array(FRAME_SAMPLES),
  filled: 0
})

/** The whole frames in `samples` after what `state` holds; the rest stays in `state`. */
const cut = (state: Decoder, samples: Int16Array): Array<Int16Array> => {
  const frames: Array<Int16Array> = []
  let at = 0
  while (at < samples.length) {
    const take = Math.min(FRAME_SAMPLES - state.filled, samples.length - at)
    state.frame.set(samples.subarray(at, at + take), state.filled)
    state.filled += take
    at += take
    if (state.filled === FRAME_SAMPLES) {
      frames.push(state.frame)
      state.frame = new Int16Array(FRAME_SAMPLES)
      state.filled = 0
    }
  }
  return frames
}

/**
 * Decodes the next piece of the body: answers the frames it completes.
 *
 * @category decoding
 */
export const push = (state: Decoder, bytes: Uint8Array): ReadonlyArray<Int16Array> => {
  let whole = bytes
  if (state.carry !== undefined) {
    whole = new Uint8Array(bytes.length + 1)
    whole[0] = state.carry
    whole.set(bytes, 1)
  }
  const even = whole.length & ~1
  state.carry = even < whole.length ? whole[even] : undefined
  if (even === 0) return []
  return cut(state, state.downsampler.push(Wav.decodeSamples(whole.subarray(0, even))))
}

/**
 * Ends the body: the remaining frames, the last one padded with silence. A byte left over
 * (half a sample) is dropped.
 *
 * @category decoding
 */
export const flush = (state: Decoder): ReadonlyArray<Int16Array> => {
  const frames = cut(state, state.downsampler.flush())
  if (state.filled > 0) {
    frames.push(state.frame)
    state.frame = new Int16Array(FRAME_SAMPLES)
    state.filled = 0
  }
  state.carry = undefined
  return frames
}

/** Content types of answers that are not raw PCM. */
const notPcm = /json|text\/|mpeg|mp3|ogg|opus|aac|flac|wav|webm/i

/**
 * The synthesizer for `config`, on the `HttpClient` in context.
 *
 * @category constructors
 */
export const make = (config: Config): Effect.Effect<TextToSpeech["Service"], never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const target = OpenAiAudio.endpoint(config.baseUrl, config.apiKey)
    const timeout = Duration.millis(config.timeoutMs ?? 10_000)
    const url = `${target.baseUrl}/audio/speech`
    const operation = "speech"

    /** The answer's body, or the failure of its request. */
    const body = (text: string, options: SynthesizeOptions | undefined) =>
      HttpClientRequest.post(url).pipe(
        (request) => OpenAiAudio.authorize(request, target),
        HttpClientRequest.bodyJsonUnsafe({
          model: config.model ?? "tts-1",
          input: text,
          voice: options?.voice ?? config.voice ?? "alloy",
          response_format: "pcm",
          ...(config.speed === undefined ? {} : { speed: config.speed }),
          ...(config.instructions === undefined ? {} : { instructions: config.instructions })
        }),
        client.execute,
        Effect.mapError((error) => OpenAiAudio.unreachable(target, operation, error)),
        Effect.flatMap((response): Effect.Effect<Stream.Stream<Uint8Array, SpeechError>, SpeechError> => {
          if (response.status < 200 || response.status > 299) {
            return response.text.pipe(
              Effect.mapError((error) => OpenAiAudio.unreachable(target, operation, error)),
              Effect.flatMap((text) => Effect.fail(OpenAiAudio.refused(target, operation, response.status, text)))
            )
          }
          const contentType = response.headers["content-type"]
          if (contentType !== undefined && notPcm.test(contentType)) {
            return Effect.fail(
              new SpeechError({
                reason: "rejected",
                message:
                  `the audio API at ${target.where} answered ${operation} with ${contentType}, not the raw PCM asked for`
              })
            )
          }
          return Effect.succeed(
            Stream.mapError(response.stream, (error) => OpenAiAudio.unreachable(target, operation, error))
          )
        }),
        Effect.withSpan("OpenAiSpeech.synthesize")
      )

    const synthesize = (text: string, options?: SynthesizeOptions): Stream.Stream<Int16Array, SpeechError> =>
      text.trim() === "" ? Stream.empty : Stream.unwrap(body(text, options)).pipe(
        Stream.timeoutOrElse({
          duration: timeout,
          orElse: () => Stream.fail(OpenAiAudio.timedOut(target, operation, timeout, "send the audio of"))
        }),
        // `onHalt` runs when the body ends and when it fails (Effect's Channel.mapAccum): the
        // audio received comes out whole before a failure (pinned by the tests)
        Stream.mapAccum(decoder, (state, bytes: Uint8Array) => [state, push(state, bytes)] as const, { onHalt: flush })
      )

    return TextToSpeech.of({ synthesize })
  })

/**
 * @category layers
 */
export const layer = (config: Config): Layer.Layer<TextToSpeech, never, HttpClient.HttpClient> =>
  Layer.effect(TextToSpeech, make(config))
