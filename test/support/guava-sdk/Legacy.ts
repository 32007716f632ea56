/**
 * Replay of the Guava Python SDK's legacy controller API (still shipped in 0.35.0):
 * `CallController` (guava/call_controller.py) and the `Client` methods that attach one
 * (guava/client.py): `create_outbound`, `listen_inbound` and `serve_campaign`.
 *
 * How it differs on the wire from the Agent API (Agent.ts):
 *
 * - attach order: `registered-hooks` first (queued by `CallController.__new__`, with
 *   `has_on_question` / `has_on_intent` / `has_on_action_requested` true when the subclass overrides
 *   `onQuestion` / `onIntent` / `onActionRequest`, `has_on_escalate` false, DTMF true), then whatever
 *   the controller's constructor queues (`set-persona`, `set-task`…); never `set-variable`;
 * - `set-task` ids are 6 random hex characters and fields carry `sensitive: false`; a
 *   choice_generator makes a search field answered locally;
 * - events other than `bot-session-ended` / `outbound-call-failed` run "on their own thread" (here:
 *   not awaited, their exceptions only logged);
 * - `serve_campaign`: the campaign call socket is named `campaign-call-{id}`; the controller must
 *   be built within 5 s or `init-controller-failed` is sent instead of `controller-ready`;
 *   `GET v1/campaigns/{id}/has-callable-contacts` every 5 s closes the discovery socket when it says
 *   false and no call is active; only `bot-session-ended` ends a campaign call, and a payload that
 *   fails validation kills the event thread while the socket stays open (deaf).
 *
 * Subclass `CallController` and override its hooks as methods (not arrow-function fields: the
 * base constructor inspects the prototype, as the SDK's `__new__` inspects the class).
 */
import type { Client } from "./Client.ts"
import { CommandQueue } from "./CommandQueue.ts"
import {
  acceptInbound,
  actionSuggestion,
  addInfoInstruction,
  answerCall,
  answerQuestion,
  type ChecklistItem,
  type ChoiceGenerator,
  choiceQueryResult,
  claimCall,
  type Command,
  controllerReady,
  declineCall,
  hangupInstruction,
  initControllerFailed,
  type Language,
  legacyDefaultTransferMessage,
  legacyReachPersonTask,
  readScript,
  registeredHooks,
  rejectInbound,
  sendInstruction,
  serializeChecklist,
  setLanguageMode,
  setPersona,
  setTask,
  transferCall
} from "./Commands.ts"
import {
  type AgentSpeechEvent,
  type CallerSpeechEvent,
  type CallInfo,
  decodeEventDict,
  decodeGuavadialerMessage,
  decodeListenInboundMessage,
  type GuavadialerServerMessage,
  type GuavaEvent,
  type ListenInboundServerMessage,
  SdkError
} from "./Events.ts"
import { GuavaSocket, GuavaSocketClosedError } from "./GuavaSocket.ts"
import { isDict, pyStr, pyTruthy, pyTypeName, randomHex, urlencode } from "./Python.ts"
import { sleep, Watch } from "./Watch.ts"

type MaybePromise<T> = T | Promise<T>

/** Something the SDK only logs. */
export interface LoggedProblem {
  readonly where: string
  readonly error: unknown
}

/** `guava.types.ReachPersonOutcome` (legacy: with its handler). */
export interface LegacyReachPersonOutcome {
  readonly key: string
  readonly onOutcome: () => MaybePromise<void>
  readonly description?: string | null
  readonly nextActionPreview?: string | null
}

/** `guava.CallController`, plus the replay's records of the call it is attached to. */
export class CallController {
  readonly commands: CommandQueue
  readonly fieldValues = new Map<string, unknown>()
  readonly searchFunctionsByKey = new Map<string, ChoiceGenerator>()
  currentTaskId: string | undefined
  private onCompleteCurrentTask: (() => MaybePromise<void>) | undefined
  started = false

  // --- replay records ---
  readonly events: Array<GuavaEvent> = []
  readonly notes: Array<string> = []
  readonly logged: Array<LoggedProblem> = []
  socket: GuavaSocket | undefined
  callId: string | undefined
  error: unknown
  done = false
  readonly watch = new Watch()

  constructor(_data?: unknown) {
    this.commands = new CommandQueue(() => this.watch.notify())
    // CallController.__new__: registered-hooks from which hooks the subclass overrides.
    const base = CallController.prototype
    const hasOnIntent = this.onIntent !== base.onIntent
    this.sendCommand(registeredHooks({
      hasOnQuestion: this.onQuestion !== base.onQuestion,
      hasOnIntent,
      hasOnActionRequested: this.onActionRequest !== base.onActionRequest
    }))
  }

  // --- hooks to override ---
  onIncomingCall(_fromNumber: string | null): MaybePromise<void> {}
  onSessionDone(): MaybePromise<void> {}
  onIntent(_intent: string): MaybePromise<string | null> {
    return "Unfortunately I'm not able to help with that."
  }
  onActionRequest(_actionSummary: string): MaybePromise<readonly [string, string] | null> {
    return null
  }
  onExecuteAction(_actionKey: string): MaybePromise<void> {}
  onCallerSpeech(_event: CallerSpeechEvent): MaybePromise<void> {}
  onAgentSpeech(_event: AgentSpeechEvent): MaybePromise<void> {}
  onQuestion(_question: string): MaybePromise<string> {
    return "I don't have an answer to that question."
  }

  // --- API ---
  acceptCall(): void {
    this.sendCommand(acceptInbound())
  }

  rejectCall(): void {
    this.sendCommand(rejectInbound())
  }

  readScript(script: string): void {
    this.sendCommand(readScript(script))
  }

  addInfo(label: string, info: unknown): void {
    this.sendInstruction(addInfoInstruction(label, info))
  }

  setPersona(persona: {
    readonly organizationName?: string | null
    readonly agentName?: string | null
    readonly agentPurpose?: string | null
    readonly voice?: string | null
  }): void {
    this.sendCommand(setPersona(persona))
  }

  setLanguageMode(primary: Language = "english", secondary: ReadonlyArray<Language> | null = null): void {
    this.sendCommand(setLanguageMode(primary, secondary ?? []))
  }

  /** `set_task(objective="", checklist=None, completion_criteria="", on_complete=...)`: a new 6-hex task id. */
  setTask(
    objective = "",
    checklist: ReadonlyArray<ChecklistItem> | null = null,
    completionCriteria: string | null = "",
    onComplete: () => MaybePromise<void> = () => {}
  ): void {
    if (objective === "" && (checklist === null || checklist.length === 0)) {
      throw new SdkError("AssertionError", "At least one of args ['objective','checklist'] must be provided.")
    }
    this.currentTaskId = randomHex(6)
    const serialized = serializeChecklist(checklist ?? [], "legacy")
    for (const [key, generator] of serialized.searchFunctions) this.searchFunctionsByKey.set(key, generator)
    this.onCompleteCurrentTask = onComplete
    this.sendCommand(setTask({
      taskId: this.currentTaskId,
      objective,
      actionItems: serialized.actionItems,
      completionCriteria
    }))
  }

  /** `await_task`: set a task and wait for its completion. */
  awaitTask(objective = "", checklist: ReadonlyArray<ChecklistItem> | null = null): Promise<void> {
    if (!this.started) {
      this.logged.push({ where: "await_task", error: "Await task was called before the first event - it may hang." })
    }
    return new Promise((resolve) => this.setTask(objective, checklist, "", () => resolve()))
  }

  hangup(finalInstructions = ""): void {
    this.sendInstruction(hangupInstruction(finalInstructions))
  }

  /** `transfer(to_number='', transfer_message='', sip_address='', transfer_instructions='')`. */
  transfer(options: {
    readonly toNumber?: string
    readonly transferMessage?: string
    readonly sipAddress?: string
    readonly transferInstructions?: string
  }): void {
    const toNumber = options.toNumber ?? ""
    const sipAddress = options.sipAddress ?? ""
    const message = options.transferMessage ?? ""
    const instructions = options.transferInstructions ?? ""
    if (toNumber === "" && sipAddress === "") {
      this.logged.push({ where: "transfer", error: "One of 'to_number' or 'sip_address' must be provided." })
    }
    const [msg, soft] = message !== ""
      ? [message, false]
      : instructions !== ""
      ? [instructions, true]
      : [legacyDefaultTransferMessage, false]
    this.sendCommand(
      transferCall({ transferMessage: msg, toNumber: toNumber !== "" ? toNumber : sipAddress, softTransfer: soft })
    )
  }

  sendCommand(command: Command | Record<string, unknown>): void {
    this.commands.put(command as Command)
  }

  sendInstruction(instruction: string): void {
    this.sendCommand(sendInstruction(instruction))
  }

  getField(key: string, defaultValue: unknown = null): unknown {
    return this.fieldValues.has(key) ? this.fieldValues.get(key) : defaultValue
  }

  hasField(key: string): boolean {
    return this.fieldValues.has(key)
  }

  /** `shutdown()`: end the command queue. */
  shutdown(): void {
    this.commands.end()
  }

  /** `reach_person(contact_full_name, *, greeting, on_success, on_failure, outcomes)`. */
  reachPerson(
    contactFullName: string,
    options: {
      readonly greeting?: string | null
      readonly onSuccess?: () => MaybePromise<void>
      readonly onFailure?: () => MaybePromise<void>
      readonly outcomes?: ReadonlyArray<LegacyReachPersonOutcome>
    }
  ): void {
    const hasOutcomes = options.outcomes !== undefined
    const hasSuccess = options.onSuccess !== undefined
    const hasFailure = options.onFailure !== undefined
    if (hasOutcomes && (hasSuccess || hasFailure)) {
      throw new SdkError("ValueError", "Specify either 'outcomes' OR ('on_success' and 'on_failure'), not both")
    }
    if (!hasOutcomes && !(hasSuccess && hasFailure)) {
      if (hasSuccess) throw new SdkError("ValueError", "'on_success' requires 'on_failure' to also be specified")
      if (hasFailure) throw new SdkError("ValueError", "'on_failure' requires 'on_success' to also be specified")
      throw new SdkError("ValueError", "You must specify either 'outcomes', or both 'on_success' and 'on_failure'")
    }
    const outcomes: ReadonlyArray<LegacyReachPersonOutcome> = options.outcomes ?? [
      {
        key: "contact_available",
        onOutcome: options.onSuccess ?? (() => {}),
        description: "The contact is available to speak."
      },
      {
        key: "contact_unavailable",
        onOutcome: options.onFailure ?? (() => {}),
        description: "The contact is not available to speak. This includes reaching a wrong number."
      }
    ]
    const task = legacyReachPersonTask(contactFullName, { greeting: options.greeting, outcomes })
    this.setTask(task.objective, task.checklist, "", async () => {
      const availability = this.getField("contact_availability")
      const handler = outcomes.find((o) => o.key === availability)?.onOutcome
      if (handler === undefined) {
        this.logged.push({
          where: "reach_person",
          error: `Unhandled contact_availability value: ${String(availability)}`
        })
        return
      }
      await handler()
    })
  }

  /** `on_event`: dispatch one event to the hooks (guava/call_controller.py). */
  async onEvent(event: GuavaEvent): Promise<void> {
    this.started = true
    switch (event.event_type) {
      case "caller-speech":
        return this.onCallerSpeech(event)
      case "agent-speech":
        return this.onAgentSpeech(event)
      case "agent-question":
        try {
          const answer = await this.onQuestion(event.question)
          this.sendCommand(answerQuestion(event.question_id, answer))
        } catch (error) {
          this.logged.push({ where: "on_question", error })
          this.sendCommand(
            answerQuestion(event.question_id, "An error occurred and the question could not be answered.")
          )
        }
        return
      case "intent": {
        const response = await this.onIntent(event.intent_summary)
        if (pyTruthy(response)) this.sendInstruction(`Responding to intent ${event.intent_id}: ${String(response)}`)
        return
      }
      case "action-request": {
        const response = await this.onActionRequest(event.intent_summary)
        if (response !== null && response !== undefined) {
          this.sendCommand(actionSuggestion({
            intentId: event.intent_id,
            actionKey: response[0],
            actionDescription: response[1] !== "" ? response[1] : ""
          }))
        } else {
          this.sendCommand(actionSuggestion({ intentId: event.intent_id, actionKey: null }))
        }
        return
      }
      case "execute-action":
        return this.onExecuteAction(event.action_key)
      case "choice-query": {
        const generator = this.searchFunctionsByKey.get(event.field_key)
        if (generator === undefined) {
          this.logged.push({ where: "choice-query", error: `no choice generator for field '${event.field_key}'` })
          return
        }
        const [matched, other] = generator(event.query)
        this.sendCommand(choiceQueryResult({
          fieldKey: event.field_key,
          queryId: event.query_id,
          matchedChoices: matched,
          otherChoices: other
        }))
        return
      }
      case "task-done": {
        // Obsolete task-done events (another task id) are ignored.
        if (event.task_id !== this.currentTaskId) return
        const onComplete = this.onCompleteCurrentTask
        if (onComplete === undefined) {
          throw new SdkError("AssertionError", "assert self._on_complete_current_task is not None")
        }
        this.onCompleteCurrentTask = undefined
        await onComplete()
        return
      }
      case "action-item-done":
        this.fieldValues.set(event.key, event.payload)
        return
      case "inbound-call":
        return this.onIncomingCall(event.caller_number)
      case "outbound-call-connected":
        return
      case "bot-session-ended":
        return this.onSessionDone()
      case "error":
        this.logged.push({ where: "server error", error: event.content })
        return
      case "warning":
      case "dtmf":
      case "escalate":
      case "outbound-call-failed":
      case "session-started":
        this.logged.push({ where: "on_event", error: `Unhandled event: ${event.event_type}` })
    }
  }

  /** Wait until the SDK would be done with this controller's call; rejects with its error. */
  async result(timeoutMs = 30_000): Promise<void> {
    await this.watch.waitFor(() => this.done, timeoutMs, "legacy call to finish")
    if (this.error !== undefined) throw this.error
  }

  /** Commands sent on the call socket (in order). */
  sentCommands(): Array<Record<string, unknown>> {
    return this.socket?.sentPayloads() ?? []
  }

  /** @internal Run `on_event` "on its own thread": not awaited by the caller, exceptions logged. */
  runEventThread(event: GuavaEvent): void {
    void this.onEvent(event).catch((error: unknown) => {
      this.logged.push({ where: `on_event thread (${event.event_type})`, error })
      this.watch.notify()
    }).then(() => this.watch.notify())
  }
}

const socketFor = (client: Client, name: string, path: string, maxAgeSeconds?: number) =>
  new GuavaSocket({
    name,
    url: client.get_websocket_url(path),
    headers: client.headers(),
    maxAgeSeconds,
    timing: client.sdk.timing.socket,
    userAgent: client.sdk.identity.websocketsUserAgent,
    track: (fn) => client.sdk.telemetry.methodCall(fn)
  })

/** `Client._attach_to_call` (create_outbound, listen_inbound): `call-connection-{id}` on v2/connect-call. */
const attachToCall = async (client: Client, callId: string, controller: CallController): Promise<void> => {
  let drain: Promise<void> | undefined
  controller.callId = callId
  try {
    const gs = socketFor(client, `call-connection-${callId}`, `v2/connect-call/${callId}`, 18_000)
    controller.socket = gs
    gs.watch.subscribe(() => controller.watch.notify())
    await gs.connect()
    try {
      drain = controller.commands.drainInto(gs)
      while (gs.is_open()) {
        const event = decodeEventDict(await gs.recv(), controller.notes)
        if (event === null) continue
        controller.events.push(event)
        const terminal = event.event_type === "outbound-call-failed" || event.event_type === "bot-session-ended"
        // Terminal events run on the receive thread (their exceptions end the call); the rest on threads.
        if (terminal) await controller.onEvent(event)
        else controller.runEventThread(event)
        controller.watch.notify()
        if (terminal) break
      }
    } finally {
      await gs.close()
    }
  } catch (error) {
    controller.error = error
  } finally {
    controller.shutdown()
    if (drain !== undefined) await drain
    controller.done = true
    controller.watch.notify()
  }
}

/**
 * `Client.create_outbound(from_number=, to_number=, call_controller=)`: `POST v2/create-outbound`
 * then the controller's call socket. Resolves once the call's handling started; rejects with what
 * the SDK raises before (HTTP error, no `call_id`).
 */
export const createOutbound = async (
  client: Client,
  options: { readonly fromNumber: string; readonly toNumber: string; readonly controller: CallController }
): Promise<CallController> => {
  const callId = await client.sdk.tracked(
    "Client.create_outbound",
    () => client.createOutbound(options.fromNumber, options.toNumber)
  )
  void attachToCall(client, pyStr(callId), options.controller)
  return options.controller
}

/** A legacy `listen_inbound` or `serve_campaign` run. */
export class LegacyListener<M> {
  readonly messages: Array<M> = []
  readonly controllers: Array<CallController> = []
  readonly notes: Array<string> = []
  readonly logged: Array<LoggedProblem> = []
  /** Legacy campaign: call ids answered with `init-controller-failed`. */
  readonly initFailures: Array<string> = []
  /** Legacy campaign: has-callable-contacts polls made. */
  polls = 0
  socket: GuavaSocket | undefined
  ready = false
  error: unknown
  done = false
  stopping = false
  readonly watch = new Watch()

  async stop(): Promise<void> {
    this.stopping = true
    await this.socket?.close()
    await this.waitDone()
  }

  waitReady(timeoutMs = 10_000): Promise<true> {
    return this.watch.waitFor(() => this.ready, timeoutMs, "listen-started")
  }

  waitForController(index = 0, timeoutMs = 10_000): Promise<CallController> {
    return this.watch.waitFor(() => this.controllers[index], timeoutMs, `controller #${index}`)
  }

  waitDone(timeoutMs = 30_000): Promise<void> {
    return this.watch.waitFor(() => this.done, timeoutMs, "legacy listener to end").then(() => undefined)
  }
}

/**
 * `Client.listen_inbound(agent_number= | webrtc_code= | sip_code=, controller_class= |
 * controller_factory=)`.
 */
export const listenInbound = (
  client: Client,
  options: {
    readonly agentNumber?: string
    readonly webrtcCode?: string
    readonly sipCode?: string
    readonly controllerClass?: () => CallController
    readonly controllerFactory?: (callInfo: CallInfo) => CallController | null
  }
): LegacyListener<ListenInboundServerMessage> => {
  const query: Array<readonly [string, string]> = options.agentNumber !== undefined
    ? [["phone_number", options.agentNumber]]
    : options.webrtcCode !== undefined
    ? [["webrtc_code", options.webrtcCode]]
    : [["sip_code", options.sipCode ?? ""]]
  const gs = socketFor(client, "listen-inbound", `v2/listen-inbound?${urlencode(query)}`)
  const listener = new LegacyListener<ListenInboundServerMessage>()
  listener.socket = gs
  gs.watch.subscribe(() => listener.watch.notify())
  const run = async () => {
    try {
      await gs.connect()
      try {
        while (gs.is_open()) {
          const message = decodeListenInboundMessage(await gs.recv(), listener.notes)
          listener.messages.push(message)
          if (message.message_type === "listen-started") listener.ready = true
          else if (message.message_type === "incoming-call") {
            gs.send(claimCall(message.call_id) as unknown as Record<string, unknown>)
          } else {
            try {
              const controller = options.controllerClass !== undefined
                ? options.controllerClass()
                : options.controllerFactory?.(message.call_info) ?? null
              if (controller !== null) {
                gs.send(answerCall(message.call_id) as unknown as Record<string, unknown>)
                listener.controllers.push(controller)
                void attachToCall(client, message.call_id, controller)
                // The deprecated on_incoming_call still runs, from a locally built inbound-call event.
                const info = message.call_info
                controller.runEventThread({
                  sequence: null,
                  event_type: "inbound-call",
                  caller_number: info.call_type === "pstn" ? info.from_number : null,
                  agent_number: null
                })
              } else {
                gs.send(declineCall(message.call_id) as unknown as Record<string, unknown>)
              }
            } catch (error) {
              listener.logged.push({ where: "Failed to initialize call controller.", error })
            }
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

/**
 * `Client.serve_campaign(campaign=, controller=)`: the legacy campaign path. `controller` builds a
 * CallController from the contact's `data` (may be async: taking longer than the init timeout,
 * 5 s, or throwing sends `init-controller-failed`).
 */
export const serveCampaign = (
  client: Client,
  options: {
    readonly campaign: { readonly id: unknown; readonly name?: unknown }
    readonly controller: (data: unknown) => MaybePromise<CallController>
  }
): LegacyListener<GuavadialerServerMessage> => {
  const listener = new LegacyListener<GuavadialerServerMessage>()
  const active = new Set<Promise<void>>()
  const sdk = client.sdk

  const initiateCallController = async (gs: GuavaSocket, callId: string, contactData: unknown) => {
    const data = pyTruthy(contactData) && isDict(contactData) ? (contactData["data"] ?? null) : null
    let controller: CallController | undefined
    const init = (async () => {
      controller = await options.controller(data)
    })().catch((error: unknown) => {
      listener.logged.push({ where: `controller init for ${callId}`, error })
    })
    await Promise.race([init, sleep(sdk.timing.controllerInitTimeoutMs)])
    const built = controller
    if (built === undefined) {
      gs.send(initControllerFailed(callId) as unknown as Record<string, unknown>)
      listener.initFailures.push(callId)
      listener.watch.notify()
      return
    }
    gs.send(controllerReady(callId) as unknown as Record<string, unknown>)
    built.callId = callId
    listener.controllers.push(built)
    listener.watch.notify()
    const callGs = socketFor(client, `campaign-call-${callId}`, `v2/connect-campaign-call/${callId}`, 18_000)
    built.socket = callGs
    callGs.watch.subscribe(() => built.watch.notify())
    try {
      await callGs.connect()
      const listen = (async () => {
        try {
          while (callGs.is_open()) {
            const event = decodeEventDict(await callGs.recv(), built.notes)
            if (event === null) continue
            built.events.push(event)
            built.runEventThread(event)
            if (event.event_type === "bot-session-ended") built.shutdown()
            built.watch.notify()
          }
        } catch (error) {
          // GuavaSocketClosedError ends the thread quietly; anything else kills it (socket stays open).
          if (!(error instanceof GuavaSocketClosedError)) built.error = error
        }
      })()
      for (;;) {
        if (!callGs.is_open()) break
        const command = await Promise.race([built.commands.get(), sleep(1000).then(() => "idle" as const)])
        if (command === "idle") continue
        if (command === undefined) break
        callGs.send(command as unknown as Record<string, unknown>)
      }
      await callGs.close()
      await listen
    } catch (error) {
      built.error ??= error
    } finally {
      built.done = true
      built.watch.notify()
    }
  }

  const run = async () => {
    let gs: GuavaSocket | undefined
    try {
      gs = socketFor(client, "serve-campaign", `v1/serve-campaign/${pyStr(options.campaign.id)}`)
      listener.socket = gs
      const discovery = gs
      discovery.watch.subscribe(() => listener.watch.notify())
      await discovery.connect()
      try {
        void (async () => {
          // poll_campaign_completion
          while (discovery.is_open()) {
            await sleep(sdk.timing.campaignPollMs)
            try {
              listener.polls += 1
              listener.watch.notify()
              const body = await client.hasCallableContacts(pyStr(options.campaign.id))
              if (!isDict(body)) {
                throw new SdkError("AttributeError", `'${pyTypeName(body)}' object has no attribute 'get'`)
              }
              const callable = Object.hasOwn(body, "has_callable_contacts") ? body["has_callable_contacts"] : true
              if (!pyTruthy(callable)) {
                if (active.size > 0) continue
                await discovery.close()
                return
              }
            } catch {
              // "Failed to poll campaign status, will retry."
            }
          }
        })()
        while (discovery.is_open()) {
          const message = decodeGuavadialerMessage(await discovery.recv(), listener.notes)
          listener.messages.push(message)
          if (message.message_type === "listen-started") {
            listener.ready = true
          } else {
            const contact = message.contact_data
            if (pyTruthy(contact) && !isDict(contact)) {
              throw new SdkError("AttributeError", `'${pyTypeName(contact)}' object has no attribute 'get'`)
            }
            const thread = initiateCallController(discovery, message.call_id, contact).catch((error: unknown) => {
              listener.logged.push({ where: `initiate_call_controller(${message.call_id})`, error })
            })
            active.add(thread)
            void thread.finally(() => active.delete(thread))
          }
          listener.watch.notify()
        }
      } finally {
        await discovery.close()
      }
    } catch (error) {
      // `except GuavaSocketClosedError: "Campaign disconnected."`: a normal end.
      if (!(error instanceof GuavaSocketClosedError) && !listener.stopping) listener.error = error
    } finally {
      listener.done = true
      listener.watch.notify()
    }
  }
  void run()
  return listener
}
