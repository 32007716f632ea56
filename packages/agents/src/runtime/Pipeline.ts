/**
 * A call's conversation as a pipeline: speech-to-text, a policy (deterministic, or a chat model
 * whose replies stream sentence by sentence), text-to-speech, driven through the pure dialogue
 * (`Dialogue.step`). A chat model's reply is one response for a turn: its sentences are spoken
 * from the first one complete, its tool calls carried out as each arrives, and the model is
 * asked again (with the calls and their results) only when a call was refused or the reply had
 * nothing to say. The caller's audio goes to the recognizer and its final transcripts are
 * the caller's turns; the agent's speeches play one at a time, each synthesized as soon as it is
 * queued; barge-in interrupts the agent's audio; an answering machine is waited out first; a
 * SDK agent's commands and keys come in, and notes about the call go out to it. Traced, the
 * greeting and each reply are spans with their steps (`TurnTrace`). A transfer is the call's
 * (`AgentCall.transfer`), once its message has played: moved, the call ends `transfer`;
 * refused, the dialogue hears why (the model as its `transfer` call's result, an SDK agent as a
 * `TransferFailed` note) and goes on.
 *
 * @since 0.1.0
 */
import * as Metrics from "@voice-agent/core/Metrics"
import type { AgentCall, AgentEnd } from "@voice-agent/core/ports/Agent"
import type { ChatMessage, ChatModel, ToolCall } from "@voice-agent/core/ports/ChatModel"
import type { PcmFrame, SpeechError } from "@voice-agent/core/ports/SpeechToText"
import * as TurnLatency from "@voice-agent/core/TurnLatency"
import type { Cause } from "effect"
import { Deferred, Duration, Effect, Fiber, Option, Queue, Ref, Stream } from "effect"
import * as AnsweringMachine from "../AnsweringMachine.ts"
import type { TurnSignal } from "../AnsweringMachine.ts"
import * as CallInputs from "../CallInputs.ts"
import type { Dependencies, Settings } from "../ConversationAgent.ts"
import * as DeterministicPolicy from "../dialogue/DeterministicPolicy.ts"
import * as Dialogue from "../dialogue/Dialogue.ts"
import * as ModelPolicy from "../dialogue/ModelPolicy.ts"
import * as ModelPrompt from "../dialogue/ModelPrompt.ts"
import * as Sentences from "../dialogue/Sentences.ts"
import * as TurnTrace from "../TurnTrace.ts"
import { agentFailure, callStarted, initialState } from "./CallDialogue.ts"
import type { PipelinePlan } from "./CallPlan.ts"
import * as Speeches from "./Speeches.ts"

/** A command that only sets up the conversation, with nothing to say or do before the call starts. */
const isSetting = (command: Dialogue.Command): boolean =>
  command._tag === "SetPersona" || command._tag === "SetHooks" || command._tag === "SetVariable" ||
  command._tag === "SetLanguage" || command._tag === "SetTask"

type Queued =
  | { readonly _tag: "Event"; readonly event: Dialogue.Event; readonly generation?: number | undefined }
  | { readonly _tag: "Failed"; readonly message: string }

/**
 * What became of a model's tool call: its output for the model, whether it was refused, and the
 * turns of the dialogue once it was carried out (where the call goes among them when the model
 * hears back).
 */
interface ToolOutcome {
  readonly output: string
  readonly refused: boolean
  readonly turns: number
}

/** The output of a call made after a refused one in the same response. */
const notCarriedOut = "Error: not carried out, since a call before it in your response was refused."

/**
 * Runs a call through the pipeline (module header).
 *
 * @category constructors
 */
export const run = (
  call: AgentCall,
  plan: PipelinePlan,
  settings: Settings,
  extractor: DeterministicPolicy.Extractor,
  dependencies: Dependencies
) =>
  Effect.gen(function*() {
    const { definition, stt, tts, chat, sdkAgent } = plan
    const callId = call.context.callId
    const notify = sdkAgent === undefined ? () => Effect.void : sdkAgent.notify
    const policy = chat === undefined
      ? DeterministicPolicy.make({ extractor, maxReasks: settings.maxReasks, silenceMs: settings.silenceMs })
      : ModelPolicy.make({ extractor, silenceMs: settings.silenceMs })
    const events = yield* Queue.bounded<Queued>(1_024)
    const audio = yield* Queue.bounded<PcmFrame, Cause.Done>(500)
    const signals = yield* Queue.sliding<TurnSignal>(8)
    const speeches = yield* Queue.unbounded<Speeches.Spoken>()
    const hungUp = yield* Deferred.make<void>()
    const offer = (event: Dialogue.Event, generation?: number) =>
      Queue.offer(events, { _tag: "Event", event, generation })
    const fail = (message: string) => Queue.offer(events, { _tag: "Failed", message })
    const offsetNow = Effect.map(call.elapsedMs, Math.round)
    const trace = yield* TurnTrace.make(call, {
      stt: definition.stt ?? "default",
      llm: chat === undefined ? undefined : definition.llm ?? "default",
      tts: definition.tts ?? "default"
    })

    // The caller's side: audio to the recognizer, keys and voice activity to the conversation.
    yield* Effect.forkScoped(
      CallInputs.route(call, {
        audio: CallInputs.toQueue(audio),
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

    // What the caller said: final transcripts are utterances. The end of the last one not yet
    // answered, for the turn latency (core Metrics, `emitLatency`): when the recognizer's final
    // transcript came after it (stt), and the model's first words for the reply (llm).
    let heardEndMs: number | undefined
    let sttMs: number | undefined
    let llmFirstTokenMs: number | undefined
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
          Effect.flatMap(call.elapsedMs, (now) => {
            heardEndMs = transcript.endMs
            sttMs = Math.max(0, now - transcript.endMs)
            llmFirstTokenMs = undefined
            return Effect.andThen(
              trace.heard(transcript),
              offer({ _tag: "Utterance", text: transcript.text, offsetMs: Math.round(transcript.startMs) })
            )
          })
        ),
        Effect.catch((error) => fail(`speech-to-text failed: ${error.message}`))
      )
    )

    // The agent's side: one speech at a time, in order; an interruption drops what was queued.
    // Each speech is synthesized as soon as it is queued (a bounded buffer ahead), so the next
    // sentence of a reply is ready when the one before it has played: no provider latency is
    // heard between the sentences of one reply.
    const voice = definition.persona.voice ?? undefined
    const speak = (id: number, text: string, sensitiveFree: boolean, turn: TurnTrace.Turn | undefined) =>
      Effect.gen(function*() {
        const audio = yield* Queue.bounded<Int16Array, SpeechError | Cause.Done>(Speeches.SYNTHESIS_AHEAD_FRAMES)
        const timing: { firstByteMs?: number } = {}
        const requestedAt = yield* call.elapsedMs
        const stage = yield* trace.stage(turn, "tts")
        const synthesis = yield* Effect.forkScoped(stage.run(Stream.runIntoQueue(
          tts.synthesize(text, {
            ...(voice === undefined ? {} : { voice }),
            ...(definition.language === null ? {} : { language: definition.language })
          }).pipe(Stream.tap(() =>
            timing.firstByteMs === undefined
              ? Effect.andThen(
                stage.first,
                Effect.map(call.elapsedMs, (now) => void (timing.firstByteMs = Math.max(0, now - requestedAt)))
              )
              : Effect.void
          )),
          audio
        )))
        yield* Queue.offer(speeches, { _tag: "Speech", id, text, sensitiveFree, audio, synthesis, timing, turn })
      })
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      const next = yield* Queue.take(speeches)
      if (next._tag === "Drained") {
        yield* Deferred.succeed(next.done, undefined)
        return
      }
      const offsetMs = yield* offsetNow
      trace.speaking(next.turn)
      yield* call.emitTurn({
        speaker: "AGENT",
        text: next.sensitiveFree ? next.text : Dialogue.Redacted,
        offsetMs
      })
      const failure = yield* Ref.make<string | undefined>(undefined)
      const playback = yield* call.say(
        Stream.fromQueue(next.audio).pipe(
          Stream.map((samples) => ({ encoding: "pcm16" as const, samples, timestampMs: 0 })),
          Stream.catch((error) => Stream.fromEffectDrain(Ref.set(failure, error.message)))
        )
      )
      yield* trace.played(next.turn, playback)
      if (heardEndMs !== undefined) {
        Metrics.observeTurnUnsafe(heardEndMs, playback.startMs)
        const latency = TurnLatency.fromSteps(heardEndMs, playback.startMs, {
          stt_ms: sttMs,
          llm_first_token_ms: llmFirstTokenMs,
          tts_first_byte_ms: next.timing.firstByteMs
        })
        trace.replied(latency)
        yield* call.emitLatency(latency)
        heardEndMs = undefined
      }
      const failed = yield* Ref.get(failure)
      if (failed !== undefined) {
        yield* fail(`text-to-speech failed: ${failed}`)
        return
      }
      yield* notify({
        _tag: "AgentSpeech",
        text: next.sensitiveFree ? next.text : Dialogue.Redacted,
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
      sdkAgent === undefined
        ? initialState(definition)
        : { ...initialState(definition), controller: { answersQuestions: false, handlesRequests: false } }
    )
    let generation = 0
    let generating: Fiber.Fiber<void> | undefined
    /** The turn the current generation answers (TurnTrace): where its sentences are said. */
    let generatingTurn: TurnTrace.Turn | undefined
    const toolResults = new Map<string, Deferred.Deferred<ToolOutcome>>()
    const generate = (model: ChatModel["Service"], mine: number, turn: TurnTrace.Turn | undefined) =>
      Effect.gen(function*() {
        const exchanges: Array<ModelPrompt.Exchange> = []
        const requestedAt = yield* call.elapsedMs
        const replying = heardEndMs !== undefined && llmFirstTokenMs === undefined
        for (let round = 0; round < settings.maxModelRounds; round++) {
          const state = yield* Ref.get(current)
          if (state.ended !== undefined) return
          const calls: Array<{ readonly call: ToolCall; readonly result: Deferred.Deferred<ToolOutcome> }> = []
          let splitter = Sentences.empty
          let said = false
          const sayModelText = (text: string | undefined) => {
            if (text === undefined) return Effect.void
            if (text.trim() !== "") said = true
            return offer({ _tag: "ModelText", text }, mine)
          }
          const stage = yield* trace.stage(turn, "llm")
          const streamed = model.stream({
            messages: ModelPrompt.messages(state, exchanges),
            tools: ModelPolicy.tools(state)
          })
            .pipe(Stream.runForEach((delta) =>
              Effect.gen(function*() {
                switch (delta._tag) {
                  case "Text": {
                    if (delta.text.trim() !== "") yield* stage.first
                    if (replying && llmFirstTokenMs === undefined && delta.text.trim() !== "") {
                      llmFirstTokenMs = Math.max(0, (yield* call.elapsedMs) - requestedAt)
                    }
                    const pushed = Sentences.push(splitter, delta.text)
                    splitter = pushed.splitter
                    for (const sentence of pushed.sentences) yield* sayModelText(sentence)
                    return
                  }
                  case "ToolCall": {
                    // Text before a tool call is complete: say it before the call is carried out.
                    yield* sayModelText(Sentences.flush(splitter))
                    splitter = Sentences.empty
                    const result = yield* Deferred.make<ToolOutcome>()
                    // The calls of one response go together: once one is refused, those after it
                    // (an end_call after a value refused) are not carried out, and the model is
                    // told why.
                    const earlier = yield* Effect.forEach(calls, (made) => Deferred.await(made.result))
                    calls.push({ call: delta.call, result })
                    if (earlier.some((outcome) => outcome.refused)) {
                      yield* Deferred.succeed(result, { output: notCarriedOut, refused: true, turns: 0 })
                      return
                    }
                    toolResults.set(delta.call.id, result)
                    yield* offer({ _tag: "ModelToolCall", ...delta.call }, mine)
                    return
                  }
                  case "Finished":
                    return
                }
              })
            ))
          yield* stage.run(streamed)
          yield* sayModelText(Sentences.flush(splitter))
          if (calls.length === 0) return
          const outcomes = yield* Effect.forEach(calls, ({ result }) => Deferred.await(result))
          // One round trip a turn: the model said its line with its calls, and they were all
          // carried out; it hears back only about a refused call, or when it said nothing.
          if (said && !outcomes.some((outcome) => outcome.refused)) return
          exchanges.push({
            afterTurns: Math.max(...outcomes.map((outcome) => outcome.turns)),
            messages: [
              { role: "assistant", content: null, toolCalls: calls.map((c) => c.call) },
              ...calls.map(({ call: toolCall }, i): ChatMessage => ({
                role: "tool",
                toolCallId: toolCall.id,
                content: outcomes[i]!.output
              }))
            ]
          })
        }
      }).pipe(Effect.catch((error) => fail(`the language model failed: ${error.message}`)), Effect.asVoid)

    const endOf = (state: Dialogue.State): AgentEnd | undefined =>
      state.ended === undefined
        ? undefined
        : { outcome: state.ended.outcome, endedBy: state.ended.endedBy, transferTo: state.ended.transferTo }

    /** Carries out the actions of one step; answers the call's end once the agent ended it. */
    const perform = (
      actions: ReadonlyArray<Dialogue.Action>,
      state: Dialogue.State,
      turn: TurnTrace.Turn | undefined
    ) =>
      Effect.gen(function*() {
        for (const action of actions) {
          switch (action._tag) {
            case "Say":
              yield* speak(action.id, action.text, action.sensitiveFree, turn)
              break
            case "Ask":
              yield* speak(action.id, action.text, true, turn)
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
                generatingTurn = turn
                generating = yield* Effect.forkScoped(generate(chat, generation, turn))
              }
              break
            case "ToolResult": {
              const waiting = toolResults.get(action.id)
              toolResults.delete(action.id)
              if (waiting !== undefined) {
                yield* Deferred.succeed(waiting, {
                  output: action.output,
                  refused: action.refused === true,
                  turns: state.turns.length
                })
              }
              break
            }
            case "Transfer":
            case "EndCall":
              break
          }
        }
        return endOf(state)
      })

    /**
     * A transfer the dialogue asked for: what is queued (its message) plays first, then the
     * carrier is asked; its answer goes straight to the dialogue, ahead of what came meanwhile.
     * Answers the call's end once transferred; nothing when refused (the call goes on) or when
     * the caller hung up first (their `HungUp`, queued, ends the dialogue).
     */
    const transfer = (to: string, turn: TurnTrace.Turn | undefined) =>
      Effect.gen(function*() {
        yield* Speeches.drain(speeches, hungUp)
        if (yield* Deferred.isDone(hungUp)) return undefined
        const result = yield* call.transfer(to)
        if (result._tag === "Refused") yield* notify({ _tag: "TransferFailed", to, reason: result.reason })
        const reported = Dialogue.step(
          yield* Ref.get(current),
          result._tag === "Transferred" ? { _tag: "Transferred" } : { _tag: "TransferRefused", reason: result.reason },
          policy
        )
        yield* Ref.set(current, reported.state)
        return yield* perform(reported.actions, reported.state, turn)
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
    const early = sdkAgent === undefined ? [] : yield* Queue.takeAll(sdkAgent.commands)
    for (const command of early.filter(isSetting)) {
      const stepped = Dialogue.step(yield* Ref.get(current), { _tag: "Command", command }, policy)
      yield* Ref.set(current, stepped.state)
    }
    yield* trace.greeting
    yield* Queue.offer(events, { _tag: "Event", event: yield* callStarted(call.context) })
    if (sdkAgent !== undefined) {
      for (const command of early.filter((command) => !isSetting(command))) yield* offer({ _tag: "Command", command })
      yield* Effect.forkScoped(Effect.forever(
        Effect.flatMap(Queue.take(sdkAgent.commands), (command) => offer({ _tag: "Command", command }))
      ))
      yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(sdkAgent.keys), call.sendDtmf)))
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
          if (waiting !== undefined) {
            yield* Deferred.succeed(waiting, { output: "Dropped: the caller spoke.", refused: false, turns: 0 })
          }
        }
        continue
      }
      const before = yield* Ref.get(current)
      const stepped = Dialogue.step(before, event, policy)
      yield* Ref.set(current, stepped.state)
      if (event._tag === "ModelToolCall") {
        // A tool call that got no result of its own (one that ends the call) is answered here;
        // a transfer's result waits for the carrier's answer.
        const waiting = toolResults.get(event.id)
        const answered = stepped.actions.some((action) => action._tag === "ToolResult" && action.id === event.id) ||
          stepped.state.transferring?.id === event.id
        if (waiting !== undefined && !answered) {
          toolResults.delete(event.id)
          yield* Deferred.succeed(waiting, { output: "Done.", refused: false, turns: stepped.state.turns.length })
        }
      }
      // A reply's sentences go in the turn it answers; anything else in the current one.
      const turn = queued.generation === undefined ? trace.current() : generatingTurn
      const end = yield* perform(stepped.actions, stepped.state, turn)
      const transferring = stepped.state.transferring
      if (end === undefined && transferring !== undefined) {
        const transferred = yield* transfer(transferring.to, turn)
        if (transferred !== undefined) return transferred
        continue
      }
      if (end === undefined) continue
      if (end.endedBy === "remote") return end
      // The agent ended it: what is queued plays first (unless the caller hangs up meanwhile).
      yield* Speeches.drain(speeches, hungUp)
      return end
    }
  })
