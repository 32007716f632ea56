/**
 * An agent: a persona, the handlers that steer its calls, and the ways to get calls.
 *
 * ```ts
 * const agent = new Agent({ name: "Riley", organization: "Acme Dental", purpose: "to confirm appointments" })
 * agent.onCallStart((call) => call.setTask("confirm", { checklist: [new Field({ key: "ok", fieldType: "multiple_choice", choices: ["yes", "no"] })] }))
 * agent.onTaskComplete("confirm", (call) => call.hangup(`Thank them; they said ${call.getField("ok")}.`))
 * const outcome = await agent.callPhone({ from: "+15550100", to: "+15550123" })
 * ```
 *
 * Calls come from `callPhone` (one outbound call, awaited to its end), `listenPhone` /
 * `listenSip` / `listenWebrtc` (inbound calls, offered to `onCallReceived`) and `attachCampaign`
 * (a campaign's calls, as its dialer places them). One agent can do several at once; each call
 * runs on its own socket with its own `Call`.
 *
 * Registration methods answer the agent, so they chain. A task's completion goes to the handler
 * registered for that task id, else to the generic one (the reference SDK refuses to mix the
 * two; here the specific one wins). Likewise for actions.
 *
 * @since 0.1.0
 */
import type { JsonObject, JsonValue } from "@voice-agent/agent-protocol/Json"
import { isJsonValue } from "@voice-agent/agent-protocol/Json"
import { createOutbound, getCampaign } from "./Api.ts"
import type { Persona } from "./Call.ts"
import type { CallOutcome } from "./CallOutcome.ts"
import type { Connection, ConnectionOptions } from "./Config.ts"
import { resolveConnection } from "./Config.ts"
import type {
  ActionHandler,
  ActionRequestHandler,
  AgentSpeechHandler,
  CallerSpeechHandler,
  CallHandler,
  CallReceivedHandler,
  DtmfHandler,
  EscalateHandler,
  Hooks,
  KeyedActionHandler,
  OutboundFailedHandler,
  QuestionHandler,
  ReachPersonHandler,
  SearchQueryHandler,
  SessionEndHandler,
  TaskCompleteHandler,
  ValidateHandler
} from "./Hooks.ts"
import { emptyHooks } from "./Hooks.ts"
import type { AgentContext, SocketTuning } from "./internal/CallSession.ts"
import { runCall } from "./internal/CallSession.ts"
import type { InboundTarget } from "./internal/DiscoveryLoops.ts"
import { listenInbound, serveCampaign } from "./internal/DiscoveryLoops.ts"
import type { Logger } from "./Logger.ts"
import { defaultLogger } from "./Logger.ts"
import { AVAILABILITY_FIELD, REACH_PERSON_TASK } from "./ReachPerson.ts"

export type { SocketTuning } from "./internal/CallSession.ts"

export interface AgentOptions extends Persona, ConnectionOptions {
  /** Whether the server may take keypad input for number fields (`accept_dtmf_for_numbers`); default true. */
  readonly acceptDtmf?: boolean
  /** Default: `defaultLogger()` (standard error, level from `VOICE_AGENT_LOG_LEVEL`). */
  readonly logger?: Logger
  /** Envelope timings and limits for every socket (see `ReliableSocketOptions`). */
  readonly socket?: SocketTuning
}

export interface CallPhoneOptions {
  /** The organization's number to call from (E.164). */
  readonly from: string
  /** The number to call (E.164). */
  readonly to: string
  /** Set on the call (`set-variable`) before `onCallStart`. */
  readonly variables?: Readonly<Record<string, JsonValue>>
  /** Aborts placing the call (the HTTP request); once placed, a call runs to its end. */
  readonly signal?: AbortSignal
}

export interface ListenOptions {
  /** Stops listening: no new calls are taken, and the promise resolves once the current ones end. */
  readonly signal?: AbortSignal | undefined
  /** Set on every call taken (`set-variable`) before `onCallStart`. */
  readonly variables?: Readonly<Record<string, JsonValue>>
  /** Called with each call's outcome. */
  readonly onCallEnd?: ((outcome: CallOutcome) => void) | undefined
  /**
   * Called when the server has registered the listener (`listen-started`, with how many others
   * serve the same target): calls placed from then on are offered to it.
   */
  readonly onListening?: ((otherListeners: number) => void) | undefined
}

export interface CampaignOptions {
  /** Stops serving: no new calls are taken, and the promise resolves once the current ones end. */
  readonly signal?: AbortSignal | undefined
  /** Called with each call's outcome. */
  readonly onCallEnd?: ((outcome: CallOutcome) => void) | undefined
  /**
   * Called when the server has registered the listener (`listen-started`, with how many others
   * serve the same target): calls placed from then on are offered to it.
   */
  readonly onListening?: ((otherListeners: number) => void) | undefined
}

const checkVariables = (variables: Readonly<Record<string, JsonValue>> | undefined): JsonObject => {
  for (const [key, value] of Object.entries(variables ?? {})) {
    if (!isJsonValue(value)) throw new TypeError(`Variable ${key}: the value is not JSON`)
  }
  return variables ?? {}
}

export class Agent {
  /** The resolved base URL (with a trailing slash). */
  readonly baseUrl: string
  readonly #connection: Connection
  readonly #hooks: Hooks = emptyHooks()
  readonly #context: AgentContext

  /** Throws `ConfigError` when no API key is configured or the base URL is not http(s). */
  constructor(options: AgentOptions = {}) {
    this.#connection = resolveConnection(options)
    this.baseUrl = this.#connection.baseUrl
    this.#context = {
      connection: this.#connection,
      logger: options.logger ?? defaultLogger(),
      persona: {
        ...(options.name === undefined ? {} : { name: options.name }),
        ...(options.organization === undefined ? {} : { organization: options.organization }),
        ...(options.purpose === undefined ? {} : { purpose: options.purpose }),
        ...(options.voice === undefined ? {} : { voice: options.voice })
      },
      acceptDtmf: options.acceptDtmf ?? true,
      hooks: this.#hooks,
      socket: options.socket ?? {}
    }
  }

  // ---- handlers ----

  /** Decides on each inbound call before it is answered; default: accept every call. */
  onCallReceived(handler: CallReceivedHandler): this {
    this.#hooks.callReceived = handler
    return this
  }

  /** Runs as the agent attaches to a call, before any event: set the first task here. */
  onCallStart(handler: CallHandler): this {
    this.#hooks.callStart = handler
    return this
  }

  /** Runs when any task completes (unless that task has its own handler). */
  onTaskComplete(handler: TaskCompleteHandler): this
  /** Runs when the task `taskId` completes. */
  onTaskComplete(taskId: string, handler: CallHandler): this
  onTaskComplete(first: string | TaskCompleteHandler, handler?: CallHandler): this {
    if (typeof first === "function") this.#hooks.taskComplete = first
    else if (handler !== undefined) this.#hooks.taskCompleteById.set(first, handler)
    return this
  }

  /** `onTaskComplete("reach_person")`, given the recorded `contact_availability`. */
  onReachPerson(handler: ReachPersonHandler): this {
    return this.onTaskComplete(
      REACH_PERSON_TASK,
      (call) => handler(call, call.getText(AVAILABILITY_FIELD))
    )
  }

  /**
   * Checks a field's value when its task completes: answer a sentence to reject it (the task is
   * retried with the sentences as the reason), nothing to accept it.
   */
  onValidate(fieldKey: string, handler: ValidateHandler): this {
    this.#hooks.validate.set(fieldKey, handler)
    return this
  }

  /** Answers the caller's questions the agent cannot (`agent-question` → `answer-question`). */
  onQuestion(handler: QuestionHandler): this {
    this.#hooks.question = handler
    return this
  }

  /** Maps a caller's request to actions (`action-request` → `action-suggestion`). */
  onActionRequest(handler: ActionRequestHandler): this {
    this.#hooks.actionRequest = handler
    return this
  }

  /** Runs any action the agent executes (unless that action has its own handler). */
  onAction(handler: ActionHandler): this
  /** Runs the action `actionKey` when the agent executes it. */
  onAction(actionKey: string, handler: KeyedActionHandler): this
  onAction(first: string | ActionHandler, handler?: KeyedActionHandler): this {
    if (typeof first === "function") this.#hooks.action = first
    else if (handler !== undefined) this.#hooks.actionByKey.set(first, handler)
    return this
  }

  /** Finds the choices of a searchable field (`choice-query` → `choice-query-result`). */
  onSearchQuery(fieldKey: string, handler: SearchQueryHandler): this {
    this.#hooks.searchQuery.set(fieldKey, handler)
    return this
  }

  /** Runs when the caller (or the agent) asks for a human; without it the agent apologizes. */
  onEscalate(handler: EscalateHandler): this {
    this.#hooks.escalate = handler
    return this
  }

  /** Runs on each key the caller presses. */
  onDtmf(handler: DtmfHandler): this {
    this.#hooks.dtmf = handler
    return this
  }

  /** Runs on each (partial or final) transcript of the caller's speech. */
  onCallerSpeech(handler: CallerSpeechHandler): this {
    this.#hooks.callerSpeech = handler
    return this
  }

  /** Runs on each thing the agent said. */
  onAgentSpeech(handler: AgentSpeechHandler): this {
    this.#hooks.agentSpeech = handler
    return this
  }

  /** Runs when the call's session ends (any termination reason). */
  onSessionEnd(handler: SessionEndHandler): this {
    this.#hooks.sessionEnd = handler
    return this
  }

  /** Runs when an outbound call fails to connect. */
  onOutboundFailed(handler: OutboundFailedHandler): this {
    this.#hooks.outboundFailed = handler
    return this
  }

  // ---- getting calls ----

  /**
   * Places a call (`POST v2/create-outbound`), attaches to it, and resolves when it is over, with
   * its outcome. Rejects only when the call cannot be placed (`ApiError`, or a fetch failure).
   */
  async callPhone(options: CallPhoneOptions): Promise<CallOutcome> {
    const variables = checkVariables(options.variables)
    const callId = await createOutbound(this.#connection, options, options.signal)
    this.#context.logger.info(`Call ${callId}: placed from ${options.from} to ${options.to}`)
    return runCall(this.#context, {
      callId,
      info: { callType: "pstn", fromNumber: options.from, toNumber: options.to },
      route: "v2/connect-call",
      variables
    })
  }

  /**
   * Listens for calls to `phoneNumber` (E.164) until `signal` aborts. Rejects with
   * `SocketClosedError` if the listening socket closes for good on its own (after the calls in
   * progress end).
   */
  listenPhone(phoneNumber: string, options: ListenOptions = {}): Promise<void> {
    return this.listen({ phoneNumber }, options)
  }

  /** `listenPhone` for a SIP code. */
  listenSip(sipCode: string, options: ListenOptions = {}): Promise<void> {
    return this.listen({ sipCode }, options)
  }

  /** `listenPhone` for a WebRTC code. */
  listenWebrtc(webrtcCode: string, options: ListenOptions = {}): Promise<void> {
    return this.listen({ webrtcCode }, options)
  }

  /**
   * Serves the calls of the campaign `campaignCode` (`GET v1/campaigns/{code}`, then
   * `v1/serve-campaign/{id}`) until `signal` aborts: the dialer offers each call, the agent
   * answers `controller-ready` and attaches, the contact's `data` becoming the call's variables.
   * Rejects like `listenPhone`, or with `ApiError` when the campaign cannot be read.
   */
  async attachCampaign(campaignCode: string, options: CampaignOptions = {}): Promise<void> {
    const campaign = await getCampaign(this.#connection, campaignCode, options.signal)
    return serveCampaign(this.#context, { id: campaign.id, code: campaignCode }, options)
  }

  private listen(target: InboundTarget, options: ListenOptions): Promise<void> {
    const variables = checkVariables(options.variables)
    return listenInbound(this.#context, target, { ...options, variables })
  }
}
