/**
 * Replay of the Guava Python SDK's Agent API (guava/agent.py, guava/call.py, 0.35.0): a small
 * programmable agent that drives a server exactly as an agent written against the SDK would.
 *
 * - `callPhone`: `POST v2/create-outbound?from_number&to_number` → `call_id`, then the call socket
 *   `v2/connect-call/{id}` (name `call-connection-{id}`), with `set-persona`, `registered-hooks`, one
 *   `set-variable` per variable and whatever `onCallStart` queues, all queued before the socket opens
 *   (`Agent._init_call`).
 * - `listenPhone` / `listenWebrtc` / `listenSip`: `v2/listen-inbound?phone_number=` (or
 *   `webrtc_code=` / `sip_code=`), `claim-call` on `incoming-call`, `onCallReceived(call_info)` on
 *   `assign-call` → `answer-call` and at once the call socket, or `decline-call`.
 * - `attachCampaign`: `GET v1/campaigns/{code}` → `id`, `v1/serve-campaign/{id}`, on
 *   `initiate-and-assign-call` `controller-ready` at once, then `v2/connect-campaign-call/{id}` with
 *   `contact_data.data` as the variables.
 * - Events are validated (Events.ts) and dispatched in order as `Agent._dispatch_event` does:
 *   `action-item-done` stores the field `getField` returns, `task-done` runs `onValidate` then
 *   `onTaskComplete` (or `retry-task`), `agent-question` → `answer-question`, `action-request` →
 *   `action-suggestion`, `choice-query` → `choice-query-result`, `escalate` → handler or an
 *   instruction; `bot-session-ended` / `outbound-call-failed` end the call; a payload the SDK
 *   cannot validate ends the call with that error.
 *
 * Each `Call` records, for assertions: the events (in order), ignored payloads, the fields stored,
 * the termination, handler errors, lax coercions and the error that ended it, if any. Hooks may be
 * async: the SDK runs them on its receive thread, so an awaited hook delays the next event's
 * dispatch just as a slow Python hook would (acks are not delayed: the socket sends them).
 */
import type { Client, GuavaSdk } from "./Client.ts"
import { CommandQueue } from "./CommandQueue.ts"
import {
  actionSuggestion,
  addInfoInstruction,
  agentTexts,
  answerCall,
  answerQuestion,
  type ChecklistItem,
  choiceQueryResult,
  claimCall,
  type Command,
  controllerReady,
  declineCall,
  defaultReachPersonOutcomes,
  defaultTransferInstructions,
  expertError,
  hangupInstruction,
  type JsonValue,
  type Language,
  type ReachPersonOutcome,
  reachPersonTask,
  readScript,
  registeredHooks,
  retryTask,
  sendAgentDtmf,
  sendInstruction,
  serializeChecklist,
  setAgentDtmf,
  setLanguageMode,
  setPersona,
  setTask,
  setVariable,
  transferCall,
  voicemailActionInstruction,
  voicemailHangupRule,
  voicemailMessageRule
} from "./Commands.ts"
import {
  type AgentSpeechEvent,
  type BotSessionEnded,
  type CallerSpeechEvent,
  type CallInfo,
  decodeEventDict,
  decodeGuavadialerMessage,
  decodeListenInboundMessage,
  type DtmfDigit,
  dtmfDigits,
  type DTMFPressedEvent,
  type EventType,
  type GuavadialerServerMessage,
  type GuavaEvent,
  type ListenInboundServerMessage,
  makePstnCallInfo,
  type OutboundCallFailed,
  SdkError,
  type TerminationReason
} from "./Events.ts"
import { GuavaSocket } from "./GuavaSocket.ts"
import { isDict, isJsonable, pyStr, pyTruthy, pyTypeName, urlencode } from "./Python.ts"
import { Watch } from "./Watch.ts"

type MaybePromise<T> = T | Promise<T>

/** `SuggestedAction` (guava/agent.py). */
export interface SuggestedAction {
  readonly key: string
  readonly description?: string | null | undefined
}

/** `AcceptCall()` / `DeclineCall()` (guava/types/incoming_call_action.py). */
export type IncomingCallAction = "accept" | "decline"

/** The Agent's decorators (`@agent.on_call_start`…), as one object. */
export interface AgentHooks {
  /** `on_call_received`; default accepts (`default_on_call_received`). Any other value: logged, nothing sent. */
  readonly onCallReceived?:
    | ((callInfo: CallInfo) => MaybePromise<IncomingCallAction | (string & {}) | null | undefined>)
    | undefined
  readonly onCallStart?: ((call: Call) => MaybePromise<void>) | undefined
  readonly onCallerSpeech?: ((call: Call, event: CallerSpeechEvent) => MaybePromise<void>) | undefined
  readonly onAgentSpeech?: ((call: Call, event: AgentSpeechEvent) => MaybePromise<void>) | undefined
  /** Generic `(call, task_id)` or per task id `{taskId: (call) => …}` (mixing raises, as in the SDK). */
  readonly onTaskComplete?:
    | ((call: Call, taskId: string) => MaybePromise<void>)
    | Readonly<Record<string, (call: Call) => MaybePromise<void>>>
    | undefined
  /** `on_reach_person`: the `reach_person` task's completion with `get_field("contact_availability")`. */
  readonly onReachPerson?: ((call: Call, outcome: unknown) => MaybePromise<void>) | undefined
  /** `on_validate(field_key)`: `true`, or `[false, reason]` (then `retry-task`). */
  readonly onValidate?:
    | Readonly<Record<string, (call: Call, value: unknown) => MaybePromise<true | readonly [false, string]>>>
    | undefined
  readonly onQuestion?: ((call: Call, question: string) => MaybePromise<string>) | undefined
  /** `on_search_query(field_key)`: (matched, other) choices. */
  readonly onSearchQuery?:
    | Readonly<
      Record<
        string,
        (call: Call, query: string) => MaybePromise<readonly [ReadonlyArray<string>, ReadonlyArray<string>]>
      >
    >
    | undefined
  readonly onActionRequest?:
    | ((
      call: Call,
      request: string
    ) => MaybePromise<SuggestedAction | ReadonlyArray<SuggestedAction> | null | undefined>)
    | undefined
  /** Generic `(call, action_key)` or per action key; a truthy result becomes an instruction. */
  readonly onAction?:
    | ((call: Call, actionKey: string) => MaybePromise<unknown>)
    | Readonly<Record<string, (call: Call) => MaybePromise<unknown>>>
    | undefined
  readonly onSessionEnd?: ((call: Call, event: BotSessionEnded) => MaybePromise<void>) | undefined
  readonly onOutboundFailed?: ((event: OutboundCallFailed) => MaybePromise<void>) | undefined
  readonly onEscalate?: ((call: Call) => MaybePromise<void>) | undefined
  readonly onDtmf?: ((call: Call, event: DTMFPressedEvent) => MaybePromise<void>) | undefined
}

/** `Agent(name, organization, purpose, voice, accept_dtmf)`. */
export interface AgentOptions {
  readonly name?: string | null | undefined
  readonly organization?: string | null | undefined
  readonly purpose?: string | null | undefined
  readonly voice?: string | null | undefined
  readonly acceptDtmf?: boolean | undefined
  readonly hooks?: AgentHooks | undefined
}

/** Initial variables: a Map keeps Python's insertion order even for integer-like keys. */
export type Variables = Readonly<Record<string, JsonValue>> | ReadonlyMap<string, JsonValue>

const variableEntries = (variables: unknown): Array<readonly [string, unknown]> => {
  if (variables instanceof Map) return [...(variables as Map<string, unknown>).entries()]
  if (isDict(variables)) return Object.entries(variables)
  // `initial_variables.items()` on a non-dict.
  throw new SdkError("AttributeError", `'${pyTypeName(variables)}' object has no attribute 'items'`)
}

/** Something that logs instead of raising in the SDK (an exception in a hook, a server warning…). */
export interface LoggedProblem {
  readonly where: string
  readonly error: unknown
}

/**
 * `guava.Call` plus the replay's records. Hooks receive it; a test may also drive it directly
 * (like a background thread in Python calling `call.send_instruction`).
 */
export class Call {
  /** Every validated event, in dispatch order. */
  readonly events: Array<GuavaEvent> = []
  /** Payloads with an event type this SDK version does not know (skipped with a warning). */
  readonly ignored: Array<Record<string, unknown>> = []
  /** `call._field_values`: what `action-item-done` stored. */
  readonly fields = new Map<string, unknown>()
  /** `call._variables`. */
  readonly variables = new Map<string, unknown>()
  /** Field keys per task id (for `on_validate`). */
  readonly fieldKeysByTaskId = new Map<string, ReadonlyArray<string>>()
  /** Lax coercions applied to events (see Events.ts). */
  readonly notes: Array<string> = []
  /** Exceptions the SDK only logs (hooks), and the server's `error`/`warning` events. */
  readonly logged: Array<LoggedProblem> = []
  /** `call._command_queue`. */
  readonly commands: CommandQueue
  socket: GuavaSocket | undefined
  terminationReason: TerminationReason | undefined
  dnc: boolean | undefined
  outboundFailure: OutboundCallFailed | undefined
  /** The exception that ended the SDK's handling of this call (validation, socket closed, hook…). */
  error: unknown
  done = false
  readonly watch = new Watch()
  /** Resolves when `_attach_to_call` would have returned or raised (never rejects: see `error`). */
  readonly finished: Promise<void>

  private resolveFinished: () => void = () => {}

  readonly id: string
  readonly callInfo: CallInfo
  private readonly sdk: GuavaSdk

  constructor(id: string, callInfo: CallInfo, sdk: GuavaSdk) {
    this.id = id
    this.callInfo = callInfo
    this.sdk = sdk
    this.commands = new CommandQueue(() => this.watch.notify())
    this.finished = new Promise((resolve) => {
      this.resolveFinished = resolve
    })
    sdk.telemetry.methodCall("Call.__init__")
  }

  private t<T>(name: string, body: () => T): T {
    return this.sdk.tracked(`Call.${name}`, body)
  }

  // --- guava/call.py API -----------------------------------------------------------------

  setVariable(key: string, value: unknown): void {
    this.t("set_variable", () => {
      if (!isJsonable(value)) {
        throw new SdkError("ValueError", `Variable value for key '${key}' must be JSON-serializable.`)
      }
      this.variables.set(key, value)
      this.sendCommand(setVariable(key, value as JsonValue))
    })
  }

  getVariable(key: string, defaultValue: unknown = null): unknown {
    return this.t("get_variable", () => (this.variables.has(key) ? this.variables.get(key) : defaultValue))
  }

  setLanguageMode(primary: Language = "english", secondary: ReadonlyArray<Language> | null = null): void {
    this.t("set_language_mode", () => this.sendCommand(setLanguageMode(primary, secondary ?? [])))
  }

  setAgentDtmf(enabled: boolean): void {
    this.t("set_agent_dtmf", () => {
      if (this.callInfo.call_type === "webrtc") {
        throw new SdkError("RuntimeError", "WebRTC calls do not support sending DTMF.")
      }
      this.sendCommand(setAgentDtmf(enabled))
    })
  }

  sendDtmf(digits: ReadonlyArray<DtmfDigit> | string): void {
    this.t("send_dtmf", () => {
      if (this.callInfo.call_type === "webrtc") {
        throw new SdkError("RuntimeError", "WebRTC calls do not support sending DTMF.")
      }
      const list = typeof digits === "string" ? Array.from(digits) : [...digits]
      if (!list.every((d) => (dtmfDigits as ReadonlyArray<string>).includes(d))) {
        throw new SdkError(
          "ValueError",
          `Please input a valid set of DTMF digits. The valid DTMF digits are: ('${dtmfDigits.join("', '")}').`
        )
      }
      this.sendCommand(sendAgentDtmf(list as Array<DtmfDigit>))
    })
  }

  setPersona(persona: {
    readonly organizationName?: string | null | undefined
    readonly agentName?: string | null | undefined
    readonly agentPurpose?: string | null | undefined
    readonly voice?: string | null | undefined
  }): void {
    this.t("set_persona", () => this.sendCommand(setPersona(persona)))
  }

  /** `set_voicemail_action(hangup=False, message=None)`. */
  setVoicemailAction(options: { readonly hangup?: boolean; readonly message?: string | null }): void {
    this.t("set_voicemail_action", () => {
      if (this.getVariable("_voicemail_handler") === "reach_person") {
        throw new SdkError(
          "ValueError",
          "Cannot call set_voicemail_action() after reach_person(). Use the voicemail_message or voicemail_hangup parameters on reach_person() instead."
        )
      }
      this.setVariable("_voicemail_handler", "set_voicemail_action")
      const hangup = options.hangup ?? false
      const message = options.message ?? null
      if (hangup && pyTruthy(message)) throw new SdkError("ValueError", "Cannot specify both 'hangup' and 'message'.")
      if (!hangup && !pyTruthy(message)) throw new SdkError("ValueError", "Must specify either 'hangup' or 'message'.")
      if (hangup) this.sendInstruction(voicemailActionInstruction(voicemailHangupRule))
      if (message !== null && message !== "") {
        this.sendInstruction(voicemailActionInstruction(voicemailMessageRule(message)))
      }
    })
  }

  /** `send_command`: queue; the drain loop sends it once the socket is open. */
  sendCommand(command: Command): void {
    this.t("send_command", () => {
      this.commands.put(command)
    })
  }

  getField(key: string, defaultValue: unknown = null): unknown {
    return this.t("get_field", () => (this.fields.has(key) ? this.fields.get(key) : defaultValue))
  }

  hasField(key: string): boolean {
    return this.t("has_field", () => this.fields.has(key))
  }

  /** `transfer(destination, instructions=None)`: always a soft transfer. */
  transfer(destination: string, instructions: string | null = null): void {
    this.t("transfer", () =>
      this.sendCommand(transferCall({
        transferMessage: instructions !== null && instructions !== "" ? instructions : defaultTransferInstructions,
        toNumber: destination,
        softTransfer: true
      })))
  }

  /** `set_task(task_id, objective="", checklist=None, completion_criteria="")`. */
  setTask(
    taskId: string,
    options: {
      readonly objective?: string
      readonly checklist?: ReadonlyArray<ChecklistItem> | null
      readonly completionCriteria?: string | null
    } = {}
  ): void {
    this.t("set_task", () => {
      const objective = options.objective ?? ""
      const checklist = options.checklist ?? []
      if (objective === "" && checklist.length === 0) {
        throw new SdkError("AssertionError", "At least one of args ['objective','checklist'] must be provided.")
      }
      const serialized = serializeChecklist(checklist, "agent")
      this.fieldKeysByTaskId.set(taskId, serialized.fieldKeys)
      this.sendCommand(setTask({
        taskId,
        objective,
        actionItems: serialized.actionItems,
        completionCriteria: options.completionCriteria === undefined ? "" : options.completionCriteria
      }))
    })
  }

  retryTask(reason: string): void {
    this.t("retry_task", () => this.sendCommand(retryTask(reason)))
  }

  readScript(script: string): void {
    this.t("read_script", () => this.sendCommand(readScript(script)))
  }

  addInfo(label: string, info: unknown): void {
    this.t("add_info", () => this.sendInstruction(addInfoInstruction(label, info)))
  }

  sendInstruction(instruction: string): void {
    this.t("send_instruction", () => this.sendCommand(sendInstruction(instruction)))
  }

  /** `hangup(final_instructions='')`: only a `send-instruction`; the server's LLM hangs up. */
  hangup(finalInstructions = ""): void {
    this.t("hangup", () => this.sendInstruction(hangupInstruction(finalInstructions)))
  }

  /** `reach_person(contact_full_name, *, greeting, voicemail_message, voicemail_hangup, outcomes)`. */
  reachPerson(
    contactFullName: string,
    options: {
      readonly greeting?: string | null
      readonly voicemailMessage?: string | null
      readonly voicemailHangup?: boolean
      readonly outcomes?: ReadonlyArray<ReachPersonOutcome> | null
    } = {}
  ): void {
    this.t("reach_person", () => {
      const outcomes = options.outcomes !== undefined && options.outcomes !== null && options.outcomes.length > 0
        ? options.outcomes
        : defaultReachPersonOutcomes
      if (this.getVariable("_voicemail_handler") === "set_voicemail_action") {
        throw new SdkError(
          "ValueError",
          "Cannot call reach_person() after set_voicemail_action(). Use the voicemail_message or voicemail_hangup parameters on reach_person() instead."
        )
      }
      this.setVariable("_voicemail_handler", "reach_person")
      const message = options.voicemailMessage ?? null
      const hangup = options.voicemailHangup ?? false
      if (pyTruthy(message) && hangup) {
        throw new SdkError("ValueError", "Cannot specify both 'voicemail_message' and 'voicemail_hangup'.")
      }
      const voicemailRule = hangup
        ? voicemailHangupRule
        : message !== null && message !== ""
        ? voicemailMessageRule(message)
        : "Leave an appropriate voicemail message."
      const task = reachPersonTask(contactFullName, { greeting: options.greeting, voicemailRule, outcomes })
      this.setTask("reach_person", {
        objective: task.objective,
        checklist: task.checklist,
        completionCriteria: task.completionCriteria
      })
    })
  }

  // --- replay records --------------------------------------------------------------------

  /** Commands actually sent on the socket (in order), as JSON payloads. */
  sentCommands(): Array<Record<string, unknown>> {
    return this.socket?.sentPayloads() ?? []
  }

  /** Wait for an event of a type (the first one not already matched by `after`). */
  waitForEvent<T extends EventType>(
    type: T,
    timeoutMs = 10_000,
    after = 0
  ): Promise<Extract<GuavaEvent, { event_type: T }>> {
    return this.watch.waitFor(
      () => this.events.slice(after).find((e): e is Extract<GuavaEvent, { event_type: T }> => e.event_type === type),
      timeoutMs,
      `event ${type} on call ${this.id}`
    )
  }

  /** Wait for a command of a type to be sent on the socket. */
  waitForCommand(commandType: string, timeoutMs = 10_000): Promise<Record<string, unknown>> {
    return this.watch.waitFor(
      () => this.sentCommands().find((c) => c["command_type"] === commandType),
      timeoutMs,
      `command ${commandType} on call ${this.id}`
    )
  }

  /** Wait until the SDK would be done with the call; rejects with its error, if it died of one. */
  async result(timeoutMs = 30_000): Promise<void> {
    await this.watch.waitFor(() => this.done, timeoutMs, `call ${this.id} to finish`)
    if (this.error !== undefined) throw this.error
  }

  /** @internal */
  notify(): void {
    this.watch.notify()
  }

  /** Commands queued, in order (sent or not). */
  get queued(): ReadonlyArray<Command> {
    return this.commands.queued
  }

  /** The command-drain thread's death (sending after the socket closed), if any. */
  get drainError(): unknown {
    return this.commands.drainError
  }

  /** @internal */
  finish(): void {
    this.done = true
    this.resolveFinished()
    this.watch.notify()
  }
}

/** The `Agent`'s hooks resolved as `_dispatch_event` looks them up. */
const taskHandlers = (hooks: AgentHooks): {
  generic: ((call: Call, taskId: string) => MaybePromise<void>) | undefined
  perTask: Map<string, (call: Call) => MaybePromise<void>>
} => {
  const generic = typeof hooks.onTaskComplete === "function" ? hooks.onTaskComplete : undefined
  const perTask = new Map<string, (call: Call) => MaybePromise<void>>(
    typeof hooks.onTaskComplete === "object" ? Object.entries(hooks.onTaskComplete) : []
  )
  const onReachPerson = hooks.onReachPerson
  if (onReachPerson !== undefined) {
    if (generic !== undefined) {
      throw new SdkError("TypeError", "Cannot mix a generic on_task_complete handler with per-task handlers.")
    }
    perTask.set("reach_person", (call) => onReachPerson(call, call.getField("contact_availability")))
  }
  return { generic, perTask }
}

/** One inbound listener (`Agent._listen_inbound`). */
export class InboundListener {
  readonly messages: Array<ListenInboundServerMessage> = []
  readonly calls: Array<Call> = []
  readonly claimed: Array<string> = []
  readonly answered: Array<string> = []
  readonly declined: Array<string> = []
  readonly notes: Array<string> = []
  readonly logged: Array<LoggedProblem> = []
  otherListeners: number | undefined
  /** What killed the listener (an unexpected message type, a validation error, the socket closing…). */
  error: unknown
  done = false
  readonly watch = new Watch()
  stopping = false

  readonly socket: GuavaSocket

  constructor(socket: GuavaSocket) {
    this.socket = socket
  }

  /** Leave the listener (Ctrl-C in the SDK): close the discovery socket. */
  async stop(): Promise<void> {
    this.stopping = true
    await this.socket.close()
    await this.watch.waitFor(() => this.done, 30_000, "inbound listener to stop")
  }

  waitStarted(timeoutMs = 10_000): Promise<number> {
    return this.watch.waitFor(() => this.otherListeners, timeoutMs, "listen-started")
  }

  /** The `index`-th call answered (0 = first). */
  waitForCall(index = 0, timeoutMs = 10_000): Promise<Call> {
    return this.watch.waitFor(() => this.calls[index], timeoutMs, `inbound call #${index}`)
  }

  waitDone(timeoutMs = 30_000): Promise<void> {
    return this.watch.waitFor(() => this.done, timeoutMs, "inbound listener to end").then(() => undefined)
  }
}

/** One campaign call dispatch (the SDK's `initiate_call` thread). */
export interface CampaignDispatch {
  readonly callId: string
  readonly contactData: unknown
  controllerReadySent: boolean
  call: Call | undefined
  /** What killed the thread before or while attaching, if anything. */
  error: unknown
}

/** One `attach_campaign` (`Agent._serve_campaign`). */
export class CampaignAttachment {
  readonly messages: Array<GuavadialerServerMessage> = []
  readonly dispatches: Array<CampaignDispatch> = []
  readonly notes: Array<string> = []
  campaign: { readonly id: unknown; readonly name: unknown } | undefined
  socket: GuavaSocket | undefined
  ready = false
  error: unknown
  done = false
  stopping = false
  readonly watch = new Watch()

  get calls(): Array<Call> {
    return this.dispatches.flatMap((d) => (d.call === undefined ? [] : [d.call]))
  }

  async stop(): Promise<void> {
    this.stopping = true
    await this.socket?.close()
    await this.watch.waitFor(() => this.done, 30_000, "campaign attachment to stop")
  }

  waitReady(timeoutMs = 10_000): Promise<true> {
    return this.watch.waitFor(() => this.ready, timeoutMs, "campaign listen-started")
  }

  waitForDispatch(index = 0, timeoutMs = 10_000): Promise<CampaignDispatch> {
    return this.watch.waitFor(() => this.dispatches[index], timeoutMs, `campaign dispatch #${index}`)
  }

  waitForCall(index = 0, timeoutMs = 10_000): Promise<Call> {
    return this.watch.waitFor(() => this.calls[index], timeoutMs, `campaign call #${index}`)
  }

  waitDone(timeoutMs = 30_000): Promise<void> {
    return this.watch.waitFor(() => this.done, timeoutMs, "campaign attachment to end").then(() => undefined)
  }
}

/** `guava.Agent`. Create with `Agent.create(sdk, options)` (which builds its `Client()`). */
export class Agent {
  readonly calls: Array<Call> = []
  readonly sdk: GuavaSdk
  readonly client: Client
  readonly options: AgentOptions
  readonly hooks: AgentHooks

  private constructor(sdk: GuavaSdk, client: Client, options: AgentOptions, hooks: AgentHooks) {
    this.sdk = sdk
    this.client = client
    this.options = options
    this.hooks = hooks
  }

  /** `Agent(...)` then its decorators: the process's first Client checks the SDK's deprecation. */
  static async create(sdk: GuavaSdk, options: AgentOptions = {}): Promise<Agent> {
    sdk.telemetry.methodCall("Agent.__init__")
    const client = await sdk.client()
    const hooks = options.hooks ?? {}
    registerHooks(sdk, hooks)
    return new Agent(sdk, client, options, hooks)
  }

  private effectiveHooks(override: AgentHooks | undefined): AgentHooks {
    if (override === undefined) return this.hooks
    registerHooks(this.sdk, override)
    const merged = { ...this.hooks, ...override }
    taskHandlers(merged)
    return merged
  }

  /**
   * `call_phone(from_number, to_number, variables={})`: resolves with the call once
   * `v2/create-outbound` answered and the call's handling started (its socket opening); rejects
   * with what the SDK raises before that (a variable that is not JSON, an HTTP error, a missing
   * `call_id`, a number that is not E.164).
   */
  async callPhone(options: {
    readonly fromNumber: string | null
    readonly toNumber: string
    readonly variables?: Variables | undefined
    readonly hooks?: AgentHooks | undefined
  }): Promise<Call> {
    const hooks = this.effectiveHooks(options.hooks)
    return this.sdk.tracked("Agent.call_phone", async () => {
      const variables = options.variables ?? {}
      for (const [key, value] of variableEntries(variables)) {
        if (!isJsonable(value)) {
          throw new SdkError("ValueError", `Variable '${key}' value is not JSON serializable: ${String(value)}`)
        }
      }
      const callId = await this.client.createOutbound(options.fromNumber, options.toNumber)
      const callInfo = makePstnCallInfo(options.fromNumber, options.toNumber)
      const call = this.startCall(pyStr(callId), callInfo, variables, "v2/connect-call", hooks)
      return call
    })
  }

  /** `listen_phone(agent_number)`. */
  listenPhone(agentNumber: string, hooks?: AgentHooks, initialVariables: Variables = {}): InboundListener {
    return this.sdk.tracked(
      "Agent.listen_phone",
      () => this.listenInbound([["phone_number", agentNumber]], this.effectiveHooks(hooks), initialVariables)
    )
  }

  /** `listen_webrtc(webrtc_code)` with an existing code. */
  listenWebrtc(webrtcCode: string, hooks?: AgentHooks, initialVariables: Variables = {}): InboundListener {
    return this.sdk.tracked(
      "Agent.listen_webrtc",
      () => this.listenInbound([["webrtc_code", webrtcCode]], this.effectiveHooks(hooks), initialVariables)
    )
  }

  /** `listen_sip(sip_code)`. */
  listenSip(sipCode: string, hooks?: AgentHooks, initialVariables: Variables = {}): InboundListener {
    return this.sdk.tracked(
      "Agent.listen_sip",
      () => this.listenInbound([["sip_code", sipCode]], this.effectiveHooks(hooks), initialVariables)
    )
  }

  /** `attach_campaign(campaign_code)`: runs in the background; see the returned attachment. */
  attachCampaign(campaignCode: string, hooks?: AgentHooks): CampaignAttachment {
    return this.sdk.tracked("Agent.attach_campaign", () => {
      const attachment = new CampaignAttachment()
      void this.serveCampaign(attachment, campaignCode, this.effectiveHooks(hooks))
      return attachment
    })
  }

  // --- internals -------------------------------------------------------------------------

  private socketFor(name: string, path: string, maxAgeSeconds?: number): GuavaSocket {
    const url = this.client.get_websocket_url(path)
    return new GuavaSocket({
      name,
      url,
      headers: this.client.headers(),
      maxAgeSeconds,
      timing: this.sdk.timing.socket,
      userAgent: this.sdk.identity.websocketsUserAgent,
      track: (fn) => this.sdk.telemetry.methodCall(fn)
    })
  }

  /** Start `_attach_to_call` in the background ("a thread") and return its Call. */
  private startCall(
    callId: string,
    callInfo: CallInfo,
    initialVariables: unknown,
    route: string,
    hooks: AgentHooks
  ): Call {
    const call = new Call(callId, callInfo, this.sdk)
    this.calls.push(call)
    void this.attachToCall(call, initialVariables, route, hooks)
    return call
  }

  /** `Agent._attach_to_call` (with `_init_call`). */
  private async attachToCall(call: Call, initialVariables: unknown, route: string, hooks: AgentHooks): Promise<void> {
    let drain: Promise<void> | undefined
    try {
      // _init_call: queued before the socket exists.
      call.setPersona({
        agentName: this.options.name,
        agentPurpose: this.options.purpose,
        organizationName: this.options.organization,
        voice: this.options.voice
      })
      call.sendCommand(registeredHooks({
        hasOnQuestion: hooks.onQuestion !== undefined,
        hasOnIntent: false,
        hasOnActionRequested: hooks.onActionRequest !== undefined,
        hasOnEscalate: hooks.onEscalate !== undefined,
        acceptDtmfForNumbers: this.options.acceptDtmf ?? true
      }))
      for (const [key, value] of variableEntries(initialVariables)) call.setVariable(key, value)
      if (hooks.onCallStart !== undefined) await hooks.onCallStart(call)

      const gs = this.socketFor(`call-connection-${call.id}`, `${route}/${call.id}`, 18_000)
      call.socket = gs
      gs.watch.subscribe(() => call.notify())
      await gs.connect()
      try {
        drain = call.commands.drainInto(gs)
        while (gs.is_open()) {
          const payload = await gs.recv()
          const event = decodeEventDict(payload, call.notes)
          if (event === null) {
            call.ignored.push(payload)
            call.notify()
            continue
          }
          call.events.push(event)
          call.notify()
          await this.dispatch(call, event, hooks)
          call.notify()
          if (event.event_type === "bot-session-ended" || event.event_type === "outbound-call-failed") break
        }
      } finally {
        await gs.close()
      }
    } catch (error) {
      call.error = error
    } finally {
      call.commands.end()
      if (drain !== undefined) await drain
      call.finish()
    }
  }

  /** `Agent._invoke_handler`: log a hook's exception; tell the server when `informAgent`. */
  private async invoke(call: Call, name: string, informAgent: boolean, body: () => MaybePromise<unknown>) {
    try {
      await body()
    } catch (error) {
      call.logged.push({ where: name, error })
      if (informAgent) call.sendCommand(expertError(agentTexts.handlerFailed(name)))
    }
  }

  /** `Agent._dispatch_event`. */
  private async dispatch(call: Call, event: GuavaEvent, hooks: AgentHooks): Promise<void> {
    switch (event.event_type) {
      case "caller-speech": {
        const hook = hooks.onCallerSpeech
        if (hook !== undefined) await this.invoke(call, "on_caller_speech", false, () => hook(call, event))
        return
      }
      case "agent-speech": {
        const hook = hooks.onAgentSpeech
        if (hook !== undefined) await this.invoke(call, "on_agent_speech", false, () => hook(call, event))
        return
      }
      case "task-done": {
        // Validators run unguarded: an exception in one ends the call's handling (as in the SDK).
        const errors: Array<string> = []
        for (const key of call.fieldKeysByTaskId.get(event.task_id) ?? []) {
          const validate = hooks.onValidate?.[key]
          if (validate === undefined) continue
          const result = await validate(call, call.getField(key))
          if (result !== true) {
            if (!Array.isArray(result) || result.length !== 2) {
              throw new SdkError("TypeError", `cannot unpack ${pyTypeName(result)} returned by on_validate('${key}')`)
            }
            const reason: unknown = result[1]
            if (typeof reason !== "string") {
              throw new SdkError("TypeError", `sequence item: expected str instance, ${pyTypeName(reason)} found`)
            }
            errors.push(reason)
          }
        }
        if (errors.length > 0) {
          call.retryTask(errors.join(" "))
          return
        }
        const { generic, perTask } = taskHandlers(hooks)
        try {
          const handler = perTask.get(event.task_id)
          if (generic !== undefined) await generic(call, event.task_id)
          else if (handler !== undefined) await handler(call)
          else {call.logged.push({
              where: "on_task_complete",
              error: `No handler registered for completion of task '${event.task_id}'`
            })}
        } catch (error) {
          call.logged.push({ where: `on_task_complete('${event.task_id}')`, error })
          call.sendCommand(expertError(agentTexts.taskCompleteFailed(event.task_id)))
        }
        return
      }
      case "agent-question": {
        const hook = hooks.onQuestion
        if (hook !== undefined) {
          try {
            const answer = await hook(call, event.question)
            call.sendCommand(answerQuestion(event.question_id, answer))
          } catch (error) {
            call.logged.push({ where: "on_question", error })
            call.sendCommand(answerQuestion(event.question_id, agentTexts.questionHandlerFailed))
          }
        } else {
          call.sendCommand(answerQuestion(event.question_id, agentTexts.noQuestionHandler))
        }
        return
      }
      case "action-request": {
        let suggestion: SuggestedAction | ReadonlyArray<SuggestedAction> | null | undefined = null
        const hook = hooks.onActionRequest
        try {
          suggestion = hook !== undefined ? await hook(call, event.intent_summary) : null
        } catch (error) {
          call.logged.push({ where: "on_action_request", error })
          call.sendCommand(expertError(agentTexts.actionRequestFailed))
          suggestion = null
        }
        const candidate = (s: SuggestedAction) => {
          if (typeof s !== "object" || s === null || typeof s.key !== "string") {
            throw new SdkError("AttributeError", `'${pyTypeName(s)}' object has no attribute 'key'`)
          }
          return { key: s.key, description: s.description ?? "" }
        }
        const actions = suggestion === null || suggestion === undefined
          ? []
          : Array.isArray(suggestion)
          ? (suggestion as ReadonlyArray<SuggestedAction>).map(candidate)
          : [candidate(suggestion as SuggestedAction)]
        call.sendCommand(actionSuggestion({ intentId: event.intent_id, actions }))
        return
      }
      case "action-item-done":
        call.fields.set(event.key, event.payload)
        return
      case "execute-action": {
        const onAction = hooks.onAction
        let run: (() => MaybePromise<unknown>) | undefined
        if (typeof onAction === "function") run = () => onAction(call, event.action_key)
        else if (onAction !== undefined && Object.hasOwn(onAction, event.action_key)) {
          const handler = onAction[event.action_key]
          if (handler !== undefined) run = () => handler(call)
        }
        if (run === undefined) {
          call.logged.push({ where: "on_action", error: `No handler registered for action '${event.action_key}'` })
          return
        }
        try {
          const response = await run()
          if (pyTruthy(response)) call.sendInstruction(agentTexts.actionResponse(event.action_key, pyStr(response)))
        } catch (error) {
          call.logged.push({ where: `on_action('${event.action_key}')`, error })
          call.sendCommand(expertError(agentTexts.actionFailed(event.action_key)))
        }
        return
      }
      case "bot-session-ended": {
        call.terminationReason = event.termination_reason
        call.dnc = event.dnc
        const hook = hooks.onSessionEnd
        if (hook !== undefined) await this.invoke(call, "on_session_end", false, () => hook(call, event))
        return
      }
      case "outbound-call-failed": {
        call.outboundFailure = event
        const hook = hooks.onOutboundFailed
        if (hook !== undefined) await this.invoke(call, "on_outbound_failed", false, () => hook(event))
        return
      }
      case "error":
      case "warning":
        call.logged.push({ where: `server ${event.event_type}`, error: event.content })
        return
      case "outbound-call-connected":
        return
      case "choice-query": {
        const handler = hooks.onSearchQuery?.[event.field_key]
        if (handler === undefined) {
          call.sendCommand(expertError(agentTexts.searchNoHandler(event.field_key)))
          return
        }
        try {
          const result = await handler(call, event.query)
          if (!Array.isArray(result) || result.length !== 2) {
            throw new SdkError("ValueError", "on_search_query must return (matched, other)")
          }
          const [matched, other] = result as readonly [ReadonlyArray<string>, ReadonlyArray<string>]
          call.sendCommand(choiceQueryResult({
            fieldKey: event.field_key,
            queryId: event.query_id,
            matchedChoices: matched,
            otherChoices: other
          }))
        } catch (error) {
          call.logged.push({ where: `on_search_query('${event.field_key}')`, error })
          call.sendCommand(expertError(agentTexts.searchFailed(event.field_key)))
        }
        return
      }
      case "dtmf": {
        const hook = hooks.onDtmf
        if (hook !== undefined) await this.invoke(call, "on_dtmf", false, () => hook(call, event))
        return
      }
      case "escalate": {
        const hook = hooks.onEscalate
        if (hook !== undefined) await this.invoke(call, "on_escalate", true, () => hook(call))
        else if (event.requested_by === "agent") call.sendInstruction(agentTexts.escalateAgentNoHandler)
        else call.sendInstruction(agentTexts.escalateHumanNoHandler)
        return
      }
      case "intent":
      case "inbound-call":
      case "session-started":
        call.logged.push({ where: "dispatch", error: `Received unexpected event: ${event.event_type}` })
        return
    }
  }

  /** `Agent._listen_inbound`. */
  private listenInbound(
    query: ReadonlyArray<readonly [string, string]>,
    hooks: AgentHooks,
    initialVariables: Variables
  ): InboundListener {
    const gs = this.socketFor("listen-inbound", `v2/listen-inbound?${urlencode(query)}`)
    const listener = new InboundListener(gs)
    gs.watch.subscribe(() => listener.watch.notify())
    const run = async () => {
      try {
        await gs.connect()
        try {
          while (gs.is_open()) {
            const payload = await gs.recv()
            const message = decodeListenInboundMessage(payload, listener.notes)
            listener.messages.push(message)
            switch (message.message_type) {
              case "listen-started":
                listener.otherListeners = message.other_listeners
                break
              case "incoming-call":
                gs.send(claimCall(message.call_id) as unknown as Record<string, unknown>)
                listener.claimed.push(message.call_id)
                break
              case "assign-call":
                try {
                  const action = hooks.onCallReceived !== undefined
                    ? await hooks.onCallReceived(message.call_info)
                    : this.sdk.tracked("Agent.default_on_call_received", () => "accept" as const)
                  if (action === "decline") {
                    gs.send(declineCall(message.call_id) as unknown as Record<string, unknown>)
                    listener.declined.push(message.call_id)
                  } else if (action === "accept") {
                    gs.send(answerCall(message.call_id) as unknown as Record<string, unknown>)
                    listener.answered.push(message.call_id)
                    listener.calls.push(
                      this.startCall(message.call_id, message.call_info, initialVariables, "v2/connect-call", hooks)
                    )
                  } else {
                    listener.logged.push({
                      where: "on_call_received",
                      error: `Unknown action for incoming call: ${String(action)}`
                    })
                  }
                } catch (error) {
                  listener.logged.push({ where: "Failed to initialize call controller.", error })
                }
                break
            }
            listener.watch.notify()
          }
        } finally {
          await gs.close()
        }
      } catch (error) {
        if (!listener.stopping) listener.error = error
      } finally {
        listener.done = true
        listener.watch.notify()
      }
    }
    void run()
    return listener
  }

  /** `Agent._serve_campaign`. */
  private async serveCampaign(attachment: CampaignAttachment, code: string, hooks: AgentHooks): Promise<void> {
    try {
      // campaigns.get_campaign_by_code builds its own Client(), and Campaign(...) another one.
      const lookupClient = await this.sdk.client()
      const data = await lookupClient.getCampaignByCode(code)
      this.sdk.telemetry.methodCall("Campaign.__init__")
      if (!isDict(data)) throw new SdkError("AttributeError", `'${pyTypeName(data)}' object has no attribute 'get'`)
      await this.sdk.client()
      attachment.campaign = { id: data["id"] ?? null, name: data["name"] ?? null }
      const gs = this.socketFor("serve-campaign", `v1/serve-campaign/${pyStr(data["id"] ?? null)}`)
      attachment.socket = gs
      gs.watch.subscribe(() => attachment.watch.notify())
      await gs.connect()
      try {
        while (gs.is_open()) {
          const payload = await gs.recv()
          const message = decodeGuavadialerMessage(payload, attachment.notes)
          attachment.messages.push(message)
          if (message.message_type === "listen-started") {
            attachment.ready = true
          } else {
            const contact = message.contact_data
            // `contact_data.get('phone_number') if contact_data else '?'` on the receive thread:
            // a truthy non-dict kills the whole listener.
            if (pyTruthy(contact) && !isDict(contact)) {
              throw new SdkError("AttributeError", `'${pyTypeName(contact)}' object has no attribute 'get'`)
            }
            const dispatch: CampaignDispatch = {
              callId: message.call_id,
              contactData: contact,
              controllerReadySent: false,
              call: undefined,
              error: undefined
            }
            attachment.dispatches.push(dispatch)
            void this.initiateCampaignCall(attachment, gs, dispatch, hooks)
          }
          attachment.watch.notify()
        }
      } finally {
        await gs.close()
      }
    } catch (error) {
      if (!attachment.stopping) attachment.error = error
    } finally {
      attachment.done = true
      attachment.watch.notify()
    }
  }

  /** The campaign's `initiate_call` thread. */
  private async initiateCampaignCall(
    attachment: CampaignAttachment,
    gs: GuavaSocket,
    dispatch: CampaignDispatch,
    hooks: AgentHooks
  ): Promise<void> {
    try {
      const contact = dispatch.contactData
      if (!isDict(contact)) {
        throw new SdkError("AttributeError", `'${pyTypeName(contact)}' object has no attribute 'get'`)
      }
      const callInfo = makePstnCallInfo(null, contact["phone_number"] ?? null)
      const data = Object.hasOwn(contact, "data") ? contact["data"] : {}
      gs.send(controllerReady(dispatch.callId) as unknown as Record<string, unknown>)
      dispatch.controllerReadySent = true
      const call = this.startCall(dispatch.callId, callInfo, data, "v2/connect-campaign-call", hooks)
      dispatch.call = call
      attachment.watch.notify()
      await call.finished
      if (call.error !== undefined) dispatch.error = call.error
    } catch (error) {
      dispatch.error = error
    } finally {
      attachment.watch.notify()
    }
  }
}

/** Telemetry of the decorators an SDK agent would have called to register these hooks. */
const registerHooks = (sdk: GuavaSdk, hooks: AgentHooks): void => {
  taskHandlers(hooks)
  const names: ReadonlyArray<readonly [keyof AgentHooks, string]> = [
    ["onCallReceived", "on_call_received"],
    ["onCallStart", "on_call_start"],
    ["onCallerSpeech", "on_caller_speech"],
    ["onAgentSpeech", "on_agent_speech"],
    ["onTaskComplete", "on_task_complete"],
    ["onReachPerson", "on_reach_person"],
    ["onQuestion", "on_question"],
    ["onActionRequest", "on_action_request"],
    ["onAction", "on_action"],
    ["onSessionEnd", "on_session_end"],
    ["onOutboundFailed", "on_outbound_failed"],
    ["onEscalate", "on_escalate"],
    ["onDtmf", "on_dtmf"]
  ]
  for (const [hook, python] of names) {
    if (hooks[hook] === undefined) continue
    sdk.telemetry.methodCall(`Agent.${python}`)
    if (hook === "onReachPerson") sdk.telemetry.methodCall("Agent.on_task_complete")
  }
  for (const _ of Object.keys(hooks.onValidate ?? {})) sdk.telemetry.methodCall("Agent.on_validate")
  for (const _ of Object.keys(hooks.onSearchQuery ?? {})) sdk.telemetry.methodCall("Agent.on_search_query")
}

export { Client, GuavaSdk } from "./Client.ts"
export { Field, Say, Todo } from "./Commands.ts"
export { CallController, createOutbound, listenInbound, serveCampaign } from "./Legacy.ts"
