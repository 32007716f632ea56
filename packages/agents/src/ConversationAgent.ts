/**
 * The conversation runtime: the `Agent` that runs a call's agent definition (persona, task,
 * instructions, language, providers) by driving the pure conversation (`Conversation.step`)
 * with the call's events and carrying out its actions over the speech and language ports.
 * A call whose campaign or number has no definition gets the `fallback` agent (the scripted
 * reference agent, in the daemon).
 *
 * Per call, by the definition's providers (`Providers`, by name; absent names take the
 * defaults the runtime was built with):
 * - no `llm`: the deterministic policy, over speech-to-text and text-to-speech;
 * - an `llm` that is a chat model: the language-model policy; each `Generate` streams the model
 *   with the prompt built from the state as it is then, and each sentence is spoken as soon as
 *   it is complete; tool calls go through the same `step`, and their results back to the model
 *   for another round (at most `maxModelRounds`). A new utterance drops a reply still
 *   streaming: its sentences not yet said are never said.
 * - an `llm` that is a speech-to-speech model: the model hears and speaks (in its own encoding,
 *   μ-law passed through untouched); the runtime gives it the same prompt and tools and carries
 *   out its tool calls through the same `step`.
 *
 * Turn-taking: the session's voice activity detects barge-in, and the runtime interrupts the
 * agent's audio at once (the conversation decides what to say again). A final transcript of
 * the speech-to-text is the caller's turn. An answering machine is waited out (greeting and
 * beep) before the conversation starts.
 *
 * Failures: a provider failing (speech-to-text, text-to-speech, the model: an error answer, a
 * timeout, a dropped connection) ends the call at once as `agent-failure` (the conversation's
 * termination reason is `bot-failure`); nothing waits on a provider that went away. An `llm`,
 * `stt` or `tts` name that is not configured is the same failure, logged with the name.
 *
 * Collected fields are stored as they are recorded (`recordField`); a sensitive value is never
 * logged, and the conversation already keeps it out of the transcript.
 *
 * @since 0.1.0
 */
import type { FieldValue, Persona, Task } from "@voice-agent/core/AgentTask"
import type { AgentCall, AgentEnd, AudioEncoding, CallContext } from "@voice-agent/core/ports/Agent"
import { Agent } from "@voice-agent/core/ports/Agent"
import type { ChatMessage, ChatModel, ToolCall } from "@voice-agent/core/ports/ChatModel"
import type { LanguageProvider, Providers } from "@voice-agent/core/ports/Providers"
import type { SpeechToSpeech } from "@voice-agent/core/ports/SpeechToSpeech"
import type { PcmFrame, SpeechError, SpeechToText } from "@voice-agent/core/ports/SpeechToText"
import type { TextToSpeech } from "@voice-agent/core/ports/TextToSpeech"
import type { Cause } from "effect"
import { Clock, Deferred, Duration, Effect, Fiber, Option, Queue, Ref, Stream } from "effect"
import * as AnsweringMachine from "./AnsweringMachine.ts"
import type { TurnSignal } from "./AnsweringMachine.ts"
import * as CallInputs from "./CallInputs.ts"
import * as Conversation from "./conversation/Conversation.ts"
import * as DeterministicPolicy from "./conversation/DeterministicPolicy.ts"
import * as FieldExtraction from "./conversation/FieldExtraction.ts"
import * as ModelPolicy from "./conversation/ModelPolicy.ts"
import * as ModelPrompt from "./conversation/ModelPrompt.ts"
import * as Sentences from "./conversation/Sentences.ts"

/**
 * What the runtime needs of a stored agent definition.
 *
 * @category models
 */
export interface CallDefinition {
  readonly persona: Persona
  readonly task: Task | null
  readonly instructions: string | null
  readonly language: string | null
  readonly llm: string | null
  readonly stt: string | null
  readonly tts: string | null
}

/**
 * @category models
 */
export interface Settings {
  /** How long the caller has to answer once the agent has spoken (default 8000 ms). */
  readonly silenceMs: number
  /** Re-asks of a field the deterministic policy could not understand (default 2). */
  readonly maxReasks: number
  /** Quiet after an answering machine's greeting that means it records (default 1000 ms). */
  readonly machineQuietMs: number
  /** Rounds of tool calls and replies per `Generate` (default 4). */
  readonly maxModelRounds: number
}

/**
 * @category constants
 */
export const defaultSettings: Settings = { silenceMs: 8_000, maxReasks: 2, machineQuietMs: 1_000, maxModelRounds: 4 }

/**
 * What a remote agent (the reference SDK's protocol) is told of its call.
 *
 * @category models
 */
export type Note =
  | { readonly _tag: "CallerSpeech"; readonly text: string; readonly offsetMs: number }
  | { readonly _tag: "AgentSpeech"; readonly text: string; readonly interrupted: boolean }
  | { readonly _tag: "FieldRecorded"; readonly key: string; readonly value: FieldValue }
  | { readonly _tag: "TaskCompleted"; readonly taskId: string | undefined }
  | { readonly _tag: "Question"; readonly id: string; readonly text: string }
  | { readonly _tag: "ActionRequest"; readonly id: string; readonly text: string }
  | { readonly _tag: "ChoiceQuery"; readonly id: string; readonly key: string; readonly query: string }
  | { readonly _tag: "Escalate" }
  | { readonly _tag: "Dtmf"; readonly digit: string }

/**
 * A remote agent that drives a call's conversation: its commands in, notes out. The runtime
 * speaks and listens as for a definition (the call's definition's providers, if it has one);
 * the agent gives the persona and the tasks.
 *
 * @category models
 */
export interface Remote {
  /** Resolves once the agent is there to start the conversation; false: it never came. */
  readonly ready: Effect.Effect<boolean>
  /** The agent's commands, in order. */
  readonly commands: Queue.Dequeue<Conversation.Command>
  /** Keys the agent asks to send to the person (DTMF: 0-9, *, #, A-D, w for a half-second pause). */
  readonly keys: Queue.Dequeue<string>
  readonly notify: (note: Note) => Effect.Effect<void>
  /** Resolves when the agent is gone for good: the call ends as a failure of the agent. */
  readonly lost: Effect.Effect<void>
}

/**
 * @category models
 */
export interface Dependencies {
  /** The definition that answers the call, if its campaign or number has one. */
  readonly definitionFor: (callId: string) => Effect.Effect<Option.Option<CallDefinition>>
  /** Stores a collected value with the conversation. */
  readonly recordField: (conversationId: string, key: string, value: FieldValue) => Effect.Effect<void>
  /** The configured providers; absent: only the defaults. */
  readonly providers: Providers["Service"] | undefined
  /** Speech-to-text and text-to-speech of a definition that names none. */
  readonly stt: SpeechToText["Service"]
  readonly tts: TextToSpeech["Service"]
  /** The agent of calls without a definition. */
  readonly fallback: Agent["Service"]
  /** The remote agent that drives the call, if one does. */
  readonly remoteFor?: ((context: CallContext) => Effect.Effect<Option.Option<Remote>>) | undefined
  readonly settings?: Partial<Settings> | undefined
}

type Plan =
  | { readonly _tag: "Fallback" }
  | { readonly _tag: "Misconfigured"; readonly message: string }
  | {
    readonly _tag: "Pipeline"
    readonly definition: CallDefinition
    readonly stt: SpeechToText["Service"]
    readonly tts: TextToSpeech["Service"]
    readonly chat: ChatModel["Service"] | undefined
    readonly remote?: Remote | undefined
  }
  | {
    readonly _tag: "SpeechToSpeech"
    readonly definition: CallDefinition
    readonly model: SpeechToSpeech["Service"]
  }

const agentFailure: AgentEnd = { outcome: "agent-failure", endedBy: "agent" }

const noDefinition: CallDefinition = {
  persona: {},
  task: null,
  instructions: null,
  language: null,
  llm: null,
  stt: null,
  tts: null
}

/** The conversation's starting state of a definition, with the contact's data as variables. */
const initialState = (definition: CallDefinition): Conversation.State =>
  Conversation.make({
    persona: definition.persona,
    task: definition.task ?? undefined,
    instructions: definition.instructions === null || definition.instructions.trim() === ""
      ? []
      : [definition.instructions],
    language: definition.language ?? undefined
  })

const today = Effect.map(Clock.currentTimeMillis, (now) => {
  const date = new Date(now)
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() }
})

/** A command that only sets up the conversation, with nothing to say or do before the call starts. */
const isSetting = (command: Conversation.Command): boolean =>
  command._tag === "SetPersona" || command._tag === "SetHooks" || command._tag === "SetVariable" ||
  command._tag === "SetLanguage" || command._tag === "SetTask"

const callStarted = (context: CallContext) =>
  Effect.map(today, (day): Conversation.Event => ({
    _tag: "CallStarted",
    direction: context.direction,
    from: context.from,
    to: context.to,
    variables: context.data,
    answeredBy: context.answeredBy,
    today: day
  }))

/**
 * The runtime as an `Agent`.
 *
 * @category constructors
 */
export const make = (dependencies: Dependencies): Agent["Service"] => {
  const settings: Settings = { ...defaultSettings, ...dependencies.settings }
  const extractor: DeterministicPolicy.Extractor = (field, utterance, context) =>
    FieldExtraction.extract(field, utterance, { today: context.today })

  const remoteFor = dependencies.remoteFor ?? (() => Effect.succeedNone)
  const planFor = (context: CallContext): Effect.Effect<Plan> =>
    Effect.gen(function*() {
      const callId = context.callId
      const remote = yield* remoteFor(context)
      const found = yield* dependencies.definitionFor(callId)
      if (Option.isNone(remote)) return pickPlan(found)
      // A remote agent gives persona and tasks; a definition only its providers (a pipeline's).
      const plan = pickPlan(Option.some(Option.match(found, {
        onNone: () => noDefinition,
        onSome: (definition) => ({ ...noDefinition, stt: definition.stt, tts: definition.tts, llm: definition.llm })
      })))
      if (plan._tag === "Pipeline") return { ...plan, remote: remote.value }
      if (plan._tag === "SpeechToSpeech") {
        yield* Effect.logWarning(
          `Call ${callId}: a remote agent drives the conversation; the speech-to-speech model is not used`
        )
        return pickPlan(Option.some({ ...noDefinition, stt: null, tts: null }))
      }
      return plan
    })

  const pickPlan = (found: Option.Option<CallDefinition>): Plan => {
    if (Option.isNone(found)) return { _tag: "Fallback" }
    const definition = found.value
    const providers = dependencies.providers
    const lookup = <A>(kind: "llm" | "stt" | "tts", name: string, get: (name: string) => Option.Option<A>) => {
      const provider = get(name)
      if (Option.isSome(provider)) return provider.value
      const known = providers?.names[kind] ?? []
      return `The agent's ${kind} provider "${name}" is not configured (configured: ${
        known.length === 0 ? "none" : known.join(", ")
      })`
    }
    const none = (): Option.Option<never> => Option.none()
    const stt = definition.stt === null ? dependencies.stt : lookup("stt", definition.stt, providers?.stt ?? none)
    const tts = definition.tts === null ? dependencies.tts : lookup("tts", definition.tts, providers?.tts ?? none)
    const llm: LanguageProvider | string | undefined = definition.llm === null
      ? undefined
      : lookup("llm", definition.llm, providers?.llm ?? none)
    for (const provider of [stt, tts, llm]) {
      if (typeof provider === "string") return { _tag: "Misconfigured", message: provider }
    }
    const language = llm as LanguageProvider | undefined
    if (language?._tag === "SpeechToSpeech") return { _tag: "SpeechToSpeech", definition, model: language.model }
    return {
      _tag: "Pipeline",
      definition,
      stt: stt as SpeechToText["Service"],
      tts: tts as TextToSpeech["Service"],
      chat: language?.model
    }
  }

  // `encodingFor` runs just before `run` for the same call: the plan is looked up once.
  const planned = new Map<string, Plan>()

  return Agent.of({
    encoding: "pcm16",
    encodingFor: (context) =>
      Effect.flatMap(planFor(context), (plan): Effect.Effect<AudioEncoding> => {
        planned.set(context.callId, plan)
        switch (plan._tag) {
          case "Fallback": {
            const fallback = dependencies.fallback
            return fallback.encodingFor === undefined
              ? Effect.succeed(fallback.encoding)
              : fallback.encodingFor(context)
          }
          case "SpeechToSpeech":
            return Effect.succeed(plan.model.encoding)
          case "Pipeline":
          case "Misconfigured":
            return Effect.succeed("pcm16")
        }
      }),
    run: (call) =>
      Effect.gen(function*() {
        const cached = planned.get(call.context.callId)
        planned.delete(call.context.callId)
        const plan = cached ?? (yield* planFor(call.context))
        switch (plan._tag) {
          case "Fallback":
            return yield* dependencies.fallback.run(call)
          case "Misconfigured":
            yield* Effect.logError(`Call ${call.context.callId}: ${plan.message}`)
            return agentFailure
          case "Pipeline": {
            const remote = plan.remote
            if (remote === undefined) {
              return yield* Effect.scoped(pipeline(call, plan, settings, extractor, dependencies))
            }
            if (!(yield* remote.ready)) {
              yield* Effect.logError(`Call ${call.context.callId}: the remote agent never connected`)
              return agentFailure
            }
            return yield* Effect.raceFirst(
              Effect.scoped(pipeline(call, plan, settings, extractor, dependencies)),
              Effect.as(
                Effect.andThen(
                  remote.lost,
                  Effect.logError(`Call ${call.context.callId}: the remote agent went away and did not come back`)
                ),
                agentFailure
              )
            )
          }
          case "SpeechToSpeech":
            return yield* speechToSpeech(call, plan, settings, extractor, dependencies)
        }
      })
  })
}

type Queued =
  | { readonly _tag: "Event"; readonly event: Conversation.Event; readonly generation?: number | undefined }
  | { readonly _tag: "Failed"; readonly message: string }

/** Audio buffered ahead per queued speech: 2 s of 20 ms frames. */
const SYNTHESIS_AHEAD_FRAMES = 100

type Spoken =
  | {
    readonly _tag: "Speech"
    readonly id: number
    readonly text: string
    readonly sensitiveFree: boolean
    /** Its audio, synthesized from the moment it was queued (see `speak`). */
    readonly audio: Queue.Dequeue<Int16Array, SpeechError | Cause.Done>
    readonly synthesis: Fiber.Fiber<void>
  }
  | { readonly _tag: "Drained"; readonly done: Deferred.Deferred<void> }

/** The pipeline: speech-to-text, a policy (deterministic or a chat model), text-to-speech. */
const pipeline = (
  call: AgentCall,
  plan: Extract<Plan, { _tag: "Pipeline" }>,
  settings: Settings,
  extractor: DeterministicPolicy.Extractor,
  dependencies: Dependencies
) =>
  Effect.gen(function*() {
    const { definition, stt, tts, chat, remote } = plan
    const callId = call.context.callId
    const notify = remote === undefined ? () => Effect.void : remote.notify
    const policy = chat === undefined
      ? DeterministicPolicy.make({ extractor, maxReasks: settings.maxReasks, silenceMs: settings.silenceMs })
      : ModelPolicy.make({ extractor, silenceMs: settings.silenceMs })
    const events = yield* Queue.bounded<Queued>(1_024)
    const audio = yield* Queue.bounded<PcmFrame, Cause.Done>(500)
    const signals = yield* Queue.sliding<TurnSignal>(8)
    const speeches = yield* Queue.unbounded<Spoken>()
    const hungUp = yield* Deferred.make<void>()
    const offer = (event: Conversation.Event, generation?: number) =>
      Queue.offer(events, { _tag: "Event", event, generation })
    const fail = (message: string) => Queue.offer(events, { _tag: "Failed", message })
    const offsetNow = Effect.map(call.elapsedMs, Math.round)

    // The caller's side: audio to the recognizer, keys and voice activity to the conversation.
    yield* Effect.forkScoped(
      CallInputs.route(call, {
        audio,
        signals,
        onDtmf: (digit, offsetMs) =>
          Effect.andThen(notify({ _tag: "Dtmf", digit }), offer({ _tag: "Dtmf", digit, offsetMs }))
      }).pipe(
        Effect.ensuring(Effect.gen(function*() {
          yield* Deferred.succeed(hungUp, undefined)
          yield* offer({ _tag: "HungUp", offsetMs: yield* offsetNow })
        }))
      )
    )

    // What the caller said: final transcripts are utterances.
    const keywords = (definition.task?.action_items ?? []).flatMap((item) =>
      item.item_type === "field" && item.choices !== undefined ? item.choices : []
    )
    yield* Effect.forkScoped(
      stt.transcribe(Stream.fromQueue(audio), {
        ...(definition.language === null ? {} : { language: definition.language }),
        ...(keywords.length === 0 ? {} : { keywords })
      }).pipe(
        Stream.filter((transcript) => transcript.final && transcript.text.trim() !== ""),
        Stream.runForEach((transcript) =>
          offer({ _tag: "Utterance", text: transcript.text, offsetMs: Math.round(transcript.startMs) })
        ),
        Effect.catch((error) => fail(`speech-to-text failed: ${error.message}`))
      )
    )

    // The agent's side: one speech at a time, in order; an interruption drops what was queued.
    // Each speech is synthesized as soon as it is queued (a bounded buffer ahead), so the next
    // sentence of a reply is ready when the one before it has played: no provider latency is
    // heard between the sentences of one reply.
    const voice = definition.persona.voice ?? undefined
    const speak = (id: number, text: string, sensitiveFree: boolean) =>
      Effect.gen(function*() {
        const audio = yield* Queue.bounded<Int16Array, SpeechError | Cause.Done>(SYNTHESIS_AHEAD_FRAMES)
        const synthesis = yield* Effect.forkScoped(Stream.runIntoQueue(
          tts.synthesize(text, {
            ...(voice === undefined ? {} : { voice }),
            ...(definition.language === null ? {} : { language: definition.language })
          }),
          audio
        ))
        yield* Queue.offer(speeches, { _tag: "Speech", id, text, sensitiveFree, audio, synthesis })
      })
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      const next = yield* Queue.take(speeches)
      if (next._tag === "Drained") {
        yield* Deferred.succeed(next.done, undefined)
        return
      }
      const offsetMs = yield* offsetNow
      yield* call.emitTurn({
        speaker: "AGENT",
        text: next.sensitiveFree ? next.text : Conversation.Redacted,
        offsetMs
      })
      const failure = yield* Ref.make<string | undefined>(undefined)
      const playback = yield* call.say(
        Stream.fromQueue(next.audio).pipe(
          Stream.map((samples) => ({ encoding: "pcm16" as const, samples, timestampMs: 0 })),
          Stream.catch((error) => Stream.fromEffectDrain(Ref.set(failure, error.message)))
        )
      )
      const failed = yield* Ref.get(failure)
      if (failed !== undefined) {
        yield* fail(`text-to-speech failed: ${failed}`)
        return
      }
      yield* notify({
        _tag: "AgentSpeech",
        text: next.sensitiveFree ? next.text : Conversation.Redacted,
        interrupted: playback._tag === "Interrupted"
      })
      if (playback._tag === "Played") {
        yield* offer({ _tag: "SpeechPlayed", id: next.id, offsetMs: Math.round(playback.endMs) })
      } else {
        // Everything queued after it was dropped with it; a drain marker is kept.
        yield* Fiber.interrupt(next.synthesis)
        const rest = yield* Queue.takeAll(speeches)
        for (const item of rest) {
          if (item._tag === "Drained") yield* Queue.offer(speeches, item)
          else yield* Fiber.interrupt(item.synthesis)
        }
        yield* offer({
          _tag: "SpeechInterrupted",
          id: next.id,
          offsetMs: Math.round(playback.startMs + playback.playedMs),
          playedMs: Math.round(playback.playedMs)
        })
      }
    })))

    // The model: one generation at a time; a new one drops the one still streaming.
    const current = yield* Ref.make(
      remote === undefined
        ? initialState(definition)
        : { ...initialState(definition), controller: { answersQuestions: false, handlesRequests: false } }
    )
    let generation = 0
    let generating: Fiber.Fiber<void> | undefined
    const toolResults = new Map<string, Deferred.Deferred<string>>()
    const generate = (model: ChatModel["Service"], mine: number) =>
      Effect.gen(function*() {
        const exchanged: Array<ChatMessage> = []
        for (let round = 0; round < settings.maxModelRounds; round++) {
          const state = yield* Ref.get(current)
          if (state.ended !== undefined) return
          const calls: Array<{ readonly call: ToolCall; readonly result: Deferred.Deferred<string> }> = []
          let splitter = Sentences.empty
          let text = ""
          yield* model.stream({
            messages: [...ModelPrompt.messages(state), ...exchanged],
            tools: ModelPolicy.tools(state)
          })
            .pipe(Stream.runForEach((delta) =>
              Effect.gen(function*() {
                switch (delta._tag) {
                  case "Text": {
                    text += delta.text
                    const pushed = Sentences.push(splitter, delta.text)
                    splitter = pushed.splitter
                    for (const sentence of pushed.sentences) yield* offer({ _tag: "ModelText", text: sentence }, mine)
                    return
                  }
                  case "ToolCall": {
                    // Text before a tool call is complete: say it before the call is carried out.
                    const said = Sentences.flush(splitter)
                    splitter = Sentences.empty
                    if (said !== undefined) yield* offer({ _tag: "ModelText", text: said }, mine)
                    const result = yield* Deferred.make<string>()
                    calls.push({ call: delta.call, result })
                    toolResults.set(delta.call.id, result)
                    yield* offer({ _tag: "ModelToolCall", ...delta.call }, mine)
                    return
                  }
                  case "Finished":
                    return
                }
              })
            ))
          const rest = Sentences.flush(splitter)
          if (rest !== undefined) yield* offer({ _tag: "ModelText", text: rest }, mine)
          if (calls.length === 0) return
          exchanged.push({ role: "assistant", content: text === "" ? null : text, toolCalls: calls.map((c) => c.call) })
          for (const { call: toolCall, result } of calls) {
            exchanged.push({ role: "tool", toolCallId: toolCall.id, content: yield* Deferred.await(result) })
          }
        }
      }).pipe(Effect.catch((error) => fail(`the language model failed: ${error.message}`)), Effect.asVoid)

    const endOf = (state: Conversation.State): AgentEnd | undefined =>
      state.ended === undefined
        ? undefined
        : { outcome: state.ended.outcome, endedBy: state.ended.endedBy, transferTo: state.ended.transferTo }

    /** Carries out the actions of one step; answers the call's end once the agent ended it. */
    const perform = (actions: ReadonlyArray<Conversation.Action>, state: Conversation.State) =>
      Effect.gen(function*() {
        for (const action of actions) {
          switch (action._tag) {
            case "Say":
              yield* speak(action.id, action.text, action.sensitiveFree)
              break
            case "Ask":
              yield* speak(action.id, action.text, true)
              break
            case "RecordTurn":
              yield* call.emitTurn({ speaker: "HUMAN", text: action.text, offsetMs: action.offsetMs })
              yield* notify({ _tag: "CallerSpeech", text: action.text, offsetMs: action.offsetMs })
              break
            case "RecordField":
              yield* dependencies.recordField(call.context.conversationId, action.key, action.value)
              yield* notify({ _tag: "FieldRecorded", key: action.key, value: action.value })
              yield* Effect.logInfo(
                `Call ${callId}: field ${action.key} recorded${action.sensitive ? " (sensitive, not logged)" : ""}`
              )
              break
            case "CompleteTask":
              yield* Effect.logInfo(`Call ${callId}: task complete`)
              yield* notify({ _tag: "TaskCompleted", taskId: action.taskId })
              break
            case "Question":
            case "ActionRequest":
              yield* notify({ _tag: action._tag, id: action.id, text: action.text })
              break
            case "ChoiceQuery":
              yield* notify({ _tag: "ChoiceQuery", id: action.id, key: action.key, query: action.query })
              break
            case "Escalate":
              yield* notify({ _tag: "Escalate" })
              break
            case "StartSilenceTimer": {
              const id = action.id
              yield* Effect.forkScoped(
                Effect.sleep(Duration.millis(action.ms)).pipe(
                  Effect.andThen(offsetNow),
                  Effect.flatMap((offsetMs) => offer({ _tag: "SilenceTimeout", id, offsetMs }))
                )
              )
              break
            }
            case "Generate":
              if (chat !== undefined) {
                if (generating !== undefined) yield* Fiber.interrupt(generating)
                generation++
                generating = yield* Effect.forkScoped(generate(chat, generation))
              }
              break
            case "ToolResult": {
              const waiting = toolResults.get(action.id)
              toolResults.delete(action.id)
              if (waiting !== undefined) yield* Deferred.succeed(waiting, action.output)
              break
            }
            case "Transfer":
            case "EndCall":
              break
          }
        }
        return endOf(state)
      })

    // An answering machine: its greeting and beep first.
    if (call.context.answeredBy === "machine") {
      const nextSignal = (timeoutMs: number) =>
        Effect.raceFirst(
          Effect.map(Queue.take(signals), Option.some),
          Effect.as(Deferred.await(hungUp), Option.none<TurnSignal>())
        ).pipe(Effect.timeoutOption(Duration.millis(timeoutMs)), Effect.map(Option.flatten))
      yield* AnsweringMachine.awaitBeepEnd(nextSignal, settings.machineQuietMs)
    }

    // What the agent sent before the call started: its settings (persona, hooks, variables,
    // language, first task) are the conversation's starting point; what asks for speech or an
    // end (a script, an instruction, a transfer) comes right after the start, in its order.
    const early = remote === undefined ? [] : yield* Queue.takeAll(remote.commands)
    for (const command of early.filter(isSetting)) {
      const stepped = Conversation.step(yield* Ref.get(current), { _tag: "Command", command }, policy)
      yield* Ref.set(current, stepped.state)
    }
    yield* Queue.offer(events, { _tag: "Event", event: yield* callStarted(call.context) })
    if (remote !== undefined) {
      for (const command of early.filter((command) => !isSetting(command))) yield* offer({ _tag: "Command", command })
      yield* Effect.forkScoped(Effect.forever(
        Effect.flatMap(Queue.take(remote.commands), (command) => offer({ _tag: "Command", command }))
      ))
      yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(remote.keys), call.sendDtmf)))
    }
    for (;;) {
      const queued = yield* Queue.take(events)
      if (queued._tag === "Failed") {
        yield* Effect.logError(`Call ${callId}: ${queued.message}`)
        return agentFailure
      }
      const { event } = queued
      // Sentences and tool calls of a reply that was dropped are never said or done.
      if (queued.generation !== undefined && queued.generation !== generation) {
        if (event._tag === "ModelToolCall") {
          const waiting = toolResults.get(event.id)
          toolResults.delete(event.id)
          if (waiting !== undefined) yield* Deferred.succeed(waiting, "Dropped: the caller spoke.")
        }
        continue
      }
      const before = yield* Ref.get(current)
      const stepped = Conversation.step(before, event, policy)
      yield* Ref.set(current, stepped.state)
      if (event._tag === "ModelToolCall") {
        // A tool call that got no result of its own (one that ends the call) is answered here.
        const waiting = toolResults.get(event.id)
        const answered = stepped.actions.some((action) => action._tag === "ToolResult" && action.id === event.id)
        if (waiting !== undefined && !answered) {
          toolResults.delete(event.id)
          yield* Deferred.succeed(waiting, "Done.")
        }
      }
      const end = yield* perform(stepped.actions, stepped.state)
      if (end === undefined) continue
      if (end.endedBy === "remote") return end
      // The agent ended it: what is queued plays first (unless the caller hangs up meanwhile).
      const drained = yield* Deferred.make<void>()
      yield* Queue.offer(speeches, { _tag: "Drained", done: drained })
      yield* Effect.raceFirst(Deferred.await(drained), Deferred.await(hungUp))
      return end
    }
  })

/** A speech-to-speech model holds the conversation; its tool calls go through the policy. */
const speechToSpeech = (
  call: AgentCall,
  plan: Extract<Plan, { _tag: "SpeechToSpeech" }>,
  settings: Settings,
  extractor: DeterministicPolicy.Extractor,
  dependencies: Dependencies
) =>
  Effect.gen(function*() {
    const policy = ModelPolicy.make({ extractor, silenceMs: settings.silenceMs })
    const started = Conversation.step(initialState(plan.definition), yield* callStarted(call.context), policy)
    const current = yield* Ref.make(started.state)
    const opening = started.actions.flatMap((action) => action._tag === "Say" ? [action.text] : [])
    const ended = yield* plan.model.converse(call, {
      instructions: ModelPrompt.systemPrompt(started.state),
      voice: plan.definition.persona.voice ?? undefined,
      language: plan.definition.language ?? undefined,
      tools: ModelPolicy.tools(started.state),
      ...(opening.length === 0 ? {} : { opening: opening.join(" ") }),
      onToolCall: (toolCall) =>
        Effect.gen(function*() {
          const stepped = Conversation.step(yield* Ref.get(current), { _tag: "ModelToolCall", ...toolCall }, policy)
          yield* Ref.set(current, stepped.state)
          let output = "Done."
          for (const action of stepped.actions) {
            if (action._tag === "RecordField") {
              yield* dependencies.recordField(call.context.conversationId, action.key, action.value)
            }
            if (action._tag === "ToolResult") output = action.output
          }
          const end = stepped.state.ended
          return end === undefined
            ? { output }
            : { output, end: { outcome: end.outcome, endedBy: end.endedBy, transferTo: end.transferTo } }
        })
    }).pipe(
      Effect.catch((error) =>
        Effect.as(
          Effect.logError(`Call ${call.context.callId}: the speech-to-speech model failed: ${error.message}`),
          undefined
        )
      )
    )
    if (ended === undefined) return agentFailure
    if (ended._tag === "Ended") return ended.end
    const state = yield* Ref.get(current)
    return { outcome: state.completed ? "completed" : "cut-short", endedBy: "remote" } satisfies AgentEnd
  })
