/**
 * `voice-agent calls list|show|recording` (docs/CLI.md): HTTP clients of the conversation
 * endpoints.
 *
 * - `list [--campaign CODE] [--limit N]`: one page, newest first, as the API answers it. The
 *   conversation list filters by the campaign's internal id, so a code is looked up first.
 * - `show CALL_ID`: the record and its transcript (`--json`: `{conversation, transcript}`).
 * - `recording CALL_ID [--channel agent|remote|mixed] --out FILE`: the WAV as served, streamed
 *   to FILE (without `--channel`, the plain recording). FILE is written only once the API has
 *   answered 200, and removed again if the transfer breaks off.
 *
 * @since 0.1.0
 */
import type { Conversation } from "@voice-agent/core/Conversation"
import { Console, Effect, FileSystem, Option, Stream } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { HttpClient } from "effect/http"
import * as ApiClient from "./ApiClient.ts"
import * as Failures from "./Failures.ts"
import * as TextTable from "./TextTable.ts"

const callIdArgument = Argument.String("call-id").pipe(Argument.withDescription("The call's id (call_id)"))

const duration = (c: Conversation) => (c.duration_sec === null ? "" : `${c.duration_sec} s`)

const list = Command.make(
  "list",
  {
    ...ApiClient.connectionFlags,
    json: ApiClient.jsonFlag,
    campaign: Flag.String("campaign").pipe(
      Flag.withDescription("Only calls placed by this campaign (its code)"),
      Flag.optional
    ),
    limit: Flag.Int("limit").pipe(
      Flag.withDescription("Calls in the page, 1 to 100 (the API's default: 50)"),
      Flag.optional
    )
  },
  Effect.fn("cli.calls.list")(function*(input) {
    const page = yield* ApiClient.withClient(input, ({ client }) =>
      Effect.gen(function*() {
        const campaignId = yield* Option.match(input.campaign, {
          onNone: () => Effect.succeed(undefined),
          onSome: (code) =>
            Effect.map(client.campaigns.get({ params: { campaign_code: code } }), (campaign) => campaign.id)
        })
        return yield* client.conversations.list({
          query: {
            ...(campaignId === undefined ? {} : { campaign_id: campaignId }),
            ...Option.match(input.limit, { onNone: () => ({}), onSome: (limit) => ({ limit: String(limit) }) })
          }
        })
      }))
    if (input.json) return yield* Console.log(JSON.stringify(page))
    if (page.conversations.length === 0) return yield* Console.error("No calls")
    yield* Console.log(TextTable.table(
      ["CALL_ID", "TIME", "DIRECTION", "FROM", "TO", "DURATION", "TERMINATION"],
      page.conversations.map((c) => [
        c.call_id,
        c.ts,
        c.direction,
        c.from_number,
        c.to_number,
        duration(c),
        c.termination_reason ?? (c.duration_sec === null ? "(in progress)" : "")
      ])
    ))
    if (page.has_more) yield* Console.error("More calls match: raise --limit (up to 100) or use the API's paging")
  })
).pipe(Command.withDescription("List calls, newest first (one page)"))

const clock = (ms: number) => {
  const seconds = Math.floor(ms / 1000)
  return `${String(Math.floor(seconds / 60)).padStart(2, "0")}:${String(seconds % 60).padStart(2, "0")}.${
    Math.floor((ms % 1000) / 100)
  }`
}

const show = Command.make(
  "show",
  { ...ApiClient.connectionFlags, json: ApiClient.jsonFlag, callId: callIdArgument },
  Effect.fn("cli.calls.show")(function*(input) {
    const params = { call_id: input.callId }
    const { conversation, transcript } = yield* ApiClient.withClient(input, ({ client }) =>
      Effect.all({
        conversation: client.conversations.get({ params }),
        transcript: client.conversations.transcript({ params })
      }, { concurrency: 2 }))
    if (input.json) return yield* Console.log(JSON.stringify({ conversation, transcript }))
    const record = TextTable.fields([
      ["Call", conversation.call_id],
      ["Time", conversation.ts],
      ["Direction", conversation.direction],
      ["From", conversation.from_number],
      ["To", conversation.to_number],
      ["Duration", duration(conversation) || "(in progress)"],
      ["Termination", conversation.termination_reason ?? ""],
      ["Campaign id", conversation.campaign_id ?? ""],
      ["Id", conversation.id]
    ])
    const turns = transcript.length === 0
      ? "(no transcript)"
      : transcript.map((turn) => `[${clock(turn.offset_ms)}] ${turn.speaker}: ${turn.text}`).join("\n")
    yield* Console.log(`${record}\n\nTranscript\n${turns}`)
  })
).pipe(Command.withDescription("Show a call's record and transcript"))

const recording = Command.make(
  "recording",
  {
    ...ApiClient.connectionFlags,
    channel: Flag.Literals("channel", ["agent", "remote", "mixed"]).pipe(
      Flag.withDescription("One side (agent, remote) or both (mixed); without it, the plain recording"),
      Flag.optional
    ),
    out: Flag.String("out").pipe(Flag.withDescription("The WAV file to write")),
    callId: callIdArgument
  },
  Effect.fn("cli.calls.recording")(function*(input) {
    const fs = yield* FileSystem.FileSystem
    const bytes = yield* ApiClient.withClient(input, ({ http, urls }) =>
      Effect.gen(function*() {
        const url = Option.match(input.channel, {
          onNone: () => urls.conversations.recording({ params: { call_id: input.callId } }),
          onSome: (channel) =>
            urls.conversations.channelRecording({ params: { call_id: input.callId, channel_name: channel } })
        })
        // Anything but 200 fails here, before FILE is opened, with the API's detail.
        const response = yield* HttpClient.filterStatusOk(http).get(url)
        let written = 0
        yield* response.stream.pipe(
          Stream.tap((chunk) => Effect.sync(() => void (written += chunk.length))),
          Stream.run(fs.sink(input.out)),
          Effect.onError(() => Effect.ignore(fs.remove(input.out))),
          Effect.catchTag("PlatformError", (error) =>
            Effect.fail(Failures.userError(`Cannot write ${input.out}: ${Failures.fileProblem(error)}`)))
        )
        return written
      }))
    yield* Console.error(`Wrote ${bytes.toLocaleString("en-US")} bytes to ${input.out}`)
  })
).pipe(Command.withDescription("Download a call's recording (WAV) to a file"))

/**
 * `calls` with its subcommands.
 *
 * @category constructors
 */
export const command = Command.make("calls").pipe(
  Command.withDescription("Calls (conversation records), through the HTTP API of a running daemon"),
  Command.withSubcommands([list, show, recording])
)
