/**
 * The scripted reference agent, the default: a short, fixed conversation that exercises every
 * part of a call (speaking, listening by voice activity, recognizing speech, turns, outcomes)
 * with no language model. It greets the person by the contact's `data` (`name`, else
 * `first_name`; a caller on an inbound call is thanked for calling), asks whether they have a
 * moment (a caller: how it can help), waits for the person's turn (voice activity
 * on their channel: speech starts, then stops), takes what the speech-to-text heard in it as a
 * HUMAN turn, thanks them, says goodbye, and gives the person a moment to hang up before it
 * ends the call itself. An answering machine gets a message after its greeting and beep.
 *
 * Outcomes (the contact's status follows, docs/DECISIONS.md "Dialing"): the conversation reached
 * its goodbye, `completed` (`user-hangup` if the person hung up after it, `bot-hangup` if the agent
 * did); the person hung up before it or while it played (so a person who says "bye" and hangs
 * up as the agent starts its goodbye, however late the hang-up reaches it), `cut-short`; a
 * machine, `voicemail`. A goodbye the person talked over, staying on the line, was reached.
 *
 * Speech goes through the `TextToSpeech` and `SpeechToText` ports, so the same agent speaks
 * simulated speech with the simulated carrier and real speech with real providers. Traced, its
 * greeting and its turn are spans with their steps (`TurnTrace`), as a pipeline's.
 *
 * @since 0.1.0
 */
import type { ContactData } from "@voice-agent/core/Contact"
import * as Metrics from "@voice-agent/core/Metrics"
import type { AgentCall, AgentEnd, CallContext } from "@voice-agent/core/ports/Agent"
import { Agent } from "@voice-agent/core/ports/Agent"
import type { PcmFrame, SpeechError, Transcript } from "@voice-agent/core/ports/SpeechToText"
import { SpeechToText } from "@voice-agent/core/ports/SpeechToText"
import { TextToSpeech } from "@voice-agent/core/ports/TextToSpeech"
import { Deferred, Duration, Effect, Fiber, Layer, Option, Queue, Stream } from "effect"
import type { Cause } from "effect"
import * as AnsweringMachine from "./AnsweringMachine.ts"
import type { TurnSignal } from "./AnsweringMachine.ts"
import * as CallInputs from "./CallInputs.ts"
import * as TurnTrace from "./TurnTrace.ts"

/** After a hang-up, how long the recognizer may take to transcribe what it still has. */
const transcribeGraceMs = 2_000

/**
 * The script's lines and waits.
 *
 * @category models
 */
export interface Script {
  /** The first line: by the call's direction, and for a contact by its `data`. */
  readonly greeting: (context: CallContext) => string
  readonly thanks: string
  readonly voicemail: string
  /** How long to wait for the person to start speaking after a question. */
  readonly answerTimeoutMs: number
  /** After the goodbye, how long the person has to hang up before the agent does. */
  readonly hangUpGraceMs: number
  /** Silence after a machine's greeting (and beep) that means it is recording. */
  readonly machineQuietMs: number
}

const nameOf = (data: ContactData): string | undefined => {
  for (const key of ["name", "first_name"]) {
    const value = data[key]
    if (typeof value === "string" && value.trim() !== "") return value.trim()
  }
  return undefined
}

/**
 * @category constructors
 */
export const defaultScript: Script = {
  greeting: (context) => {
    if (context.direction === "inbound") return "Hello, thank you for calling. How can I help you today?"
    const name = nameOf(context.data)
    return `Hello${name === undefined ? "" : ` ${name}`}, this is an automated call. Do you have a moment?`
  },
  thanks: "Thank you for your time. Goodbye.",
  voicemail: "Hello, this is an automated call. We will call again later. Goodbye.",
  answerTimeoutMs: 8_000,
  hangUpGraceMs: 3_000,
  machineQuietMs: 1_000
}

/**
 * The agent over the speech ports.
 *
 * @category constructors
 */
export const make = (script: Script = defaultScript) =>
  Effect.gen(function*() {
    const stt = yield* SpeechToText
    const tts = yield* TextToSpeech
    return Agent.of({
      encoding: "pcm16",
      run: (call) => Effect.scoped(converse(call, script, stt, tts))
    })
  })

/**
 * The agent as a layer.
 *
 * @category layers
 */
export const layer = (script: Script = defaultScript): Layer.Layer<Agent, never, SpeechToText | TextToSpeech> =>
  Layer.effect(Agent, make(script))

/**
 * Where the call's audio goes, and what the recognizer heard in it. A recognizer that runs in
 * process takes the call's audio from the session directly (`takeAudio`), frame by frame as it
 * is read, its transcripts queued for the turns; audio that still comes as input (after a failed
 * sink) meets the same recognizer, and the input's end (the person hung up) is the recognizer's:
 * what it still holds comes last. Otherwise the audio goes through a queue to `transcribe`, which
 * may fall behind (`blocks`): routing the input then waits for it.
 */
const hearing = (
  call: AgentCall,
  stt: SpeechToText["Service"]
): Effect.Effect<{
  readonly audio: CallInputs.AudioRoute
  /** Whether handing audio to the recognizer can wait (its queue full). */
  readonly blocks: boolean
  /** Runs `f` on each transcript, in order, until the recognizer ends. */
  readonly forEachTranscript: (f: (transcript: Transcript) => Effect.Effect<void>) => Effect.Effect<void, SpeechError>
}> =>
  Effect.gen(function*() {
    if (stt.recognizer === undefined || call.takeAudio === undefined) {
      const audio = yield* Queue.bounded<PcmFrame, Cause.Done>(500)
      const transcripts = stt.transcribe(Stream.fromQueue(audio))
      return {
        audio: CallInputs.toQueue(audio),
        blocks: true,
        forEachTranscript: (f) => Stream.runForEach(transcripts, f)
      }
    }
    const recognize = stt.recognizer()
    const heard = yield* Queue.bounded<Transcript, Cause.Done>(64)
    const hear = (frame: PcmFrame) => {
      for (const transcript of recognize.push(frame)) Queue.offerUnsafe(heard, transcript)
    }
    yield* call.takeAudio((frame) => {
      if (frame.encoding === "pcm16") hear(frame)
    })
    return {
      audio: {
        offerAll: (frames) =>
          Effect.sync(() => {
            for (const frame of frames) hear(frame)
          }),
        end: Effect.sync(() => {
          Queue.offerAllUnsafe(heard, recognize.end())
          Queue.endUnsafe(heard)
        })
      },
      blocks: false,
      // A loop on the queue, not a stream: one wait per transcript, and no stream per call
      forEachTranscript: (f) =>
        Queue.take(heard).pipe(
          Effect.flatMap(f),
          Effect.forever({ disableYield: true }),
          Effect.catch(() => Effect.void) // the recognizer ended
        )
    }
  })

const converse = (
  call: AgentCall,
  script: Script,
  stt: SpeechToText["Service"],
  tts: TextToSpeech["Service"]
) =>
  Effect.gen(function*() {
    // Ended when the person hangs up: a wait for the next signal ends with it.
    const signals = yield* Queue.sliding<TurnSignal, Cause.Done>(8)
    const heard = yield* Queue.sliding<{ readonly text: string; readonly startMs: number; readonly endMs: number }>(8)
    const hungUp = yield* Deferred.make<void>()
    const hangUp = Effect.andThen(Deferred.succeed(hungUp, undefined), Queue.end(signals))
    const trace = yield* TurnTrace.make(call, { stt: "default", tts: "default" })

    // The recognizer takes the audio before anything reads the input.
    const { audio, blocks, forEachTranscript } = yield* hearing(call, stt)
    // The call's input: audio to the recognizer, voice activity to the turn-taking. The
    // hang-up is known from the end of the input; when routing can wait for a recognizer behind
    // on its audio (a loaded machine), from the session at once too, or the agent would carry on
    // its script (a fiber of its own: one fewer per call when nothing waits).
    yield* Effect.forkScoped(
      CallInputs.route(call, { audio, signals, onDtmf: () => Effect.void }).pipe(Effect.ensuring(hangUp))
    )
    if (blocks && call.hungUp !== undefined) {
      yield* Effect.forkScoped(Effect.andThen(call.hungUp, hangUp))
    }
    // What the person said, as HUMAN turns.
    const recognition = yield* Effect.forkScoped(
      forEachTranscript((transcript) =>
        transcript.final && transcript.text.trim() !== ""
          ? Effect.andThen(
            trace.heard(transcript),
            Effect.andThen(
              call.emitTurn({ speaker: "HUMAN", text: transcript.text, offsetMs: Math.round(transcript.startMs) }),
              Queue.offer(heard, { text: transcript.text, startMs: transcript.startMs, endMs: transcript.endMs })
            )
          )
          : Effect.void
      ).pipe(Effect.catch((error) => Effect.logWarning(`Speech recognition failed: ${error.message}`)))
    )

    const say = (text: string) =>
      Effect.gen(function*() {
        const offsetMs = yield* call.elapsedMs
        yield* call.emitTurn({ speaker: "AGENT", text, offsetMs })
        const turn = trace.current()
        const stage = yield* trace.stage(turn, "tts")
        trace.speaking(turn)
        const playback = yield* call.say(
          tts.synthesize(text).pipe(
            stage.stream,
            Stream.map((samples) => ({ encoding: "pcm16" as const, samples, timestampMs: 0 })),
            Stream.catch(() => Stream.empty)
          )
        )
        yield* trace.played(turn, playback)
        return playback
      })

    /**
     * The next turn signal, or none when the person hangs up (the signals before it first) or
     * `timeoutMs` passes.
     */
    const nextSignal = (timeoutMs: number) =>
      Queue.take(signals).pipe(
        Effect.option,
        Effect.timeoutOption(Duration.millis(timeoutMs)),
        Effect.map(Option.flatten)
      )

    // The person hung up: what they said before it is transcribed first (the recognizer ends
    // with the audio), within `transcribeGraceMs`, so the transcript keeps their last words.
    const remoteEnd = (outcome: AgentEnd["outcome"]): Effect.Effect<AgentEnd> =>
      Fiber.await(recognition).pipe(
        Effect.timeoutOption(Duration.millis(transcribeGraceMs)),
        Effect.as({ outcome, endedBy: "remote" } as const)
      )
    const isHungUp = Deferred.isDone(hungUp)

    if (call.context.answeredBy === "machine") {
      yield* AnsweringMachine.awaitBeepEnd(nextSignal, script.machineQuietMs)
      if (yield* isHungUp) return yield* remoteEnd("voicemail")
      yield* trace.greeting
      yield* say(script.voicemail)
      return { outcome: "voicemail", endedBy: "agent" } satisfies AgentEnd
    }

    yield* trace.greeting
    yield* say(script.greeting(call.context))
    if (yield* isHungUp) return yield* remoteEnd("cut-short")
    // The person's turn: speech starts, then stops; what the recognizer heard in it follows.
    const started = yield* nextSignal(script.answerTimeoutMs)
    let answered: { readonly endMs: number } | undefined
    if (Option.isSome(started)) {
      for (;;) {
        const next = yield* nextSignal(script.answerTimeoutMs)
        if (Option.isNone(next) || next.value._tag === "Stopped") break
      }
      answered = Option.getOrUndefined(yield* Queue.take(heard).pipe(Effect.timeoutOption(Duration.millis(1_500))))
    }
    if (yield* isHungUp) return yield* remoteEnd("cut-short")
    const thanks = yield* say(script.thanks)
    if (answered !== undefined) {
      Metrics.observeTurnUnsafe(answered.endMs, thanks.startMs)
      const latency = { userStoppedMs: answered.endMs, agentStartedMs: thanks.startMs, stages: {} }
      trace.replied(latency)
      yield* call.emitLatency(latency)
    }
    // A goodbye the hang-up cut off was not heard: the person left before the end.
    if (yield* isHungUp) return yield* remoteEnd(thanks._tag === "Played" ? "completed" : "cut-short")
    const left = yield* Deferred.await(hungUp).pipe(Effect.timeoutOption(Duration.millis(script.hangUpGraceMs)))
    return Option.isSome(left)
      ? yield* remoteEnd("completed")
      : ({ outcome: "completed", endedBy: "agent" } satisfies AgentEnd)
  })
