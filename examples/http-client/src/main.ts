/**
 * Run against a daemon (`npm start` prints the key):
 *   VOICE_AGENT_URL=http://127.0.0.1:8080 VOICE_AGENT_API_KEY=va_... node examples/http-client/src/main.ts
 */
import { NodeRuntime } from "@effect/platform-node"
import { Config, Console, Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { program } from "./program.ts"

Effect.gen(function*() {
  const baseUrl = yield* Config.String("VOICE_AGENT_URL").pipe(Config.withDefault("http://127.0.0.1:8080"))
  const apiKey = yield* Config.String("VOICE_AGENT_API_KEY")
  const { campaign, page, status, uploaded } = yield* program({ apiKey, baseUrl })
  yield* Console.log(
    `created ${campaign.campaign_code} (${campaign.name})${campaign.warning ? `: ${campaign.warning}` : ""}`
  )
  yield* Console.log(`uploaded ${uploaded.created} contacts; status ${JSON.stringify(status.status_counts)}`)
  yield* Console.log(`newest contact ${JSON.stringify(page.contacts[0])}; more: ${page.has_more}`)
}).pipe(Effect.provide(FetchHttpClient.layer), NodeRuntime.runMain)
