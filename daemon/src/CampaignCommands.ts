/**
 * `voice-agent campaigns list|show|pause|resume|delete` (docs/CLI.md): HTTP clients of the
 * campaign endpoints. `--json` prints the API's JSON (for `show`, `{campaign, status_counts}`);
 * otherwise a table or `label  value` lines (`show` adds the campaign's turn latency).
 *
 * `delete` deletes only with `--yes`. Without it, on a terminal it asks (and a "no" leaves
 * everything as it was, exit 1); otherwise it refuses as a usage error (exit 2).
 *
 * @since 0.1.0
 */
import { DayNames } from "@voice-agent/core/CallingWindow"
import type { Campaign, CampaignStatusCounts } from "@voice-agent/core/Campaign"
import type { CampaignLatency } from "@voice-agent/core/TurnLatency"
import { Console, Effect, Stdio, Terminal } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as ApiClient from "./ApiClient.ts"
import * as Failures from "./Failures.ts"
import * as Stderr from "./Stderr.ts"
import * as TextTable from "./TextTable.ts"

const codeArgument = Argument.String("code").pipe(Argument.withDescription("The campaign's code (gcmp-...)"))

const state = (campaign: Campaign) => (campaign.enabled ? "active" : "paused")

const dayName = (day: number) => {
  const name = DayNames[day] ?? String(day)
  return name.charAt(0).toUpperCase() + name.slice(1, 3)
}

const windows = (campaign: Campaign) =>
  campaign.calling_windows.map((w) => `${dayName(w.day)} ${w.start_time}-${w.end_time}`).join(", ")

const counts = (status: CampaignStatusCounts) =>
  TextTable.table(
    ["TRYING", "COMPLETED", "PARTIALLY_COMPLETED", "FAILED"],
    [[status.TRYING, status.COMPLETED, status.PARTIALLY_COMPLETED, status.FAILED].map(String)]
  )

const plural = (n: number, one: string, many: string) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`

const ms = (value: number | null) => (value === null ? "" : `${value.toLocaleString("en-US")} ms`)

const latency = ({ calls, summary }: typeof CampaignLatency.Type) => {
  if (summary.count === 0) return "Turn latency: no agent reply yet"
  const over = `${plural(summary.count, "reply", "replies")} in ${plural(calls, "call", "calls")}`
  const figures = [summary.p50_ms, summary.p90_ms, summary.max_ms].map(ms)
  return `Turn latency (voice to voice, ${over})\n${TextTable.table(["P50", "P90", "MAX"], [figures])}`
}

const describeCampaign = (campaign: Campaign) =>
  TextTable.fields([
    ["Code", campaign.campaign_code],
    ["Name", campaign.name],
    ["State", state(campaign)],
    ["Origin numbers", campaign.origin_phone_numbers.join(", ")],
    ["Dates", `${campaign.start_date} to ${campaign.end_date ?? "(no end)"}`],
    ["Calling windows", `${windows(campaign)} (${campaign.timezone})`],
    ["Attempts", `at most ${campaign.max_attempts}, ${campaign.retry_delay_s} s apart`],
    ["Max concurrency", String(campaign.max_concurrency)],
    ["Description", campaign.description ?? ""],
    ["Created", campaign.created_datetime],
    ["Id", campaign.id]
  ])

const list = Command.make(
  "list",
  { ...ApiClient.connectionFlags, json: ApiClient.jsonFlag },
  Effect.fn("cli.campaigns.list")(function*(input) {
    const campaigns = yield* ApiClient.withClient(input, ({ client }) => client.campaigns.list())
    if (input.json) return yield* Console.log(JSON.stringify(campaigns))
    if (campaigns.length === 0) return yield* Console.error("No campaigns")
    yield* Console.log(TextTable.table(
      ["CODE", "NAME", "STATE", "START", "END", "TIMEZONE", "CONCURRENCY"],
      campaigns.map((c) => [
        c.campaign_code,
        c.name,
        state(c),
        c.start_date,
        c.end_date ?? "",
        c.timezone,
        String(c.max_concurrency)
      ])
    ))
  })
).pipe(Command.withDescription("List the organization's campaigns"))

const show = Command.make(
  "show",
  { ...ApiClient.connectionFlags, json: ApiClient.jsonFlag, code: codeArgument },
  Effect.fn("cli.campaigns.show")(function*(input) {
    const params = { campaign_code: input.code }
    const { campaign, status, turns } = yield* ApiClient.withClient(input, ({ client }) =>
      Effect.all({
        campaign: client.campaigns.get({ params }),
        status: client.campaigns.status({ params }),
        turns: input.json ? Effect.succeed(undefined) : client.campaigns.latency({ params })
      }, { concurrency: 3 }))
    if (input.json || turns === undefined) {
      return yield* Console.log(JSON.stringify({ campaign, status_counts: status.status_counts }))
    }
    yield* Console.log(
      `${describeCampaign(campaign)}\n\nContacts\n${counts(status.status_counts)}\n\n${latency(turns)}`
    )
  })
).pipe(Command.withDescription("Show a campaign, its contacts' status counts and its turn latency"))

const setEnabled = (name: "pause" | "resume", enabled: boolean) =>
  Command.make(
    name,
    { ...ApiClient.connectionFlags, json: ApiClient.jsonFlag, code: codeArgument },
    Effect.fn(`cli.campaigns.${name}`)(function*(input) {
      const campaign = yield* ApiClient.withClient(input, ({ client }) =>
        client.campaigns.update({ params: { campaign_code: input.code }, payload: { enabled } }))
      if (input.json) {
        return yield* Console.log(JSON.stringify(campaign))
      }
      yield* Console.log(`${enabled ? "Resumed" : "Paused"} ${campaign.campaign_code} (${campaign.name})`)
    })
  ).pipe(
    Command.withDescription(
      enabled ? "Resume a paused campaign: it dials again" : "Pause a campaign: no new calls until it is resumed"
    )
  )

/** Asks on the terminal; true only for an answer starting with y. */
const confirm = (question: string) =>
  Effect.gen(function*() {
    const stdio = yield* Stdio.Stdio
    const interactive = (yield* stdio.stdinIsTerminal) && (yield* stdio.stderrIsTerminal)
    if (!interactive) {
      return yield* Effect.fail(
        Failures.usageError("Refusing to delete without --yes (standard input is not a terminal to ask on)")
      )
    }
    yield* (yield* Stderr.writer)(`${question} [y/N] `)
    const answer = yield* Effect.orElseSucceed((yield* Terminal.Terminal).readLine, () => "")
    return /^\s*y/i.test(answer)
  })

const remove = Command.make(
  "delete",
  {
    ...ApiClient.connectionFlags,
    json: ApiClient.jsonFlag,
    yes: Flag.Boolean("yes").pipe(Flag.withDescription("Delete without asking"), Flag.withDefault(false)),
    code: codeArgument
  },
  Effect.fn("cli.campaigns.delete")(function*(input) {
    const params = { campaign_code: input.code }
    const deleted = yield* ApiClient.withClient(input, ({ client }) =>
      Effect.gen(function*() {
        if (!input.yes) {
          // Named in the question, and a code that does not exist is refused before asking.
          const campaign = yield* client.campaigns.get({ params })
          const agreed = yield* confirm(`Delete campaign ${campaign.campaign_code} (${campaign.name})?`)
          if (!agreed) return yield* Effect.fail(Failures.userError("Nothing deleted"))
        }
        return yield* client.campaigns.delete({ params })
      }))
    if (input.json) return yield* Console.log(JSON.stringify(deleted))
    yield* Console.log(`Deleted ${input.code}`)
  })
).pipe(Command.withDescription("Delete a campaign (no more calls; it leaves the list). Needs --yes"))

/**
 * `campaigns` with its subcommands.
 *
 * @category constructors
 */
export const command = Command.make("campaigns").pipe(
  Command.withDescription("Outbound campaigns, through the HTTP API of a running daemon"),
  Command.withSubcommands([list, show, setEnabled("pause", false), setEnabled("resume", true), remove])
)
