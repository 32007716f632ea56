/**
 * The SIP conformance kit (docs/SIP.md, "Conformance kit"): SIPp plays the trunk and the
 * callers of a running engine, and each check says what it checked and, when it failed, why.
 *
 * The engine under test runs `VOICE_AGENT_CARRIER=sip` with `SIP_TRUNK` at the kit's trunk
 * (`trunk`, where SIPp listens; `;transport=tcp` when the kit runs over TCP), its SIP at `sip`, and, for the digest check, `SIP_USERNAME` and
 * `SIP_PASSWORD` equal to `credentials`. The kit places its outbound calls through the API
 * (`api`: one campaign, a contact per check), which is also where it reads the outcomes. Its
 * people speak simulated speech (Audio.ts), which the engine's default recognizer transcribes.
 *
 * The checks run at once (one SIPp trunk serves every outbound call, `trunk.xml` answering by
 * the number's last digits; the inbound callers are SIPp processes of their own):
 *
 * - `answered`: outbound, answered; the person's RTP reaches the engine (their answer in the
 *   transcript, where their audio put it) and the agent's greeting is in the call's recordings.
 * - `busy` (486), `no-answer` (rings until the engine's CANCEL), `failure` (503), `voicemail`
 *   (a long greeting and a beep: the engine's detection): the outcome of CONTRACT §8.
 * - `digest`: a 401 challenge (MD5, `qop=auth`) answered with the right credentials.
 * - `hold`: the trunk's re-INVITE with `a=sendonly` answered `a=recvonly`, the call carrying on.
 * - `dtmf`: the person keys in "12#" (RFC 4733) when an agent asks for a number (an agent
 *   definition the kit creates, on a campaign of its own): the field collected is "12".
 * - `transfer`: an agent of the kit's (the SDK's `transfer-call`) transfers an answered call:
 *   REFER to the target in the call's dialog, its NOTIFYs answered, BYE; `bot-transfer`
 *   (Transfer.ts).
 * - `inbound`: a call to an owned number reaches its agent, whose audio reaches the caller
 *   (SIPp echoes it back: the call's `remote` recording holds it).
 * - `stranger`: a call to a number nobody owns gets 404.
 * - `torture`: RFC 4475's messages, sent while calls are up, each get a 4xx or are dropped;
 *   an OPTIONS is still answered 200 after them, and the calls in progress end as they should.
 *
 * @since 0.1.0
 */
import * as Wav from "@voice-agent/media/Wav"
import { Effect, Fiber } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Api from "./Api.ts"
import * as Audio from "./Audio.ts"
import * as Sipp from "./Sipp.ts"
import * as Torture from "./Torture.ts"
import * as Trace from "./Trace.ts"
import * as Transfer from "./Transfer.ts"

/**
 * @category models
 */
export interface Options {
  readonly api: Api.Api
  /** The engine's SIP address (`SIP_LISTEN`, or its public address). */
  readonly sip: { readonly host: string; readonly port: number }
  /** Where the kit's SIPp trunk listens: the engine's `SIP_TRUNK`. */
  readonly trunk: { readonly host: string; readonly port: number }
  /** A number an organization owns (inbound), which is also the campaign's caller id. */
  readonly owned: string
  /** The engine's `SIP_USERNAME` and `SIP_PASSWORD`, for the digest check. */
  readonly credentials: { readonly username: string; readonly password: string } | undefined
  /** The checks to run (names of `checks`); default all. */
  readonly only?: ReadonlyArray<string>
  /** A working directory (SIPp's traces, the audio); kept. */
  readonly dir: string
  /** How long a call may take to end, in s (the ring timeout and the conversation); default 60. */
  readonly waitS?: number
  /** SIP over UDP (default) or TCP: the engine's `SIP_TRUNK` says `;transport=tcp` then. */
  readonly transport?: "udp" | "tcp"
}

/**
 * @category models
 */
export interface Result {
  readonly name: string
  readonly checked: string
  /** Why it failed; undefined when it passed. */
  readonly failure: string | undefined
}

/** The outbound checks: the number each one dials (its last digits choose the trunk's answer). */
const outbound = {
  answered: "+12025550111",
  voicemail: "+12025550122",
  busy: "+12025550486",
  "no-answer": "+12025550408",
  failure: "+12025550503",
  digest: "+12025550401",
  hold: "+12025550444",
  dtmf: "+12025550555"
} as const

/**
 * Every check's name, in the order they are reported.
 *
 * @category constructors
 */
export const checks: ReadonlyArray<string> = [...Object.keys(outbound), "transfer", "inbound", "stranger", "torture"]

/** The checks' names and the trunk's own (SIPp's verdict on every outbound call), in report order. */
const reported = [...Object.keys(outbound), "transfer", "trunk", "inbound", "stranger", "torture"]

/** A stranger's number: no organization owns it. */
const stranger = "+19995550123"

/** Whether audio louder than `floor` (16-bit) lasts at least `ms` within a PCM window. */
const heard = (samples: Int16Array, fromMs: number, toMs: number, ms = 200, floor = 300) => {
  let loud = 0
  for (let i = Math.max(0, fromMs * 8); i < Math.min(samples.length, toMs * 8); i++) {
    if (Math.abs(samples[i]!) > floor) loud++
  }
  return loud >= ms * 8 * 0.3
}

const pass = (name: string, checked: string): Result => ({ name, checked, failure: undefined })
const fail = (name: string, checked: string, failure: string): Result => ({ name, checked, failure })

/**
 * Runs the checks against the engine; every result, in `checks`' order. Fails only when SIPp
 * cannot run or the API cannot be reached at all.
 *
 * @category constructors
 */
export const run = (options: Options) =>
  Effect.scoped(Effect.gen(function*() {
    const wanted = new Set(options.only ?? checks)
    // Calls of this run only: an earlier run's are older.
    const startedAt = new Date(Date.now() - 1000).toISOString()
    const waitS = options.waitS ?? 60
    const dir = (name: string) => {
      const folder = path.join(options.dir, name)
      fs.mkdirSync(folder, { recursive: true })
      return folder
    }
    const { api } = options
    const sipTarget = `${options.sip.host}:${options.sip.port}`
    const dialled = Object.entries(outbound).filter(([name]) => wanted.has(name))
    const results: Array<Result> = []

    // The trunk, for every outbound call at once.
    const trunkDir = dir("trunk")
    Audio.write(trunkDir)
    const transferring = wanted.has("transfer")
    const trunk = dialled.length === 0 && !transferring ? undefined : yield* Sipp.start({
      scenario: "trunk.xml",
      dir: trunkDir,
      host: options.trunk.host,
      port: options.trunk.port,
      mediaPort: yield* Sipp.freeUdpPort(options.trunk.host, true),
      calls: dialled.length + (transferring ? 1 : 0),
      timeoutS: waitS + 30,
      transport: options.transport ?? "udp",
      replace: {
        "@USERNAME@": options.credentials?.username ?? "sip-check-no-username",
        "@PASSWORD@": options.credentials?.password ?? "sip-check-no-password"
      }
    })
    // The calls, through the API: the keypad's on a campaign of its own, with an agent that asks.
    const stamp = new Date().toISOString()
    const plain = dialled.filter(([name]) => name !== "dtmf").map(([, number]) => number)
    // Each number's campaign (its id and code): the kit's own, so that earlier runs do not count.
    const campaigns = new Map<string, { readonly id: string; readonly code: string }>()
    if (plain.length > 0) {
      const campaign = yield* Api.campaign(api, `sip-check ${stamp}`, options.owned, plain)
      for (const number of plain) campaigns.set(number, campaign)
    }
    if (wanted.has("dtmf")) {
      const agentId = yield* Api.keypadAgent(api, `sip-check keypad ${stamp}`)
      campaigns.set(
        outbound.dtmf,
        yield* Api.campaign(api, `sip-check keys ${stamp}`, options.owned, [outbound.dtmf], agentId)
      )
    }
    const unique = [...new Map([...campaigns.values()].map((c) => [c.id, c])).values()]
    // The transfer's call, placed by the kit's own agent.
    const transfer = transferring
      ? yield* Effect.forkScoped(Effect.timeoutOption(Transfer.place(api, options.owned), `${waitS} seconds`))
      : undefined

    // The callers, beside it.
    const caller = (scenario: string, number: string, echo: boolean) =>
      Effect.gen(function*() {
        const run = yield* Sipp.start({
          scenario,
          dir: dir(scenario.replace(/\.xml$/, "")),
          host: options.trunk.host,
          port: yield* Sipp.freePort(options.trunk.host),
          mediaPort: yield* Sipp.freeUdpPort(options.trunk.host, true),
          calls: 1,
          transport: options.transport ?? "udp",
          remote: sipTarget,
          timeoutS: 30,
          args: ["-s", number, ...(echo ? ["-rtp_echo"] : [])]
        })
        return { run, exit: yield* run.exited }
      })
    const inbound = wanted.has("inbound")
      ? yield* Effect.forkScoped(caller("inbound.xml", options.owned, true))
      : undefined
    const strangerCall = wanted.has("stranger")
      ? yield* Effect.forkScoped(caller("stranger.xml", stranger, false))
      : undefined
    // The torture, once the calls are up (the person's answer comes 7.5 s in).
    const torture = wanted.has("torture")
      ? yield* Effect.forkScoped(Effect.gen(function*() {
        yield* Effect.sleep("4 seconds")
        const verdicts = yield* Torture.send(options.sip.host, options.sip.port)
        return { verdicts, options: yield* Torture.options(options.sip.host, options.sip.port) }
      }))
      : undefined

    // Outbound: each call's end, from the API.
    const ended = new Map<string, Api.Conversation>()
    const statusesOf = Effect.gen(function*() {
      const all = new Map<string, string>()
      for (const { code } of unique) {
        for (const [number, status] of yield* Api.statuses(api, code)) all.set(number, status)
      }
      return all
    })
    const deadline = Date.now() + waitS * 1000
    while (unique.length > 0 && Date.now() < deadline) {
      const all = (yield* Effect.forEach(unique, ({ id }) => Api.conversations(api, { campaign_id: id }))).flat()
      const statuses = yield* statusesOf
      for (const [, number] of dialled) {
        const conversation = all.find((c) => c.to_number === number && c.termination_reason !== null)
        if (conversation !== undefined && statuses.get(number) !== "TRYING") ended.set(number, conversation)
      }
      if (ended.size === dialled.length) break
      yield* Effect.sleep("500 millis")
    }
    // The transfer's call over too, before the trunk is asked how every call went.
    const transferPlaced = transfer === undefined ? undefined : yield* Effect.result(Fiber.join(transfer))
    const trunkExit = trunk === undefined ? undefined : yield* Effect.timeoutOption(trunk.exited, "20 seconds")
    const traced = trunk === undefined ? [] : Trace.messages(trunk.messages())
    const statuses = yield* statusesOf

    for (const [name, number] of dialled) {
      const call = Trace.ofNumber(traced, number)
      const saw = `the trunk saw: ${call.length === 0 ? "no INVITE" : Trace.summary(call)}`
      const conversation = ended.get(number)
      const outcome = (reason: string, status: string) =>
        conversation === undefined
          ? `the call to ${number} did not end within ${waitS} s (status ${statuses.get(number)}); ${saw}`
          : conversation.termination_reason !== reason || statuses.get(number) !== status
          ? `expected ${status}/${reason}, the engine says ${
            statuses.get(number)
          }/${conversation.termination_reason}; ${saw}`
          : undefined
      switch (name) {
        case "answered": {
          const checked = "outbound call answered (200); the person's speech in RTP transcribed where it was said; " +
            "the agent's audio in the call's recordings; the engine hung up (BYE)"
          const wrong = outcome("bot-hangup", "COMPLETED")
          if (wrong !== undefined) {
            results.push(fail(name, checked, wrong))
            break
          }
          const turns = yield* Api.transcript(api, conversation!.call_id)
          const answer = turns.find((t) => t.speaker === "HUMAN" && t.text === "Yes, I have a moment.")
          const agent = yield* Api.recording(api, conversation!.call_id, "agent")
          const greeting = turns.find((t) => t.speaker === "AGENT")
          if (answer === undefined) {
            results.push(fail(
              name,
              checked,
              `the person's "Yes, I have a moment." is not in the transcript (${JSON.stringify(turns)}): ` +
                "their RTP did not arrive, or the engine's recognizer is not simulated speech (the default)"
            ))
          } else if (Math.abs(answer.offset_ms - Audio.timings.answerAtMs) > 500) {
            results.push(fail(
              name,
              checked,
              `the person's answer is at ${answer.offset_ms} ms, not ${Audio.timings.answerAtMs} ms: the RTP timeline is off`
            ))
          } else if (
            agent === undefined || greeting === undefined ||
            !heard(Wav.decodeSamples(agent.subarray(44)), greeting.offset_ms, greeting.offset_ms + 1000)
          ) {
            results.push(fail(name, checked, "no agent audio in the agent recording where the agent spoke"))
          } else results.push(pass(name, checked))
          break
        }
        case "voicemail": {
          const checked = "outbound call answered by a machine (long greeting, beep): the engine detects it, " +
            "leaves its message, ends voicemail"
          const wrong = outcome("voicemail", "PARTIALLY_COMPLETED")
          results.push(wrong === undefined ? pass(name, checked) : fail(name, checked, wrong))
          break
        }
        case "busy":
        case "no-answer":
        case "failure": {
          const checked = {
            busy: "486 Busy Here after 180: busy, the 486 ACKed",
            "no-answer": "180 and no answer: the engine sends CANCEL at SIP_RING_TIMEOUT_S, ACKs the 487: no-answer",
            failure: "503 Service Unavailable: failed, the 503 ACKed"
          }[name]
          const reason = name === "failure" ? "failed" : name
          const wrong = outcome(reason, "FAILED")
          const protocol = name === "no-answer" && !call.some((m) => m.startLine.startsWith("CANCEL "))
            ? `no CANCEL reached the trunk; ${saw}`
            : !call.some((m) => m.startLine.startsWith("ACK "))
            ? `the final answer was never ACKed; ${saw}`
            : undefined
          results.push(
            wrong === undefined && protocol === undefined
              ? pass(name, checked)
              : fail(name, checked, wrong ?? protocol!)
          )
          break
        }
        case "digest": {
          const checked = "401 with a Digest challenge (MD5, qop=auth): the INVITE sent again with Authorization " +
            "that the trunk verifies, then answered"
          const invites = call.filter((m) => m.startLine.startsWith("INVITE "))
          const authorized = invites.find((m) => /^Authorization:/im.test(m.text))
          if (options.credentials === undefined) {
            results.push(
              fail(name, checked, "the kit has no credentials: give the engine's SIP_USERNAME and SIP_PASSWORD")
            )
          } else if (authorized === undefined) {
            results.push(fail(
              name,
              checked,
              `the challenge was not answered (${invites.length} INVITE); does the engine have SIP_USERNAME and SIP_PASSWORD? ${saw}`
            ))
          } else if (call.some((m) => m.startLine.startsWith("SIP/2.0 403"))) {
            results.push(fail(name, checked, `the trunk found the credentials wrong (403); ${saw}`))
          } else {
            const wrong = outcome("bot-hangup", "COMPLETED")
            results.push(wrong === undefined ? pass(name, checked) : fail(name, checked, wrong))
          }
          break
        }
        case "hold": {
          const checked = "the trunk's re-INVITE with a=sendonly answered 200 with a=recvonly and ACKed; " +
            "the call carried on until the trunk's BYE (user-hangup)"
          const reinviteOk = call.find((m, i) =>
            i > 0 && m.direction === "received" && m.startLine.startsWith("SIP/2.0 200") &&
            /CSeq:\s*101 INVITE/i.test(m.text)
          )
          const wrong = outcome("user-hangup", "PARTIALLY_COMPLETED")
          if (reinviteOk === undefined) results.push(fail(name, checked, `no 200 to the re-INVITE; ${saw}`))
          else if (!/a=recvonly/.test(reinviteOk.text)) {
            results.push(fail(name, checked, `the 200 to the re-INVITE does not say a=recvonly: ${reinviteOk.text}`))
          } else if (wrong !== undefined && conversation?.termination_reason !== "user-hangup") {
            results.push(fail(name, checked, wrong))
          } else results.push(pass(name, checked))
          break
        }
        case "dtmf": {
          const checked = "the person keys in 12# (RFC 4733 telephone-events, payload type 101) when the agent " +
            "asks for a number: the field collected is 12"
          const wrong = outcome("bot-hangup", "COMPLETED")
          const collected = conversation === undefined ? undefined : (yield* Api.fields(api, conversation.call_id))
          results.push(
            collected?.["member_id"] === "12"
              ? pass(name, checked)
              : fail(
                name,
                checked,
                `the member number collected is ${JSON.stringify(collected?.["member_id"])}, not "12"` +
                  (wrong === undefined ? "" : `; ${wrong}`)
              )
          )
          break
        }
      }
    }
    if (transferPlaced !== undefined) {
      const conversation = (yield* Api.conversations(api, {
        from_number: options.owned,
        to_number: Transfer.number,
        date_from: startedAt
      }))[0]
      const why = transferPlaced._tag === "Failure"
        ? transferPlaced.failure.message
        : transferPlaced.success._tag === "None"
        ? `the kit's call did not end within ${waitS} s`
        : Transfer.failure(conversation, Trace.ofNumber(traced, Transfer.number), options.trunk.host)
      results.push(why === undefined ? pass("transfer", Transfer.checked) : fail("transfer", Transfer.checked, why))
    }
    if (trunk !== undefined) {
      const checked = "every outbound call followed the trunk's scenario, as SIPp saw it (its exit code 0)"
      const exit = trunkExit === undefined || trunkExit._tag === "None" ? "still running" : trunkExit.value
      results.push(exit === 0 ? pass("trunk", checked) : fail("trunk", checked, `SIPp: ${exit}\n${trunk.failures()}`))
    }

    if (inbound !== undefined) {
      const checked = `a call to the owned number ${options.owned}: 200 with SDP, ACK, the agent's greeting, ` +
        "its audio echoed back by the caller (the call's remote recording), BYE"
      const { exit, run } = yield* Fiber.join(inbound)
      const saw = `the caller saw: ${Trace.summary(Trace.messages(run.messages()))}`
      const conversation = (yield* Api.conversations(api, {
        from_number: "+12025550999",
        to_number: options.owned,
        date_from: startedAt
      }))[0]
      if (exit !== 0) results.push(fail("inbound", checked, `${saw}\n${run.failures()}`))
      else if (conversation === undefined) {
        results.push(fail("inbound", checked, `no inbound conversation listed; ${saw}`))
      } else {
        const turns = yield* Api.transcript(api, conversation.call_id)
        const greeting = turns.find((t) => t.speaker === "AGENT")
        const remote = yield* Api.recording(api, conversation.call_id, "remote")
        if (greeting === undefined) results.push(fail("inbound", checked, "the agent said nothing (no AGENT turn)"))
        else if (
          remote === undefined ||
          !heard(Wav.decodeSamples(remote.subarray(44)), greeting.offset_ms, greeting.offset_ms + 1000, 100)
        ) {
          results.push(fail("inbound", checked, "the agent's audio did not come back from the caller (no echo)"))
        } else results.push(pass("inbound", checked))
      }
    }
    if (strangerCall !== undefined) {
      const checked = `a call to ${stranger}, which nobody owns: 404, ACKed`
      const { exit, run } = yield* Fiber.join(strangerCall)
      results.push(
        exit === 0
          ? pass("stranger", checked)
          : fail("stranger", checked, `${Trace.summary(Trace.messages(run.messages()))}\n${run.failures()}`)
      )
    }
    if (torture !== undefined) {
      const checked = "RFC 4475's invalid messages over UDP, while calls are up: each a 4xx (505 for a wrong " +
        "version) or dropped; then OPTIONS answered 200"
      const { options: optionsStatus, verdicts } = yield* Fiber.join(torture)
      const wrong = verdicts.filter((v) => !v.ok)
      results.push(
        wrong.length > 0
          ? fail("torture", checked, wrong.map((v) => `${v.name} answered ${v.status}`).join("; "))
          : optionsStatus !== 200
          ? fail("torture", checked, `OPTIONS after them: ${optionsStatus ?? "no answer"}`)
          : pass(
            "torture",
            `${checked} (${verdicts.length} sent: ${verdicts.filter((v) => v.status === undefined).length} dropped, ` +
              `${verdicts.filter((v) => v.status !== undefined).length} answered)`
          )
      )
    }
    return reported.flatMap((name) => results.filter((r) => r.name === name))
  }))

/**
 * The report: a line per check, `PASS` or `FAIL`, what it checked, and why it failed.
 *
 * @category encoding
 */
export const report = (results: ReadonlyArray<Result>): string =>
  results.map((r) =>
    r.failure === undefined
      ? `PASS ${r.name}: ${r.checked}`
      : `FAIL ${r.name}: ${r.checked}\n     why: ${r.failure.replaceAll("\n", "\n          ")}`
  ).join("\n")
