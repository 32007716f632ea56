/**
 * The replay against the REAL Guava Python SDK 0.35.0: fixtures/sdk-0.35.0.json holds what the
 * SDK's own code (pydantic models, Call, CallController, Agent._init_call/_dispatch_event,
 * urllib) produced for a corpus of inputs (fixtures/generate.py). Every validator verdict, URL,
 * command JSON and agent scenario must match; scenarios run end to end over a real socket.
 */
import { readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Agent, type AgentHooks, Call, type SuggestedAction } from "./Agent.ts"
import { GuavaSdk } from "./Client.ts"
import { type ChoiceGenerator, Field, Say } from "./Commands.ts"
import {
  decodeEventDict,
  decodeGuavadialerMessage,
  decodeListenInboundMessage,
  decodeOpenResponse,
  decodeServerFrame,
  SdkError
} from "./Events.ts"
import { fastTiming } from "./GuavaSocket.ts"
import { CallController } from "./Legacy.ts"
import { quotePlus, urljoin } from "./Python.ts"
import { ScriptedServer } from "./ScriptedServer.ts"

interface Verdict {
  readonly input: unknown
  readonly value?: unknown
  readonly error?: string
  /** The input holds a float with an integral value (`5.0`), which JavaScript reads as `5`. */
  readonly jsAmbiguous?: boolean
}
interface Scenario {
  readonly events: ReadonlyArray<Record<string, unknown>>
  readonly variables: Record<string, unknown>
  readonly commands: ReadonlyArray<unknown>
  readonly error: string | null
  readonly fields: Record<string, unknown>
}
interface Fixtures {
  readonly validators: Record<string, ReadonlyArray<Verdict>>
  readonly urljoin: ReadonlyArray<{ base: string; path: string; result: string }>
  readonly urlencode: ReadonlyArray<{ value: string; result: string }>
  readonly commands: Record<string, { commands: ReadonlyArray<unknown>; error: string | null }>
  readonly legacy: Record<string, ReadonlyArray<unknown>>
  readonly scenarios: Record<string, Scenario>
}

const fixtures = JSON.parse(
  readFileSync(new URL("./fixtures/sdk-0.35.0.json", import.meta.url), "utf8")
) as Fixtures

/** Random Say/Todo keys and legacy task ids become placeholders, as generate.py does. */
const normalize = (value: unknown): unknown =>
  JSON.parse(
    JSON.stringify(value)
      .replace(/"key":"[0-9a-f]{5}"/g, "\"key\":\"<rand5>\"")
      .replace(/"task_id":"[0-9a-f]{6}"/g, "\"task_id\":\"<rand6>\"")
  )

const verdict = (decode: () => unknown): { value?: unknown; error?: string } => {
  try {
    const value = decode()
    return { value: value ?? null }
  } catch (e) {
    if (e instanceof SdkError) return { error: e.pythonType }
    throw e
  }
}

describe("validators agree with pydantic on the SDK's own models", () => {
  const decoders: Record<string, (input: unknown) => unknown> = {
    events: (input) => decodeEventDict(input as Record<string, unknown>),
    listenInbound: (input) => decodeListenInboundMessage(input as Record<string, unknown>),
    guavadialer: (input) => decodeGuavadialerMessage(input as Record<string, unknown>),
    openResponse: (input) => decodeOpenResponse(input as string),
    serverFrame: (input) => decodeServerFrame(input as string)
  }
  for (const [section, cases] of Object.entries(fixtures.validators)) {
    it(`${section}: ${cases.length} cases`, () => {
      const decode = decoders[section]
      if (decode === undefined) throw new Error(`no decoder for ${section}`)
      const mismatches = cases.flatMap((c) => {
        const got = verdict(() => decode(c.input))
        const expected = c.error !== undefined ? { error: c.error } : { value: c.value }
        try {
          expect(got).toEqual(expected)
          return []
        } catch {
          return [{ input: c.input, expected, got, jsAmbiguous: c.jsAmbiguous === true }]
        }
      })
      // Only inputs with integral floats (Python `5.0`, which a JS server cannot even write) may
      // differ: pydantic ranks a union member that needs float→int coercion below an exact one.
      expect(mismatches.filter((m) => !m.jsAmbiguous)).toEqual([])
      expect(mismatches.length).toBeLessThanOrEqual(8)
    })
  }
})

describe("URLs are built like urllib", () => {
  it("urljoin", () => {
    for (const c of fixtures.urljoin) {
      expect(`${c.base} + ${c.path} = ${urljoin(c.base, c.path)}`).toBe(
        `${c.base} + ${c.path} = ${c.result}`
      )
    }
  })
  it("urlencode", () => {
    for (const c of fixtures.urlencode) expect(`k=${quotePlus(c.value)}`).toBe(c.result)
  })
})

const sdkOffline = () => new GuavaSdk({ baseUrl: "http://127.0.0.1:1/", apiKey: "gva-fixture", telemetry: false })

describe("Call API command JSON matches guava/call.py", () => {
  const scripts: Record<string, (c: Call) => void> = {
    set_task_checklist: (c) =>
      c.setTask("intake", {
        objective: "Collect details",
        checklist: [
          new Field({ key: "name", description: "Full name", question: "What is your name?" }),
          new Field({ key: "dob", fieldType: "date", required: false, sensitive: true }),
          new Field({ key: "plan", fieldType: "multiple_choice", choices: ["basic", "pro"], searchable: true }),
          new Say("Thanks for calling.", "s1"),
          new Say("Random key"),
          "A todo step"
        ]
      }),
    set_task_defaults: (c) => c.setTask("t", { checklist: ["only a todo"] }),
    set_task_null_criteria: (c) => c.setTask("t", { objective: "obj", completionCriteria: null }),
    set_task_criteria: (c) => c.setTask("t", { objective: "obj", completionCriteria: "when done" }),
    set_task_empty: (c) => c.setTask("t"),
    field_choices_on_text: (c) => c.setTask("t", { checklist: [new Field({ key: "x", choices: ["a"] })] }),
    calendar_slot: (c) =>
      c.setTask("t", {
        checklist: [
          new Field({ key: "slot", fieldType: "calendar_slot", choices: ["2024-05-01T10:00", "2024-05-01 11:30"] })
        ]
      }),
    calendar_slot_bad: (c) =>
      c.setTask("t", {
        checklist: [new Field({ key: "slot", fieldType: "calendar_slot", choices: ["next tuesday"] })]
      }),
    hangup: (c) => {
      c.hangup()
      c.hangup("Thank them for their time.")
    },
    reach_person_default: (c) => c.reachPerson("Ann Lee"),
    reach_person_greeting: (c) => c.reachPerson("Ann Lee", { greeting: "Hi, is Ann there?" }),
    reach_person_vm_hangup: (c) => c.reachPerson("Ann", { voicemailHangup: true }),
    reach_person_vm_message: (c) => c.reachPerson("Ann", { voicemailMessage: "Call us back" }),
    reach_person_outcomes: (c) =>
      c.reachPerson("Ann", {
        outcomes: [
          { key: "available", description: "On the line", nextActionPreview: "pull up the survey" },
          { key: "busy" },
          { key: "gone", nextActionPreview: "note it" }
        ]
      }),
    reach_person_after_vm_action: (c) => {
      c.setVoicemailAction({ hangup: true })
      c.reachPerson("Ann")
    },
    voicemail_action_hangup: (c) => c.setVoicemailAction({ hangup: true }),
    voicemail_action_message: (c) => c.setVoicemailAction({ message: "Please call back" }),
    transfer: (c) => {
      c.transfer("+15550001111")
      c.transfer("sip:desk@pbx", "Tell them it's sales")
    },
    language: (c) => {
      c.setLanguageMode()
      c.setLanguageMode("spanish", ["english", "french"])
    },
    dtmf: (c) => {
      c.setAgentDtmf(true)
      c.sendDtmf("12#")
      c.sendDtmf(["1", "A"])
    },
    dtmf_bad: (c) => c.sendDtmf("12x"),
    add_info: (c) =>
      c.addInfo("hours", {
        mon: "9-5",
        list: [1, 2.5, "é€😀"],
        n: null,
        t: true,
        empty: {},
        e2: [],
        nested: { a: { b: [0.1, 1e-7, 2.5e-10, 123.456] } }
      }),
    misc: (c) => {
      c.readScript("Read this.")
      c.retryTask("try again")
      c.sendInstruction("be nice")
      c.setVariable("k", { a: [1, "b", null, true] })
      c.setPersona({ agentName: "A", voice: "jack" })
    }
  }

  for (const [name, expected] of Object.entries(fixtures.commands)) {
    it(name, () => {
      const script = scripts[name]
      if (script === undefined) throw new Error(`no script for ${name}`)
      const call = new Call(
        "c1",
        { call_type: "pstn", from_number: null, to_number: "+15555555555", caller_id: null },
        sdkOffline()
      )
      let error: string | null = null
      try {
        script(call)
      } catch (e) {
        if (!(e instanceof SdkError)) throw e
        error = e.pythonType
      }
      expect({ commands: normalize(call.queued), error }).toEqual(expected)
    })
  }
})

describe("legacy CallController command JSON matches guava/call_controller.py", () => {
  class Plain extends CallController {
    constructor() {
      super()
      this.setPersona({ organizationName: "Org", agentName: "Bo" })
      const generator: ChoiceGenerator = () => [["a"], ["b"]]
      this.setTask("Collect", [
        new Field({ key: "plan", fieldType: "multiple_choice", choiceGenerator: generator }),
        new Say("Hi", "k1"),
        "todo"
      ])
    }
  }
  class WithHooks extends CallController {
    override onQuestion(): string {
      return "42"
    }
    override onActionRequest(): null {
      return null
    }
    constructor() {
      super()
      this.reachPerson("Ann", { onSuccess: () => {}, onFailure: () => {} })
    }
  }
  class Outcomes extends CallController {
    override onIntent(): string {
      return "ok"
    }
    constructor() {
      super()
      this.reachPerson("Ann", {
        greeting: "Hello!",
        outcomes: [
          { key: "yes", onOutcome: () => {}, description: "d1", nextActionPreview: "start" },
          { key: "no", onOutcome: () => {}, nextActionPreview: "stop" },
          { key: "maybe", onOutcome: () => {}, nextActionPreview: "wait" }
        ]
      })
      this.transfer({ toNumber: "+15550001111" })
      this.transfer({ sipAddress: "sip:a@b", transferInstructions: "warmly" })
      this.transfer({ toNumber: "+1", transferMessage: "Bye", transferInstructions: "ignored" })
      this.hangup("Say bye.")
    }
  }
  const classes: Record<string, () => CallController> = {
    Plain: () => new Plain(),
    WithHooks: () => new WithHooks(),
    Outcomes: () => new Outcomes()
  }
  for (const [name, expected] of Object.entries(fixtures.legacy)) {
    it(name, () => {
      const make = classes[name]
      if (make === undefined) throw new Error(`no class ${name}`)
      expect(normalize(make().commands.queued)).toEqual(expected)
    })
  }
})

describe("Agent scenarios end to end match Agent._init_call + _dispatch_event", () => {
  const boom = () => {
    throw new Error("boom")
  }
  const hooks: Record<string, { agent?: Record<string, unknown>; hooks: AgentHooks }> = {
    attach: {
      agent: { name: "Ava", organization: "Org", purpose: "Book", voice: "jack", acceptDtmf: false },
      hooks: {
        onQuestion: () => "x",
        onEscalate: () => {},
        onCallStart: (c) =>
          c.setTask("t1", { objective: "obj", checklist: [new Field({ key: "dob", fieldType: "date" })] })
      }
    },
    question_no_handler: { hooks: {} },
    question_handler: { hooks: { onQuestion: () => "On Main St." } },
    question_raises: { hooks: { onQuestion: boom } },
    question_non_str: { hooks: { onQuestion: () => null as unknown as string } },
    action_request_none: { hooks: { onActionRequest: () => null } },
    action_request_single: { hooks: { onActionRequest: (): SuggestedAction => ({ key: "sales" }) } },
    action_request_list: {
      hooks: { onActionRequest: () => [{ key: "sales", description: "Sales" }, { key: "billing" }] }
    },
    action_request_raises: { hooks: { onActionRequest: boom } },
    action_request_unregistered: { hooks: {} },
    task_validate_fails: {
      hooks: {
        onCallStart: (c) =>
          c.setTask("t1", {
            checklist: [new Field({ key: "dob", fieldType: "date" }), new Field({ key: "zip" })]
          }),
        onValidate: {
          dob: () => [false, "Date must be in the past."] as const,
          zip: () => [false, "Zip is wrong."] as const
        },
        onTaskComplete: (c) => c.hangup()
      }
    },
    task_validate_passes: {
      hooks: {
        onCallStart: (c) => c.setTask("t1", { checklist: [new Field({ key: "dob", fieldType: "date" })] }),
        onValidate: { dob: () => true },
        onTaskComplete: (c, t) => c.hangup(`Confirm ${(c.getField("dob") as { year: number }).year} for ${t}.`)
      }
    },
    task_per_task_raises: { hooks: { onTaskComplete: { t1: boom } } },
    task_unknown: { hooks: { onTaskComplete: { t1: (c) => c.hangup() } } },
    escalate_human: { hooks: {} },
    escalate_agent: { hooks: {} },
    escalate_raises: { hooks: { onEscalate: boom } },
    escalate_transfer: { hooks: { onEscalate: (c) => c.transfer("+15550002222") } },
    search_no_handler: { hooks: {} },
    search_handler: { hooks: { onSearchQuery: { slot: () => [["2024-05-01T10:00"], ["x"]] as const } } },
    search_raises: { hooks: { onSearchQuery: { slot: boom } } },
    action_generic: { hooks: { onAction: (_c, k) => `did ${k}` } },
    action_keyed_none: { hooks: { onAction: { refund: () => null } } },
    action_raises: { hooks: { onAction: { refund: boom } } },
    reach_person_flow: {
      hooks: {
        onCallStart: (c) => c.reachPerson(String(c.getVariable("name"))),
        onReachPerson: (c, o) => {
          if (o !== "available") c.hangup(`Outcome ${String(o)}`)
          else c.setTask("survey", { checklist: [new Field({ key: "q1" })] })
        }
      }
    },
    session_end_hook: { hooks: { onSessionEnd: (c, e) => c.hangup(e.termination_reason) } },
    dtmf_hook: { hooks: { onDtmf: (c, e) => c.sendInstruction(`pressed ${e.digit} ${e.recent_digits}`) } },
    speech_hooks: {
      hooks: {
        onCallerSpeech: (c, e) => c.sendInstruction("heard " + e.utterance),
        onAgentSpeech: (c, e) => c.readScript("said " + e.utterance)
      }
    },
    validator_raises: {
      hooks: {
        onCallStart: (c) => c.setTask("t1", { checklist: [new Field({ key: "dob" })] }),
        onValidate: { dob: boom }
      }
    }
  }

  let server: ScriptedServer
  let sdk: GuavaSdk
  beforeAll(async () => {
    server = await ScriptedServer.start()
    server.autoPeer = true
    let n = 0
    server.routes.push((r) =>
      r.path.startsWith("/v2/create-outbound") ? { status: 200, body: { call_id: `call-${++n}` } } : undefined
    )
    sdk = new GuavaSdk({
      baseUrl: server.baseUrl,
      apiKey: "gva-fixture",
      telemetry: false,
      timing: { socket: fastTiming({ recvTimeoutMs: 100 }) }
    })
  })
  afterAll(async () => {
    await server.stop()
  })

  for (const [name, scenario] of Object.entries(fixtures.scenarios)) {
    it(name, async () => {
      const spec = hooks[name]
      if (spec === undefined) throw new Error(`no hooks for ${name}`)
      const agent = await Agent.create(sdk, { ...spec.agent, hooks: spec.hooks })
      const call = await agent.callPhone({
        fromNumber: "+15550000000",
        toNumber: "+15555555555",
        variables: scenario.variables as Record<string, string>
      })
      const peer = await server.waitPeer(`call-connection-${call.id}`)
      for (const event of scenario.events) peer.send(event)
      await call.watch.waitFor(
        () => call.events.length === scenario.events.length || call.error !== undefined,
        5000,
        "events dispatched"
      )
      await peer.watch.waitFor(() => peer.payloads.length >= scenario.commands.length, 5000, "commands received")
      await new Promise((r) => setTimeout(r, 50))
      expect(normalize(peer.payloads)).toEqual(scenario.commands)
      expect(Object.fromEntries(call.fields)).toEqual(scenario.fields)
      expect(call.error !== undefined).toBe(scenario.error !== null)
      if (call.error === undefined && !call.done) {
        peer.send({ event_type: "bot-session-ended", termination_reason: "bot-hangup" })
      }
      await call.watch.waitFor(() => call.done, 5000, "call done")
    })
  }
})
