/**
 * The language-model policy: the model decides what to say; this policy decides when to ask
 * it, and checks and applies what it does. Pure, like `DeterministicPolicy`: the runtime calls
 * the model (a `Generate` action), streams its reply back as `ModelText` sentences and
 * `ModelToolCall`s, and answers each tool call with the `ToolResult` this policy gives.
 *
 * - **Start.** A human hears the greeting at once (the deterministic policy's line, so the
 *   model's latency is not heard at the start), then the model continues. An answering
 *   machine gets the voicemail line and the call ends `voicemail`, as in the deterministic
 *   policy.
 * - **Turns.** Each final utterance of the caller asks the model again (the runtime drops a
 *   reply still streaming). Digits keyed and ended with `#` do too; the prompt shows them.
 * - **Silence.** When the agent's speech has all played, the silence timer starts; the first
 *   timeout asks the model again (the prompt says the caller is quiet), the second ends the
 *   call `cut-short` with a goodbye.
 * - **Tools** (`tools`): `record_field {key, value}` runs the value (as the caller said it)
 *   through the same `Extractor` as the deterministic policy, so a value is typed the same way
 *   whoever collected it; a value that cannot be read is refused with a reason for the model.
 *   `complete_task` is refused while a required field is missing. `end_call {outcome?}` ends
 *   the call after what is queued has played: `completed` once the task is complete, else
 *   `cut-short`. `transfer {to, message?}` says the message and transfers; its result waits for
 *   the carrier: a refused transfer is a refused call ("the transfer failed"), so the model
 *   hears it at once and goes on with the caller. An unknown tool or
 *   arguments that are not the tool's JSON get an error output, and nothing changes.
 * - **One round trip a turn.** The prompt and the tools' descriptions tell the model to say its
 *   next line in the same response as its tool calls (as chat models can: text and tool calls
 *   in one answer), so recording a field costs no second request. Every refusal is a
 *   `ToolResult` marked `refused`: the runtime asks the model again only for a refused call
 *   (its output says why: "Ask again", the required fields still missing) or a reply with
 *   nothing to say; the checks are the same whichever way the model answers.
 *
 * @since 0.1.0
 */
import type { ToolDefinition } from "@voice-agent/core/ports/ChatModel"
import type { Extractor } from "./DeterministicPolicy.ts"
import type { Decision, Directive, Input, Policy, State } from "./Dialogue.ts"
import * as Dialogue from "./Dialogue.ts"
import type { Lines } from "./Lines.ts"
import { defaultLines } from "./Lines.ts"

/**
 * @category models
 */
export interface Options {
  readonly extractor: Extractor
  /** How long to wait for the caller once the agent has finished speaking (default 8000 ms). */
  readonly silenceMs?: number | undefined
  readonly lines?: Partial<Lines> | undefined
}

/**
 * The tools the model is given, with the keys of the task's fields.
 *
 * @category constructors
 */
export const tools = (state: State): ReadonlyArray<ToolDefinition> => {
  const keys = state.items.flatMap((entry) => entry.item.item_type === "field" ? [entry.item.key] : [])
  const definitions: Array<ToolDefinition> = [
    {
      name: "end_call",
      description: "Hang up, after what you said last has been heard. Say goodbye first.",
      parameters: {
        type: "object",
        properties: {
          outcome: {
            type: "string",
            enum: ["completed", "cut-short"],
            description: "completed when the task is done, cut-short when the caller stopped early"
          }
        },
        additionalProperties: false
      }
    },
    {
      name: "transfer",
      description: "Transfer the caller to a human at a phone number.",
      parameters: {
        type: "object",
        properties: {
          to: { type: "string", description: "The phone number, in E.164 (+15551234567)" },
          message: { type: "string", description: "What to say before transferring" }
        },
        required: ["to"],
        additionalProperties: false
      }
    }
  ]
  if (state.task === undefined) return definitions
  return [
    {
      name: "record_field",
      description: "Record the value of a checklist field, as soon as the caller has given it. " +
        "Say your next line in the same response: you hear back only if the value is refused.",
      parameters: {
        type: "object",
        properties: {
          key: { type: "string", enum: keys, description: "The field's key" },
          value: { type: "string", description: "The value, as the caller said it" }
        },
        required: ["key", "value"],
        additionalProperties: false
      }
    },
    {
      name: "complete_task",
      description: "Mark the task complete, once every required field is collected and every statement said. " +
        "Say goodbye in the same response.",
      parameters: { type: "object", properties: {}, additionalProperties: false }
    },
    ...definitions
  ]
}

const parseArguments = (text: string): { readonly [key: string]: unknown } | undefined => {
  try {
    const parsed: unknown = JSON.parse(text === "" ? "{}" : text)
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? parsed as { readonly [key: string]: unknown }
      : undefined
  } catch {
    return undefined
  }
}

/**
 * The policy.
 *
 * @category constructors
 */
export const make = (options: Options): Policy => {
  const lines: Lines = { ...defaultLines, ...options.lines }
  const silenceMs = options.silenceMs ?? 8_000
  const say = (text: string): Directive => ({ _tag: "Say", text, sensitiveFree: true })
  const generate: Directive = { _tag: "Generate" }
  /** A refused call: nothing changes, and the model is told why. */
  const result = (state: State, id: string, output: string): Decision => ({
    state,
    actions: [{ _tag: "ToolResult", id, output, refused: true }]
  })

  const missingRequired = (state: State): ReadonlyArray<string> =>
    state.items.flatMap((entry) =>
      entry.item.item_type === "field" && entry.item.required !== false && entry.status !== "done"
        ? [entry.item.key]
        : []
    )

  const toolCall = (state: State, input: Extract<Input, { _tag: "ModelToolCall" }>): Decision => {
    const args = parseArguments(input.arguments)
    if (args === undefined) return result(state, input.id, "Error: the arguments are not a JSON object.")
    switch (input.name) {
      case "record_field": {
        const key = typeof args["key"] === "string" ? args["key"] : undefined
        const raw = args["value"]
        const field = key === undefined ? undefined : Dialogue.field(state, key)
        if (field === undefined) return result(state, input.id, `Error: there is no field "${String(key)}".`)
        if (typeof raw !== "string" && typeof raw !== "number") {
          return result(state, input.id, "Error: value must be the caller's answer as a string.")
        }
        if (state.call === undefined) return result(state, input.id, "Error: the call has not started.")
        const extracted = options.extractor(field, String(raw), {
          today: state.call.today,
          language: state.language,
          variables: state.variables
        })
        if (extracted._tag === "Failure") {
          return result(
            state,
            input.id,
            `Error: that is not a valid ${field.field_type.replace("_", " ")} for "${field.key}". Ask again.`
          )
        }
        const recorded = Dialogue.recordField(state, field.key, extracted.success)
        return {
          state: recorded,
          actions: [
            { _tag: "RecordField", key: field.key, value: extracted.success },
            { _tag: "ToolResult", id: input.id, output: `Recorded ${field.key}.` }
          ]
        }
      }
      case "complete_task": {
        const missing = missingRequired(state)
        if (missing.length > 0) {
          return result(state, input.id, `Error: still missing required fields: ${missing.join(", ")}.`)
        }
        let done = state
        for (const entry of state.items) {
          if (entry.item.item_type !== "field") done = Dialogue.setStatus(done, entry.item.key, "done")
        }
        return {
          state: done,
          actions: [{ _tag: "CompleteTask" }, { _tag: "ToolResult", id: input.id, output: "The task is complete." }]
        }
      }
      case "end_call": {
        const outcome = state.completed || (state.task === undefined && args["outcome"] !== "cut-short")
          ? "completed"
          : "cut-short"
        return { state, actions: [{ _tag: "EndCall", outcome }] }
      }
      case "transfer": {
        const to = typeof args["to"] === "string" ? args["to"].trim() : ""
        if (!/^\+[1-9]\d{6,14}$/.test(to)) {
          return result(state, input.id, "Error: `to` must be a phone number in E.164, like +15551234567.")
        }
        const message = typeof args["message"] === "string" ? args["message"] : ""
        return {
          state,
          actions: [...(message.trim() === "" ? [] : [say(message)]), { _tag: "Transfer", to, message, id: input.id }]
        }
      }
      default:
        return result(state, input.id, `Error: there is no tool "${input.name}".`)
    }
  }

  /** An SDK agent's task, instruction, answer or search result: the model takes it from there. */
  const command = (state: State, command: Extract<Input, { readonly _tag: "Command" }>["command"]): Decision => {
    if (state.call === undefined) return { state, actions: [] }
    switch (command._tag) {
      case "SetTask":
      case "Instruct":
        return { state, actions: [generate] }
      case "RetryTask":
        return {
          state: { ...state, instructions: [...state.instructions, `The task is not complete yet: ${command.reason}`] },
          actions: [generate]
        }
      case "AnswerQuestion":
        return {
          state: {
            ...state,
            instructions: [...state.instructions, `The answer to the caller's question: ${command.answer}`]
          },
          actions: [generate]
        }
      case "ChoiceResult": {
        const choice = command.matched[0]
        if (choice === undefined || Dialogue.field(state, command.key) === undefined) {
          return { state, actions: [generate] }
        }
        return {
          state: Dialogue.recordField(state, command.key, choice),
          actions: [{ _tag: "RecordField", key: command.key, value: choice }, generate]
        }
      }
    }
  }

  const decide = (state: State, input: Input): Decision => {
    switch (input._tag) {
      case "CallStarted":
        if (input.answeredBy === "machine") {
          return { state, actions: [say(lines.voicemail(state.persona)), { _tag: "EndCall", outcome: "voicemail" }] }
        }
        return { state, actions: [say(lines.greeting(state.persona, input.direction)), generate] }
      case "Utterance":
        return { state: { ...state, silences: 0, dtmf: "" }, actions: [generate] }
      case "Dtmf": {
        if (input.digit === "#") {
          return { state: { ...state, silences: 0 }, actions: state.dtmf === "" ? [] : [generate] }
        }
        const dtmf = input.digit === "*" ? "" : state.dtmf + input.digit
        return { state: { ...state, dtmf, silences: 0 }, actions: [] }
      }
      case "SpeechPlayed":
        return { state, actions: state.speaking.length === 0 ? [{ _tag: "StartSilenceTimer", ms: silenceMs }] : [] }
      case "SpeechInterrupted":
        return { state, actions: [{ _tag: "StartSilenceTimer", ms: silenceMs }] }
      case "SilenceTimeout":
        if (state.silences >= 1) {
          return { state, actions: [say(lines.silenceGoodbye), { _tag: "EndCall", outcome: "cut-short" }] }
        }
        return { state: { ...state, silences: state.silences + 1 }, actions: [generate] }
      case "ModelText":
        return input.text.trim() === "" ? { state, actions: [] } : { state, actions: [say(input.text.trim())] }
      case "ModelToolCall":
        return toolCall(state, input)
      case "TransferRefused": {
        const output = `Error: the transfer to ${input.to} failed (${input.reason}). ` +
          "The caller is still on the line: tell them, and carry on."
        // The model's own call hears it as its result; an SDK agent's transfer, as an instruction.
        return input.id === undefined
          ? { state: { ...state, instructions: [...state.instructions, output] }, actions: [generate] }
          : { state, actions: [{ _tag: "ToolResult", id: input.id, output, refused: true }] }
      }
      case "Command":
        return command(state, input.command)
    }
  }

  return { decide }
}
