/**
 * The calls SDK agents control (the reference SDK's call sockets, `v2/connect-call/{call_id}`
 * and `v2/connect-campaign-call/{call_id}`): one session per call, which outlives the agent's
 * WebSocket connections (Channel).
 *
 * A call is controlled when an agent took it from a discovery socket (`expect`), or when it was
 * placed by `v2/create-outbound` (an outbound call of no campaign: the API's only way to place
 * one). Its conversation runs on this daemon's runtime (ConversationAgent with a `SdkAgent`): the
 * agent's commands drive it, and the agent is told what happens as the SDK's events:
 * `outbound-call-connected`, the call's speech, fields, task completion, questions, keys, and
 * at the end `bot-session-ended` (or `outbound-call-failed` for a call never answered), buffered
 * until the agent connects if it is not there yet.
 *
 * The conversation starts once the agent is connected and has set a task (or a second after it
 * connected without one), so what the SDK queues at attach (persona, hooks, variables, the
 * first task) is in place before the first word. An agent that drops mid-call has
 * `graceMs` to come back (its reopen resumes the session); after that, or if it never connects,
 * the call ends as `bot-failure`, and a late reopen is closed with `state-lost`.
 *
 * Sessions live in this process: an agent's call socket must reach the daemon that runs the
 * call's media (as live listen does).
 *
 * @since 0.1.0
 */
import type * as Envelope from "@voice-agent/agent-protocol/Envelope"
import type { Note, SdkAgent } from "@voice-agent/agents/ConversationAgent"
import type * as Dialogue from "@voice-agent/agents/dialogue/Dialogue"
import { terminationReasonFor } from "@voice-agent/core/ContactState"
import type { CallContext } from "@voice-agent/core/ports/Agent"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import type { MediaSocket } from "@voice-agent/core/ports/MediaSocket"
import { Context, Deferred, Duration, Effect, Fiber, Layer, Option, Queue, Stream } from "effect"
import * as Channel from "./Channel.ts"
import { SdkAgentTasks } from "./SdkAgentTasks.ts"
import * as Wire from "./Wire.ts"

/**
 * @category models
 */
export interface Settings {
  /** How long an agent has to connect, or to come back after a drop (default 30 s). */
  readonly graceMs: number
  /** How long a session is kept after its call ended, for a late agent to read the end (default 60 s). */
  readonly keepMs: number
}

/**
 * @category constructors
 */
export const defaultSettings: Settings = { graceMs: 30_000, keepMs: 60_000 }

interface Session {
  readonly callId: string
  /** Empty for a direct call whose media started first: checked against the record on connect. */
  organizationId: string
  readonly channel: Channel.Channel
  readonly commands: Queue.Queue<Dialogue.Command>
  readonly keys: Queue.Queue<string>
  readonly attached: Deferred.Deferred<void>
  readonly tasked: Deferred.Deferred<void>
  readonly lost: Deferred.Deferred<void>
  grace: Fiber.Fiber<void> | undefined
  recentDigits: string
  gone: boolean
}

/**
 * @category services
 */
export class CallSessions extends Context.Service<CallSessions, {
  /** A call an agent took: it will connect to control it. */
  readonly expect: (callId: string, organizationId: string) => Effect.Effect<void>
  /** Serves an agent's call socket (its key already checked) until it closes. */
  readonly connect: (
    callId: string,
    organizationId: string,
    socket: MediaSocket,
    open: Envelope.Open
  ) => Effect.Effect<void>
  /** The SDK agent of a call, for the conversation runtime. */
  readonly sdkAgentFor: (context: CallContext) => Effect.Effect<Option.Option<SdkAgent>>
}>()("@voice-agent/sdk-agents/CallSessions") {}

/**
 * @category constructors
 */
export const make = (settings: Settings) =>
  Effect.gen(function*() {
    const callEvents = yield* CallEvents
    const conversations = yield* ConversationRepository
    const scope = yield* Effect.scope
    const sessions = new Map<string, Session>()
    const tasks = yield* Effect.serviceOption(SdkAgentTasks)

    const forget = (session: Session) =>
      Effect.sleep(Duration.millis(settings.keepMs)).pipe(
        Effect.andThen(Effect.suspend(() => {
          if (sessions.get(session.callId) !== session) return Effect.void
          sessions.delete(session.callId)
          return Option.isSome(tasks) ? tasks.value.forget(session.callId) : Effect.void
        }))
      )

    /** The end of the session: nothing more is sent; a late reopen is told the state is lost. */
    const finish = (session: Session) =>
      Effect.gen(function*() {
        if (session.gone) return
        session.gone = true
        yield* Effect.forkIn(forget(session), scope)
      })

    /** The agent's commands: to the conversation, or answered here. */
    const pump = (session: Session) =>
      Effect.forever(Effect.gen(function*() {
        const payload = yield* Queue.take(session.channel.received)
        const decoded = Wire.decodeCommand(payload)
        switch (decoded._tag) {
          case "Conversation":
            if (decoded.command._tag === "SetTask") {
              yield* Deferred.succeed(session.tasked, undefined)
              const fields = decoded.command.task.action_items.filter((item) => item.item_type === "field")
              if (Option.isSome(tasks)) yield* tasks.value.set(session.callId, fields)
            }
            yield* Queue.offer(session.commands, decoded.command)
            return
          case "Execute":
            return yield* session.channel.send(Wire.executeAction(decoded.actionKey))
          case "SendDtmf":
            return yield* Queue.offer(session.keys, decoded.digits)
          case "Noted":
            return yield* Effect.logDebug(`Call ${session.callId}: agent command ${JSON.stringify(decoded)}`)
          case "Refused":
            yield* Effect.logWarning(`Call ${session.callId}: ${decoded.warning}`)
            return yield* session.channel.send(Wire.warning(decoded.warning))
        }
      }))

    /** The call's progress, as the SDK's session events. */
    const follow = (session: Session) =>
      Effect.scoped(Effect.gen(function*() {
        const events = yield* callEvents.subscribe(session.callId)
        let answered = false
        yield* events.pipe(
          Stream.takeUntilEffect((event) =>
            Effect.gen(function*() {
              switch (event._tag) {
                case "Answered":
                  answered = true
                  yield* session.channel.send(Wire.outboundCallConnected)
                  return false
                case "Ended":
                  if (answered) return false
                  yield* session.channel.send(
                    Wire.outboundCallFailed(
                      event.reason === "busy" || event.reason === "no-answer" ? event.reason : "failed"
                    )
                  )
                  return true
                case "AgentEnded": {
                  const reason = terminationReasonFor(event.outcome, event.endedBy)
                  yield* session.channel.send(Wire.botSessionEnded(
                    reason === "busy" || reason === "no-answer" || reason === "failed" ? "bot-failure" : reason,
                    false
                  ))
                  return true
                }
                case "Ringing":
                  return false
              }
            })
          ),
          Stream.runDrain
        )
        yield* finish(session)
      }))

    const open = (callId: string, organizationId: string) =>
      Effect.gen(function*() {
        const existing = sessions.get(callId)
        if (existing !== undefined) return existing
        const session: Session = {
          callId,
          organizationId,
          channel: yield* Channel.make(`Call ${callId}`),
          commands: yield* Queue.bounded<Dialogue.Command>(1_024),
          keys: yield* Queue.bounded<string>(64),
          attached: yield* Deferred.make<void>(),
          tasked: yield* Deferred.make<void>(),
          lost: yield* Deferred.make<void>(),
          grace: undefined,
          recentDigits: "",
          gone: false
        }
        sessions.set(callId, session)
        yield* Effect.forkIn(pump(session), scope)
        yield* Effect.forkIn(follow(session), scope)
        return session
      })

    const startGrace = (session: Session) =>
      Effect.gen(function*() {
        session.grace = yield* Effect.forkIn(
          Effect.sleep(Duration.millis(settings.graceMs)).pipe(
            Effect.andThen(Deferred.succeed(session.lost, undefined)),
            Effect.asVoid
          ),
          scope
        )
      })

    const notify = (session: Session) => (note: Note) =>
      Effect.suspend(() => {
        if (note._tag === "Dtmf") session.recentDigits = (session.recentDigits + note.digit).slice(-20)
        return session.channel.send(Wire.noteEvent(note, session.recentDigits))
      })

    return CallSessions.of({
      expect: (callId, organizationId) => Effect.asVoid(open(callId, organizationId)),
      connect: (callId, organizationId, socket, hello) =>
        Effect.gen(function*() {
          let session = sessions.get(callId)
          if (session === undefined) {
            const found = yield* conversations.findByCallId(organizationId, callId)
            if (Option.isNone(found) || found.value.endedAt !== null) {
              return yield* Channel.refuse(socket, "state-lost", "No live call with this id")
            }
            session = yield* open(callId, organizationId)
          }
          if (session.organizationId === "") {
            const found = yield* conversations.findByCallId(organizationId, callId)
            if (Option.isSome(found)) session.organizationId = organizationId
          }
          if (session.organizationId !== organizationId) {
            return yield* Channel.refuse(socket, "state-lost", "No live call with this id")
          }
          if (session.gone && hello.is_reopen) {
            return yield* Channel.refuse(socket, "state-lost", "The call's session is over")
          }
          if (session.grace !== undefined) yield* Fiber.interrupt(session.grace)
          session.grace = undefined
          yield* Deferred.succeed(session.attached, undefined)
          const ended = yield* session.channel.attach(socket, hello)
          if (ended === "dropped" && !session.gone) yield* startGrace(session)
        }),
      sdkAgentFor: (context) =>
        Effect.gen(function*() {
          const known = sessions.get(context.callId)
          const direct = context.direction === "outbound" && context.campaignId === null
          if (known === undefined && !direct) return Option.none()
          const session = known ?? (yield* open(context.callId, ""))
          const ready = Effect.gen(function*() {
            const attached = yield* Deferred.await(session.attached).pipe(
              Effect.timeoutOption(Duration.millis(settings.graceMs))
            )
            if (Option.isNone(attached)) return false
            yield* Deferred.await(session.tasked).pipe(Effect.timeoutOption(Duration.seconds(1)))
            return true
          })
          return Option.some(
            {
              ready,
              commands: session.commands,
              keys: session.keys,
              notify: notify(session),
              lost: Deferred.await(session.lost)
            } satisfies SdkAgent
          )
        })
    })
  })

/**
 * @category layers
 */
export const layer = (
  settings: Settings = defaultSettings
): Layer.Layer<CallSessions, never, CallEvents | ConversationRepository> => Layer.effect(CallSessions, make(settings))
