import { assert, describe, it } from "@effect/vitest"
import { ending, standIn } from "./CallProgress.ts"

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
