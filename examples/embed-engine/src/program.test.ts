import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { EngineLive, program } from "./program.ts"

/** What sox reads in a WAV file's header (`soxi`): its rate, channels and encoding. */
const soxi = (file: string) => execFileSync("soxi", [file], { encoding: "utf8" })

describe("embed-engine example", () => {
  it.live("places a call on the simulated carrier, follows it to its end, and records it", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "embed-engine-"))
    return Effect.gen(function*() {
      const { callId, conversation, recordingBytes, transcript } = yield* program
      assert.strictEqual(conversation.direction, "outbound")
      assert.isNotNull(conversation.answeredAt)
      assert.isNotNull(conversation.endedAt)
      assert.isAbove(transcript.length, 0)
      assert.isAbove(recordingBytes, 44)
      for (const channel of ["agent", "remote"]) {
        const file = path.join(dir, callId, `${channel}.wav`)
        assert.isTrue(fs.existsSync(file), file)
        const header = soxi(file)
        assert.match(header, /Sample Rate\s*:\s*8000/)
        assert.match(header, /Channels\s*:\s*1/)
      }
    }).pipe(
      Effect.provide(EngineLive(dir)),
      Effect.ensuring(Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
    )
  }, { timeout: 120_000 })
})
