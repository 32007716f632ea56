/**
 * Run: node examples/embed-engine/src/main.ts [recordings directory]
 */
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { EngineLive, program } from "./program.ts"

const dir = process.argv[2] ?? fs.mkdtempSync(path.join(os.tmpdir(), "embed-engine-"))

program.pipe(
  Effect.flatMap(({ callId, conversation, recordingBytes, transcript }) =>
    Console.log(
      [
        `call ${callId}: ${conversation.terminationReason}, ${transcript.length} turns`,
        ...transcript.map((turn) => `  ${turn.speaker}: ${turn.text}`),
        `recordings in ${path.join(dir, callId)} (mixed: ${recordingBytes} bytes)`
      ].join("\n")
    )
  ),
  Effect.provide(EngineLive(dir)),
  NodeRuntime.runMain
)
