/**
 * The `SpeechToText` port over an OpenAI-compatible transcription endpoint,
 * `POST {baseUrl}/audio/transcriptions`: OpenAI's (`whisper-1`, `gpt-4o-transcribe`,
 * `gpt-4o-mini-transcribe`) and self-hosted Whisper servers that speak the same protocol
 * (faster-whisper-server/speaches: `baseUrl` `http://host:8000/v1`, no key).
 *
 * The endpoint takes a whole file and answers its whole text, so the adapter cuts the call's
 * audio into utterances itself, with the project's energy voice activity detector
 * (`media/Vad`), and transcribes each utterance as it ends:
 *
 * - An utterance starts where the detector's speech starts (`startFrames` voiced frames in a
 *   row; the speech began at the first of them) and ends where it ends (`hangoverFrames`
 *   quiet frames in a row, 400 ms by default; the speech ended before the first of them).
 *   The file sent holds `preRollMs` (default 200 ms) of the audio before the start, so a soft
 *   onset is not clipped, and the quiet frames after the end.
 * - Utterances are capped at `maxUtteranceMs` (default 30 s, Whisper's window): longer speech
 *   is cut there, and what follows is the next utterance. The audio held is at most one
 *   utterance's (480 kB at the cap) per request in flight.
 * - A gap in the frames' timestamps is silence (the port's rule): inside an utterance it is
 *   written into the file as silence, so the file's times stay the call's, and it counts as
 *   quiet frames for the detector. A frame that overlaps the previous one is read as if it
 *   followed it.
 * - When the audio ends inside an utterance, that utterance ends there (trailing quiet frames
 *   left out of its times).
 *
 * Each utterance becomes one request: multipart/form-data with `file` (`utterance.wav`,
 * `audio/wav`: 16-bit PCM mono 8 kHz, `media/Wav`'s header; Whisper resamples to 16 kHz
 * itself), `model`, `response_format` `json`, `language` (the primary subtag of the BCP 47
 * tag when it is a two-letter ISO-639-1 code: `en-US` gives `en`; a three-letter one, which has
 * no ISO-639-1 code, is left out so the model detects the language), and `prompt` (the
 * keywords, comma-separated, up to 600 characters: Whisper reads at most 224 tokens of
 * prompt). Its answer `{"text"}` becomes one final transcript with the utterance's `startMs`
 * and `endMs` (the speech's first and last frame, on the frames' time base); an empty text
 * gives none. There are no interim transcripts (`interimResults` is ignored): the endpoint
 * has none.
 *
 * Up to `concurrency` (default 2) utterances are transcribed at once, and their transcripts
 * come out in the order the utterances were spoken; while that many are in flight, the next
 * utterance waits, and so does the reading of the audio (backpressure, not a growing queue).
 * Each request has `timeoutMs` (default 30 s) to be answered. The first failure fails the stream with a `SpeechError`
 * (internal/OpenAiAudio says which reason for which answer); the key never appears in a
 * message.
 *
 * @since 0.1.0
 */
import type { PcmFrame, TranscribeOptions, Transcript } from "@voice-agent/core/ports/SpeechToText"
import { SpeechError, SpeechToText } from "@voice-agent/core/ports/SpeechToText"
import * as Vad from "@voice-agent/media/Vad"
import * as Wav from "@voice-agent/media/Wav"
import { Duration, Effect, Layer, Result, Schema, Stream } from "effect"
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
  /** Default `whisper-1`. */
  readonly model?: string | undefined
  /** Per utterance's request. Default 30,000. */
  readonly timeoutMs?: number | undefined
  /** The voice activity detector's thresholds and counts (media/Vad's defaults). */
  readonly vad?: Vad.Options | undefined
  /** Audio kept before the start of speech. Default 200. */
  readonly preRollMs?: number | undefined
  /** Longest utterance; longer speech is cut. Default 30,000. */
  readonly maxUtteranceMs?: number | undefined
  /** Utterances transcribed at once (transcripts stay in order). Default 2. */
  readonly concurrency?: number | undefined
}

/**
 * One utterance, as sent: its samples (pre-roll and trailing quiet frames included) and the
 * span of its speech in the frames' time base.
 *
 * @category models
 */
export interface Utterance {
  readonly samples: Int16Array
  readonly startMs: number
  readonly endMs: number
}

const SAMPLES_PER_MS = 8
const FRAME_MS = 20
const MAX_PROMPT_CHARS = 600

interface Frame {
  readonly samples: Int16Array
  readonly startMs: number
  readonly endMs: number
}

/**
 * The segmenter's state (mutable: it lives inside one stream).
 *
 * @category models
 */
export interface Segmenter {
  readonly startFrames: number
  readonly preRollMs: number
  readonly maxUtteranceMs: number
  vad: Vad.State
  /** Where the next frame is expected (the previous one's end), undefined before the first. */
  cursorMs: number | undefined
  /** While silent: the last frames, enough for the pre-roll and the detector's start run. */
  recent: Array<Frame>
  /** While speaking: the utterance's frames, and where its speech started. */
  frames: Array<Frame>
  speechStartMs: number
}

/**
 * A segmenter in silence.
 *
 * @category constructors
 */
export const segmenter = (
  options: { readonly vad?: Vad.Options | undefined; readonly preRollMs?: number; readonly maxUtteranceMs?: number } =
    {}
): Segmenter => {
  const vad = Vad.make(options.vad)
  return {
    startFrames: vad.config.startFrames,
    preRollMs: options.preRollMs ?? 200,
    maxUtteranceMs: options.maxUtteranceMs ?? 30_000,
    vad,
    cursorMs: undefined,
    recent: [],
    frames: [],
    speechStartMs: 0
  }
}

const concat = (frames: ReadonlyArray<Frame>): Int16Array => {
  const out = new Int16Array(frames.reduce((n, frame) => n + frame.samples.length, 0))
  let at = 0
  for (const frame of frames) {
    out.set(frame.samples, at)
    at += frame.samples.length
  }
  return out
}

/** The utterance so far, its speech ending before the last `quiet` frames; none if all are quiet. */
const close = (state: Segmenter, quiet: number): ReadonlyArray<Utterance> => {
  const frames = state.frames
  state.frames = []
  const lastVoiced = frames[frames.length - 1 - quiet]
  if (lastVoiced === undefined) return []
  return [{ samples: concat(frames), startMs: state.speechStartMs, endMs: lastVoiced.endMs }]
}

const durationOf = (frames: ReadonlyArray<Frame>) =>
  frames.length === 0 ? 0 : frames[frames.length - 1]!.endMs - frames[0]!.startMs

/** One frame (the segmenter keeps its own copy). */
const feed = (state: Segmenter, frame: Frame): ReadonlyArray<Utterance> => {
  const { event, state: vad } = Vad.step(state.vad, frame.samples)
  const wasSpeaking = state.vad.speaking
  const run = state.vad.run
  state.vad = vad
  if (!wasSpeaking) {
    state.recent.push(frame)
    if (event === "speech-start") {
      const recent = state.recent
      state.recent = []
      const firstVoiced = recent[Math.max(0, recent.length - state.startFrames)]!
      state.speechStartMs = firstVoiced.startMs
      state.frames = recent.filter((f) => f.endMs > firstVoiced.startMs - state.preRollMs)
      return []
    }
    // keep the detector's start run and the pre-roll before it
    const recent = state.recent
    while (
      recent.length > state.startFrames &&
      recent[recent.length - state.startFrames]!.endMs - recent[1]!.startMs >= state.preRollMs
    ) recent.shift()
    return []
  }
  state.frames.push(frame)
  if (event === "speech-end") return close(state, run + 1)
  if (durationOf(state.frames) >= state.maxUtteranceMs) {
    const cut = close(state, vad.run)
    state.speechStartMs = frame.endMs
    return cut
  }
  return []
}

/**
 * Feeds one frame of the call's audio: answers the utterances it ends (a gap before it
 * included).
 *
 * @category constructors
 */
export const step = (state: Segmenter, input: PcmFrame): ReadonlyArray<Utterance> => {
  const out: Array<Utterance> = []
  const startMs = Math.max(input.timestampMs, state.cursorMs ?? input.timestampMs)
  let gapMs = state.cursorMs === undefined ? 0 : startMs - state.cursorMs
  // silence for the gap: in frames while speaking (the detector may end the utterance in it)
  while (gapMs * SAMPLES_PER_MS >= 1 && state.vad.speaking) {
    const ms = Math.min(FRAME_MS, gapMs)
    const at = startMs - gapMs
    out.push(
      ...feed(state, { samples: new Int16Array(Math.round(ms * SAMPLES_PER_MS)), startMs: at, endMs: at + ms })
    )
    gapMs -= ms
  }
  if (gapMs * SAMPLES_PER_MS >= 1) {
    // silent: the gap breaks the detector's start run, and a long one pushes what came before
    // it out of the pre-roll
    const ms = Math.min(gapMs, state.preRollMs)
    if (gapMs >= state.preRollMs) state.recent = []
    out.push(
      ...feed(state, {
        samples: new Int16Array(Math.round(ms * SAMPLES_PER_MS)),
        startMs: startMs - ms,
        endMs: startMs
      })
    )
  }
  state.cursorMs = startMs
  if (input.samples.length === 0) return out
  const endMs = startMs + input.samples.length / SAMPLES_PER_MS
  state.cursorMs = endMs
  out.push(...feed(state, { samples: input.samples.slice(), startMs, endMs }))
  return out
}

/**
 * Ends the audio: the utterance it ends, if any.
 *
 * @category constructors
 */
export const end = (state: Segmenter): ReadonlyArray<Utterance> => state.vad.speaking ? close(state, state.vad.run) : []

/**
 * The `language` field for a BCP 47 tag: its primary subtag when that is a two-letter ISO-639-1
 * code, else undefined.
 *
 * @category constructors
 */
export const languageCode = (tag: string | undefined): string | undefined => {
  const primary = tag?.split(/[-_]/)[0]?.toLowerCase()
  return primary !== undefined && /^[a-z]{2}$/.test(primary) ? primary : undefined
}

/**
 * The `prompt` field for the keywords: comma-separated, as many as fit in 600 characters.
 *
 * @category constructors
 */
export const promptOf = (keywords: ReadonlyArray<string> | undefined): string | undefined => {
  const kept: Array<string> = []
  let length = 0
  for (const keyword of keywords ?? []) {
    const word = keyword.trim()
    if (word === "") continue
    const added = (kept.length === 0 ? 0 : 2) + word.length
    if (length + added > MAX_PROMPT_CHARS) break
    kept.push(word)
    length += added
  }
  return kept.length === 0 ? undefined : kept.join(", ")
}

/**
 * An utterance as a WAV file (16-bit PCM mono 8 kHz).
 *
 * @category encoding
 */
export const wavOf = (samples: Int16Array): Uint8Array<ArrayBuffer> => {
  const header = Wav.header(samples.length * 2)
  const file = new Uint8Array(header.length + samples.length * 2)
  file.set(header)
  file.set(Wav.encodeSamples(samples), header.length)
  return file
}

const Transcription = Schema.Struct({ text: Schema.String })
const decodeTranscription = Schema.decodeUnknownResult(Schema.fromJsonString(Transcription))

/**
 * The recognizer for `config`, on the `HttpClient` in context.
 *
 * @category constructors
 */
export const make = (config: Config): Effect.Effect<SpeechToText["Service"], never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const target = OpenAiAudio.endpoint(config.baseUrl, config.apiKey)
    const model = config.model ?? "whisper-1"
    const timeout = Duration.millis(config.timeoutMs ?? 30_000)
    const concurrency = Math.max(1, Math.floor(config.concurrency ?? 2))
    const url = `${target.baseUrl}/audio/transcriptions`
    const operation = "transcription"
    // a bad detector setting is a caller bug: it throws here, once, not in every call
    segmenter({ vad: config.vad })

    const transcribeOne = Effect.fn("OpenAiTranscription.transcribe")(
      function*(utterance: Utterance, fields: ReadonlyArray<readonly [string, string]>) {
        const form = new FormData()
        form.append("file", new File([wavOf(utterance.samples)], "utterance.wav", { type: "audio/wav" }))
        form.append("model", model)
        form.append("response_format", "json")
        for (const [name, value] of fields) form.append(name, value)
        const answer = yield* HttpClientRequest.post(url).pipe(
          (request) => OpenAiAudio.authorize(request, target),
          HttpClientRequest.acceptJson,
          HttpClientRequest.bodyFormData(form),
          client.execute,
          Effect.flatMap((response) => Effect.map(response.text, (text) => ({ status: response.status, text }))),
          Effect.mapError((error) => OpenAiAudio.unreachable(target, operation, error)),
          Effect.timeoutOrElse({
            duration: timeout,
            orElse: () => Effect.fail(OpenAiAudio.timedOut(target, operation, timeout, "answer"))
          })
        )
        if (answer.status < 200 || answer.status > 299) {
          return yield* OpenAiAudio.refused(target, operation, answer.status, answer.text)
        }
        const decoded = decodeTranscription(answer.text)
        if (Result.isFailure(decoded)) {
          return yield* new SpeechError({
            reason: "unavailable",
            message:
              `the audio API at ${target.where} answered ${operation} with HTTP ${answer.status} but not the documented JSON`
          })
        }
        const text = decoded.success.text.trim()
        const transcripts: ReadonlyArray<Transcript> = text === ""
          ? []
          : [{ text, startMs: utterance.startMs, endMs: utterance.endMs, final: true }]
        return transcripts
      }
    )

    const transcribe = (audio: Stream.Stream<PcmFrame>, options?: TranscribeOptions) => {
      const language = languageCode(options?.language)
      const prompt = promptOf(options?.keywords)
      const fields: ReadonlyArray<readonly [string, string]> = [
        ...(language === undefined ? [] : [["language", language] as const]),
        ...(prompt === undefined ? [] : [["prompt", prompt] as const])
      ]
      const transcripts: Stream.Stream<Transcript, SpeechError> = audio.pipe(
        Stream.mapAccum(
          () =>
            segmenter({
              vad: config.vad,
              preRollMs: config.preRollMs ?? 200,
              maxUtteranceMs: config.maxUtteranceMs ?? 30_000
            }),
          (state, frame) => [state, step(state, frame)] as const,
          { onHalt: end }
        ),
        Stream.mapEffect((utterance) => transcribeOne(utterance, fields), { concurrency }),
        Stream.flattenIterable
      )
      return transcripts
    }

    return SpeechToText.of({ transcribe })
  })

/**
 * @category layers
 */
export const layer = (config: Config): Layer.Layer<SpeechToText, never, HttpClient.HttpClient> =>
  Layer.effect(SpeechToText, make(config))
