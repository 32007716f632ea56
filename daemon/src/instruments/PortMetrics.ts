/**
 * The engine's call metrics (core Metrics), counted at the ports a call goes through rather than
 * in the engine's code: each wrapper delegates to the port it wraps and counts what passed.
 *
 * - Calls: a conversation inserted (`ConversationRepository.insert`: direct and inbound calls) or
 *   a campaign call started (`DialerRepository.startCall`) is a call in progress; its end
 *   (`ConversationRepository.end` when it ended it, `DialerRepository.endCall`) counts it in
 *   `voice_agent_calls_total` with its termination reason and takes it out of
 *   `voice_agent_calls_active`.
 * - The dialer: claims, and expired leases recovered.
 * - The carrier: calls placed, failures by operation.
 * - Providers: the time to a chat model's first token and a voice's first audio, and failures,
 *   by kind and configured provider name.
 * - Recordings: writes that failed.
 *
 * Counts are of this process (each daemon serves its own `/metrics`). A call ended by another
 * process than the one that started it (an inbound call whose carrier webhook reached another
 * daemon) is counted where it ended, as `inbound` when that process did not see its start, and
 * stays active where it started; inbound calls closed by the abandoned-call sweep are not counted.
 *
 * @since 0.1.0
 */
import * as ContactState from "@voice-agent/core/ContactState"
import type { Direction } from "@voice-agent/core/Conversation"
import * as Metrics from "@voice-agent/core/Metrics"
import { Carrier } from "@voice-agent/core/ports/Carrier"
import type { ChatModel } from "@voice-agent/core/ports/ChatModel"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { DialerRepository } from "@voice-agent/core/ports/DialerRepository"
import type { LanguageProvider } from "@voice-agent/core/ports/Providers"
import { Providers } from "@voice-agent/core/ports/Providers"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import type { SpeechToText } from "@voice-agent/core/ports/SpeechToText"
import type { TextToSpeech } from "@voice-agent/core/ports/TextToSpeech"
import { Clock, Context, Effect, Layer, Option, Stream } from "effect"

const active = Metrics.labelled(Metrics.callsActive)
const ended = Metrics.labelled(Metrics.callsTotal)
const carrierErrors = Metrics.labelled(Metrics.carrierErrors)
const providerLatency = Metrics.labelled(Metrics.providerLatency)
const providerErrors = Metrics.labelled(Metrics.providerErrors)

const directions: ReadonlyArray<Direction> = ["outbound", "inbound"]

/** Exposes every unlabelled metric, and the active calls of both directions, from the start. */
const registerAll = Effect.sync(() => {
  for (const direction of directions) Metrics.registerUnsafe(active({ direction }))
  for (
    const metric of [
      Metrics.callsPlaced,
      Metrics.dialerClaims,
      Metrics.leasesRecovered,
      Metrics.turnLatency,
      Metrics.mediaFrameLag,
      Metrics.recordingWriteErrors
    ]
  ) Metrics.registerUnsafe(metric as never)
})

/** A call started in this process; `calls` remembers its direction until it ends. */
const started = (calls: Map<string, Direction>, conversationId: string, direction: Direction) => {
  calls.set(conversationId, direction)
  Metrics.addUnsafe(active({ direction }), 1)
}

/** A call ended: counted by direction and reason; out of the active ones if it started here. */
const finished = (
  calls: Map<string, Direction>,
  conversationId: string,
  fallback: Direction,
  reason: string
) => {
  const direction = calls.get(conversationId)
  if (direction !== undefined) {
    calls.delete(conversationId)
    Metrics.addUnsafe(active({ direction }), -1)
  }
  Metrics.observeUnsafe(ended({ direction: direction ?? fallback, termination_reason: reason }), 1)
}

/** A call of this process that something else ended (counted there): no longer active. */
const endedElsewhere = (calls: Map<string, Direction>, conversationId: string) => {
  const direction = calls.get(conversationId)
  if (direction === undefined) return
  calls.delete(conversationId)
  Metrics.addUnsafe(active({ direction }), -1)
}

/**
 * Runs `count` when `effect` fails or dies (not when it is interrupted).
 */
const countingFailures = <A, E, R>(effect: Effect.Effect<A, E, R>, count: () => void): Effect.Effect<A, E, R> =>
  Effect.onError(
    effect,
    (cause) => (cause.reasons.some((r) => r._tag !== "Interrupt") ? Effect.sync(count) : Effect.void)
  )

/**
 * A stream whose first element's delay is observed as `kind`'s latency, and whose failure is
 * counted (an interruption, a person who hung up, is not a failure).
 */
const timedStream = <A, E, R>(
  stream: Stream.Stream<A, E, R>,
  kind: string,
  provider: string
): Stream.Stream<A, E, R> =>
  Stream.unwrap(Effect.map(Clock.currentTimeMillis, (start) => {
    let first = true
    return stream.pipe(
      Stream.tap(() =>
        first
          ? Effect.map(Clock.currentTimeMillis, (now) => {
            first = false
            Metrics.observeUnsafe(providerLatency({ kind, provider }), (now - start) / 1000)
          })
          : Effect.void
      ),
      Stream.tapError(() => Effect.sync(() => Metrics.observeUnsafe(providerErrors({ kind, provider }), 1)))
    )
  }))

const chat = (model: ChatModel["Service"], provider: string): ChatModel["Service"] => ({
  ...model,
  stream: (request) => timedStream(model.stream(request), "llm", provider)
})

const language = (found: LanguageProvider, provider: string): LanguageProvider =>
  found._tag === "Chat"
    ? { _tag: "Chat", model: chat(found.model, provider) }
    : {
      _tag: "SpeechToSpeech",
      model: {
        ...found.model,
        converse: (call, session) =>
          countingFailures(
            found.model.converse(call, session),
            () => Metrics.observeUnsafe(providerErrors({ kind: "llm", provider }), 1)
          )
      }
    }

const stt = (service: SpeechToText["Service"], provider: string): SpeechToText["Service"] => ({
  ...service,
  transcribe: (audio, options) =>
    service.transcribe(audio, options).pipe(
      Stream.tapError(() => Effect.sync(() => Metrics.observeUnsafe(providerErrors({ kind: "stt", provider }), 1)))
    )
})

const tts = (service: TextToSpeech["Service"], provider: string): TextToSpeech["Service"] => ({
  ...service,
  synthesize: (text, options) => timedStream(service.synthesize(text, options), "tts", provider)
})

/**
 * The ports, counted (module header); over the ports as the rest of the daemon provides them.
 *
 * @category layers
 */
export const layer = Layer.effectContext(Effect.gen(function*() {
  yield* registerAll
  const conversations = yield* ConversationRepository
  const dialer = yield* DialerRepository
  const carrier = yield* Carrier
  const recordings = yield* RecordingStore
  const providers = yield* Providers
  const calls = new Map<string, Direction>()
  return Context.make(
    ConversationRepository,
    ConversationRepository.of({
      ...conversations,
      insert: (conversation) =>
        Effect.tap(conversations.insert(conversation), (record) =>
          Effect.sync(() => {
            if (record.endedAt === null) started(calls, record.id, record.direction)
          })),
      end: (conversationId, end) =>
        Effect.tap(conversations.end(conversationId, end), (endedNow) =>
          Effect.sync(() => {
            if (endedNow) finished(calls, conversationId, "inbound", end.terminationReason)
            else endedElsewhere(calls, conversationId)
          }))
    })
  ).pipe(
    Context.add(
      DialerRepository,
      DialerRepository.of({
        ...dialer,
        claim: (input) =>
          Effect.tap(dialer.claim(input), (claimed) =>
            Effect.sync(() => {
              if (claimed.length > 0) Metrics.observeUnsafe(Metrics.dialerClaims, claimed.length)
            })),
        startCall: (input) =>
          Effect.tap(dialer.startCall(input), (start) =>
            Effect.sync(() => {
              if (start._tag === "Dial") started(calls, start.conversationId, "outbound")
            })),
        endCall: (end) =>
          Effect.tap(dialer.endCall(end), () =>
            Effect.sync(() =>
              finished(
                calls,
                end.conversationId,
                "outbound",
                ContactState.terminationReasonFor(end.outcome, end.endedBy)
              )
            )),
        recoverExpired: (input) =>
          Effect.tap(dialer.recoverExpired(input), (recovered) =>
            Effect.sync(() => {
              if (recovered > 0) Metrics.observeUnsafe(Metrics.leasesRecovered, recovered)
            }))
      })
    ),
    Context.add(
      Carrier,
      Carrier.of({
        ...carrier,
        placeCall: (request) =>
          carrier.placeCall(request).pipe(
            Effect.tap(() => Effect.sync(() => Metrics.observeUnsafe(Metrics.callsPlaced, 1))),
            Effect.tapError(() =>
              Effect.sync(() => Metrics.observeUnsafe(carrierErrors({ operation: "place_call" }), 1))
            )
          ),
        hangUp: (callId) =>
          Effect.tapError(
            carrier.hangUp(callId),
            () => Effect.sync(() => Metrics.observeUnsafe(carrierErrors({ operation: "hang_up" }), 1))
          ),
        transfer: (callId, to) =>
          Effect.tapError(
            carrier.transfer(callId, to),
            () => Effect.sync(() => Metrics.observeUnsafe(carrierErrors({ operation: "transfer" }), 1))
          ),
        sendSms: (message) =>
          Effect.tapError(
            carrier.sendSms(message),
            () => Effect.sync(() => Metrics.observeUnsafe(carrierErrors({ operation: "send_sms" }), 1))
          )
      })
    ),
    Context.add(
      RecordingStore,
      RecordingStore.of({
        ...recordings,
        openWriter: (callId, channel) =>
          Effect.map(recordings.openWriter(callId, channel), (writer) => ({
            ...writer,
            write: (samples) =>
              Effect.tapError(
                writer.write(samples),
                () => Effect.sync(() => Metrics.observeUnsafe(Metrics.recordingWriteErrors, 1))
              )
          }))
      })
    ),
    Context.add(
      Providers,
      Providers.of({
        ...providers,
        llm: (name) => Option.map(providers.llm(name), (found) => language(found, name)),
        stt: (name) => Option.map(providers.stt(name), (found) => stt(found, name)),
        tts: (name) => Option.map(providers.tts(name), (found) => tts(found, name))
      })
    )
  )
}))
