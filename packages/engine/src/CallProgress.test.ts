import { assert, describe, it } from "@effect/vitest"
import { ending, isSettled, isTransferred, noProgress, observe, standIn } from "./CallProgress.ts"

const answeredAt = 10_000
const human = { at: answeredAt, by: "human" } as const
const machine = { at: answeredAt, by: "machine" } as const

describe("ending", () => {
  it("a call never answered ends as the carrier says", () => {
    for (const reason of ["busy", "no-answer", "failed"] as const) {
      assert.deepStrictEqual(ending(null, reason, 5_000, null), { outcome: reason, endedBy: "remote" })
    }
    assert.deepStrictEqual(ending(null, "remote-hangup", 5_000, null), { outcome: "no-answer", endedBy: "remote" })
    assert.deepStrictEqual(ending(null, "local-hangup", 70_000, "timeout"), { outcome: "no-answer", endedBy: "agent" })
  })

  it("the person hanging up after the stand-in's script is completed, before it cut short", () => {
    const end = answeredAt + standIn.scriptMs
    assert.deepStrictEqual(ending(human, "remote-hangup", end, null), { outcome: "completed", endedBy: "remote" })
    assert.deepStrictEqual(ending(human, "remote-hangup", end - 1, null), { outcome: "cut-short", endedBy: "remote" })
  })

  it("our hang-up after the script is completed by the agent; for a timeout or a shutdown, agent-failure", () => {
    const at = answeredAt + standIn.hangUpAfterMs
    assert.deepStrictEqual(ending(human, "local-hangup", at, "script-done"), { outcome: "completed", endedBy: "agent" })
    assert.deepStrictEqual(ending(human, "local-hangup", at, "timeout"), { outcome: "agent-failure", endedBy: "agent" })
    assert.deepStrictEqual(ending(human, "local-hangup", at, "stopping"), {
      outcome: "agent-failure",
      endedBy: "agent"
    })
    assert.deepStrictEqual(ending(null, "local-hangup", at, "stopping"), { outcome: "agent-failure", endedBy: "agent" })
  })

  it("an answering machine is voicemail, whoever hangs up", () => {
    assert.deepStrictEqual(ending(machine, "local-hangup", answeredAt, "machine"), {
      outcome: "voicemail",
      endedBy: "agent"
    })
    assert.deepStrictEqual(ending(machine, "remote-hangup", answeredAt + 30_000, null), {
      outcome: "voicemail",
      endedBy: "remote"
    })
  })
})

describe("isSettled", () => {
  const ended = { _tag: "Ended", at: 20_000, reason: "remote-hangup" } as const
  const verdict = { _tag: "AgentEnded", at: 19_000, outcome: "completed", endedBy: "remote" } as const
  const answered = observe(noProgress, { _tag: "Answered", at: answeredAt, answeredBy: "human" })

  it("a call never answered is settled by the carrier's end alone", () => {
    assert.isFalse(isSettled(noProgress, true))
    assert.isTrue(isSettled(observe(noProgress, ended), true))
  })

  it("an answered call awaits the agent's verdict with it, the stand-in's does not", () => {
    assert.isFalse(isSettled(observe(answered, ended), true))
    assert.isTrue(isSettled(observe(answered, ended), false))
    assert.isFalse(isSettled(observe(answered, verdict), true))
    assert.isTrue(isSettled(observe(observe(answered, verdict), ended), true))
  })

  it("a transferred call is settled by its verdict alone: its carrier end comes when the transfer's call does", () => {
    const moved = observe(answered, { _tag: "AgentEnded", at: 19_000, outcome: "transfer", endedBy: "agent" })
    assert.isTrue(isTransferred(moved))
    assert.isFalse(isTransferred(observe(answered, verdict)))
    assert.isTrue(isSettled(moved, true))
    assert.deepStrictEqual(ending(human, "local-hangup", 19_000, null, standIn, moved.verdict), {
      outcome: "transfer",
      endedBy: "agent"
    })
  })

  it("when the carrier need not report the end (inbound), the verdict alone settles it", () => {
    assert.isFalse(isSettled(answered, true, false))
    assert.isTrue(isSettled(observe(answered, verdict), true, false))
    assert.deepStrictEqual(observe(answered, verdict).verdict, { outcome: "completed", endedBy: "remote", at: 19_000 })
  })
})
