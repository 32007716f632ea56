/**
 * Run: node examples/embed-core/src/main.ts
 */
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { EngineLive, program } from "./program.ts"

program.pipe(
  Effect.flatMap(({ campaign, created, rejected, status }) =>
    Console.log(
      [
        `campaign ${campaign.name} (${campaign.code}), windows ${JSON.stringify(campaign.callingWindows)}`,
        `uploaded ${created} contacts`,
        `second upload rejected: ${JSON.stringify(rejected)}`,
        `status: ${JSON.stringify(status)}`
      ].join("\n")
    )
  ),
  Effect.provide(EngineLive),
  NodeRuntime.runMain
)
