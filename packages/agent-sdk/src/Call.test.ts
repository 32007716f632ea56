import { describe, expect, it } from "vitest"
import { Call } from "./Call.ts"
import type { CallInfo } from "./CallInfo.ts"
import { Field, Say } from "./Checklist.ts"
import type { Command } from "./Commands.ts"
import { CallState } from "./internal/CallState.ts"
import { silentLogger } from "./Logger.ts"

const pstn: CallInfo = { callType: "pstn", fromNumber: "+15550100", toNumber: "+15550123" }

const makeCall = (info: CallInfo = pstn) => {
  const sent: Array<Command> = []
  const state = new CallState("call-1", (command) => sent.push(command), silentLogger)
  return { call: new Call("call-1", info, state), sent, state }
}

describe("Call commands (wire JSON)", () => {
  it("set-task: fields, says and to-dos as action items, completion criteria defaulting to \"\"", () => {
    const { call, sent } = makeCall()
    call.setTask("book", {
      objective: "Book a cleaning",
      checklist: [
        new Say("Hi, this is Riley.", "hello"),
        new Field({ key: "name", question: "May I have your full name?" }),
        new Field({ key: "slot", fieldType: "multiple_choice", choices: ["morning", "afternoon"], required: false }),
        "Confirm the booking"
      ]
    })
    expect(sent).toHaveLength(1)
    const command = sent[0]
    expect(command).toMatchObject({
      command_type: "set-task",
      task_id: "book",
      objective: "Book a cleaning",
      completion_criteria: ""
    })
    if (command?.command_type !== "set-task") throw new Error("not set-task")
    expect(Object.keys(command)).toEqual([
      "command_type",
      "task_id",
      "objective",
      "completion_criteria",
      "action_items"
    ])
    const [say, name, slot, todo] = command.action_items
    expect(say).toEqual({ item_type: "say", statement: "Hi, this is Riley.", key: "hello" })
    expect(name).toEqual({
      item_type: "field",
      key: "name",
      description: "",
      question: "May I have your full name?",
      field_type: "text",
      required: true,
      choices: [],
      is_search_field: false,
      sensitive: false
    })
    expect(slot).toMatchObject({ field_type: "multiple_choice", choices: ["morning", "afternoon"], required: false })
    expect(todo).toMatchObject({ item_type: "todo", description: "Confirm the booking" })
    expect(todo?.key).toMatch(/^[0-9a-f]{5}$/)
    expect(JSON.parse(JSON.stringify(command))).toEqual(command)
  })

  it("refuses a task with neither objective nor checklist, and choices on a text field", () => {
    const { call } = makeCall()
    expect(() => call.setTask("t", {})).toThrow(TypeError)
    expect(() => new Field({ key: "x", choices: ["a"] })).toThrow(TypeError)
    expect(() => new Field({ key: "x", fieldType: "calendar_slot", choices: ["tomorrow"] })).toThrow(TypeError)
    expect(new Field({ key: "x", fieldType: "calendar_slot", choices: ["2026-03-01T09:30"] }).choices).toHaveLength(1)
  })

  it("instructions, scripts, hangup, transfer, variables, language, persona, DTMF", () => {
    const { call, sent } = makeCall()
    call.sendInstruction("Be brief.")
    call.readScript("This call is recorded.")
    call.hangup()
    call.hangup("Thank them for their time.")
    call.transfer("+15550199")
    call.setVariable("tier", { gold: true })
    call.setLanguageMode("spanish", ["english"])
    call.setPersona({ name: "Riley" })
    call.sendDtmf("12#")
    call.setAgentDtmf(true)
    call.retryTask("The date is in the past.")
    expect(sent).toEqual([
      { command_type: "send-instruction", instruction: "Be brief." },
      { command_type: "read-script", script: "This call is recorded." },
      {
        command_type: "send-instruction",
        instruction: expect.stringContaining("hang up the call") as unknown as string
      },
      {
        command_type: "send-instruction",
        instruction: expect.stringMatching(/Thank them for their time\..*hang up the call/) as unknown as string
      },
      {
        command_type: "transfer-call",
        transfer_message: expect.any(String) as unknown as string,
        to_number: "+15550199",
        soft_transfer: true
      },
      { command_type: "set-variable", key: "tier", value: { gold: true } },
      { command_type: "set-language-mode", primary: "spanish", secondary: ["english"] },
      { command_type: "set-persona", agent_name: "Riley", organization_name: null, agent_purpose: null, voice: null },
      { command_type: "send-agent-dtmf", digits: ["1", "2", "#"] },
      { command_type: "set-agent-dtmf", enabled: true },
      { command_type: "retry-task", reason: "The date is in the past." }
    ])
    expect(call.getVariable("tier")).toEqual({ gold: true })
    expect(() => call.sendDtmf("1x")).toThrow(TypeError)
    expect(() => call.setVariable("bad", (() => 1) as never)).toThrow(TypeError)
  })

  it("refuses DTMF on WebRTC calls", () => {
    const { call } = makeCall({ callType: "webrtc", webrtcCode: "abc" })
    expect(() => call.sendDtmf("1")).toThrow(TypeError)
  })

  it("reachPerson: sets _voicemail_handler, then the reach_person task with contact_availability", () => {
    const { call, sent } = makeCall()
    call.reachPerson("Ada Lovelace", { voicemailHangup: true })
    expect(sent[0]).toEqual({ command_type: "set-variable", key: "_voicemail_handler", value: "reach_person" })
    const task = sent[1]
    if (task?.command_type !== "set-task") throw new Error("not set-task")
    expect(task.task_id).toBe("reach_person")
    expect(task.objective).toContain("Ada Lovelace")
    expect(task.objective).toContain("hang up")
    expect(task.action_items[1]).toMatchObject({
      item_type: "field",
      key: "contact_availability",
      field_type: "multiple_choice",
      choices: ["available", "unavailable", "voicemail", "wrong_number", "do_not_contact"],
      required: true
    })
    expect(() => call.setVoicemailAction({ hangup: true })).toThrow(TypeError)
  })

  it("drops commands once the call has ended", () => {
    const { call, sent, state } = makeCall()
    state.ended = true
    call.sendInstruction("too late")
    expect(sent).toEqual([])
    expect(call.ended).toBe(true)
  })

  it("getField / hasField / fields read the recorded values", () => {
    const { call, state } = makeCall()
    state.fields.set("dob", { year: 1990, month: 4, day: 2 })
    expect(call.getField("dob")).toEqual({ year: 1990, month: 4, day: 2 })
    expect(call.getField("missing")).toBeUndefined()
    expect(call.getField("missing", "n/a")).toBe("n/a")
    expect(call.getDate("dob")).toEqual({ year: 1990, month: 4, day: 2 })
    expect(call.getText("dob")).toBeUndefined()
    expect(call.hasField("dob")).toBe(true)
    expect(call.fields).toEqual({ dob: { year: 1990, month: 4, day: 2 } })
  })
})
