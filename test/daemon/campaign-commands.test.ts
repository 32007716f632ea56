/**
 * The campaign commands of `voice-agent` (docs/CLI.md) as a user runs them against a daemon on
 * the simulated carrier: `contacts upload` of large files (batches, the progress bar on a real
 * pseudo-terminal, plain lines when piped, files and batches refused), `campaigns ...` and
 * `calls ...`, their exit codes, and `--json` output that is the API's JSON and nothing else.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Daemon from "../support/Daemon.ts"

const origin = "+12025550100"

const postgres = (await TestDatabase.backends()).find((backend) => backend.name === "postgres")!

/** The daemon's storage per backend (serveWithOrganization keeps its data in memory unless DATABASE_URL is set). */
const storages = [
  { name: "the embedded database", skip: undefined, env: Effect.succeed({}) },
  {
    name: "PostgreSQL",
    skip: postgres.skip,
    env: Effect.map(TestDatabase.freshDatabaseUrl("voice_agent_cli"), (url) => ({ DATABASE_URL: url }))
  }
] as const

const parseJson = (text: string): unknown => JSON.parse(text)

/** A CSV of `rows` contacts with distinct numbers, `+1 303 2xx xxxx`, and `override(row)` where given. */
const csvFile = (
  dir: string,
  name: string,
  rows: number,
  override: (row: number) => string | undefined = () => undefined
) => {
  const lines = ["phone_number,name,plan"]
  for (let row = 1; row <= rows; row++) {
    lines.push(override(row) ?? `+1303${2_000_000 + row},Person ${row},"gold, yearly"`)
  }
  const file = path.join(dir, name)
  fs.writeFileSync(file, lines.join("\r\n") + "\r\n")
  return file
}

interface Organization {
  readonly url: string
  readonly key: string
  readonly adminPost: (path: string, body: unknown) => Effect.Effect<{ status: number; body: unknown }>
  readonly organizationId: string
}

/** A campaign that never dials (it starts in 2099), so its contacts stay as uploaded. */
const idleCampaign = (org: Organization, name: string) =>
  Effect.gen(function*() {
    const created = yield* Daemon.request(
      `${org.url}/v2/campaigns`,
      Daemon.postJson(org.key, {
        name,
        origin_phone_numbers: [origin],
        start_date: "2099-01-01",
        calling_windows: [{ day: 0, start_time: "09:00", end_time: "17:00" }]
      })
    )
    assert.strictEqual(created.status, 201, JSON.stringify(created.body))
    return (created.body as { campaign_code: string }).campaign_code
  })

const statusCounts = (org: Organization, code: string) =>
  Effect.map(
    Daemon.request(`${org.url}/v2/campaigns/${code}/status`, Daemon.bearer(org.key)),
    (answer) => (answer.body as { status_counts: Record<string, number> }).status_counts
  )

const counts = (trying: number) => ({ TRYING: trying, COMPLETED: 0, PARTIALLY_COMPLETED: 0, FAILED: 0 })

describe("voice-agent contacts upload", () => {
  for (const { env: storage, name, skip } of storages) {
    describe.skipIf(skip !== undefined)(`on ${name}`, () => {
      it.live(
        "25,000 rows in 3 batches (plain lines piped, a bar on a terminal); a bad row sends nothing; a refused batch names its rows and what was created",
        () =>
          Effect.gen(function*() {
            const served = yield* Daemon.serveWithOrganization("cli-upload", origin, yield* storage)
            const org = { ...served, url: served.daemon.url }
            const connection = { VOICE_AGENT_URL: org.url, VOICE_AGENT_API_KEY: org.key }
            const dir = yield* Daemon.tempDir

            // Piped: plain lines on standard error (no carriage return), the JSON alone on standard output.
            const big = csvFile(dir, "leads.csv", 25_000)
            const piped = yield* idleCampaign(org, "piped")
            const upload = yield* Daemon.cli(["contacts", "upload", piped, big, "--accept-terms", "--json"], connection)
            assert.strictEqual(upload.code, 0, upload.stderr)
            assert.deepStrictEqual(parseJson(upload.stdout), { created: 25_000, batches: 3 })
            assert.notInclude(upload.stderr, "\r")
            assert.include(upload.stderr, "batch 1/3 created: 10,000/25,000 contacts\n")
            assert.include(upload.stderr, "batch 2/3 created: 20,000/25,000 contacts\n")
            assert.include(upload.stderr, "batch 3/3 created: 25,000/25,000 contacts\n")
            assert.deepStrictEqual(yield* statusCounts(org, piped), counts(25_000))

            // On a terminal: the bar is redrawn in place and reaches 100%.
            const onTerminal = yield* idleCampaign(org, "terminal")
            const drawn = yield* Daemon.cliOnTerminal(
              ["contacts", "upload", onTerminal, big, "--accept-terms"],
              connection
            )
            assert.strictEqual(drawn.code, 0, drawn.stdout)
            const redraws = drawn.stdout.split("\r[").slice(1)
            assert.deepStrictEqual(redraws.map((line) => /\] (\d+)%/.exec(line)?.[1]), ["0", "40", "80", "100"])
            assert.include(drawn.stdout, "3/3 batches  25,000/25,000 contacts")
            assert.include(drawn.stdout, `Created 25,000 contacts in ${onTerminal} (3 batches)`)
            assert.notInclude(drawn.stdout, "batch 1/3 created")
            assert.deepStrictEqual(yield* statusCounts(org, onTerminal), counts(25_000))

            // One bad row: refused before anything is sent, the row named.
            const badRow = csvFile(dir, "bad.csv", 300, (row) => (row === 121 ? "202-555-01,Bad,gold" : undefined))
            const refusedFile = yield* idleCampaign(org, "bad row")
            const bad = yield* Daemon.cli(["contacts", "upload", refusedFile, badRow, "--accept-terms"], connection)
            assert.strictEqual(bad.code, 1)
            assert.strictEqual(bad.stdout, "")
            assert.include(bad.stderr, "1 row of 300 refused; nothing was sent")
            assert.include(bad.stderr, "row 121: \"202-555-01\" invalid_phone_number")
            assert.deepStrictEqual(yield* statusCounts(org, refusedFile), counts(0))

            // A number on the Do-Not-Call list in the second batch: the first batch stays created, and
            // the output names the refused row, the batch, and what was created before it.
            const listed = "+13032012345"
            const dnc = yield* org.adminPost(`organizations/${org.organizationId}/dnc`, { phone_numbers: [listed] })
            assert.strictEqual(dnc.status, 200)
            const withListed = csvFile(
              dir,
              "dnc.csv",
              15_000,
              (row) => (row === 12_345 ? `${listed},Listed,gold` : undefined)
            )
            const refusedBatch = yield* idleCampaign(org, "dnc")
            const stopped = yield* Daemon.cli([
              "contacts",
              "upload",
              refusedBatch,
              withListed,
              "--accept-terms",
              "--json"
            ], connection)
            assert.strictEqual(stopped.code, 1)
            assert.strictEqual(stopped.stdout, "")
            assert.include(stopped.stderr, "batch 1/2 created: 10,000/15,000 contacts\n")
            assert.include(
              stopped.stderr,
              "Batch 2 of 2 (rows 10001-15000) was refused: 1 contact rejected, none of the batch created."
            )
            assert.include(stopped.stderr, `row 12345: ${listed} do_not_call`)
            assert.include(stopped.stderr, "Created before it: 1 batch, 10,000 contacts (rows 1-10000).")
            assert.deepStrictEqual(yield* statusCounts(org, refusedBatch), counts(10_000))

            // Without --accept-terms: a usage error, nothing sent.
            const noTerms = yield* Daemon.cli(["contacts", "upload", refusedFile, badRow], connection)
            assert.strictEqual(noTerms.code, 2)
            assert.include(noTerms.stderr, "--accept-terms")
            assert.deepStrictEqual(yield* statusCounts(org, refusedFile), counts(0))
          }),
        { timeout: 300_000 }
      )
    })
  }
})

describe("voice-agent campaigns and calls", () => {
  it.live(
    "list, show, pause, resume and delete campaigns; list and show calls and download their recordings; exit codes",
    () =>
      Effect.gen(function*() {
        const served = yield* Daemon.serveWithOrganization("cli-ops", origin)
        const org = { ...served, url: served.daemon.url }
        const connection = { VOICE_AGENT_URL: org.url, VOICE_AGENT_API_KEY: org.key }
        const run = (...args: Array<string>) => Daemon.cli(args, connection)
        const api = (pathname: string) =>
          Effect.map(Daemon.request(`${org.url}${pathname}`, Daemon.bearer(org.key)), (answer) => answer.body)
        const dir = yield* Daemon.tempDir

        // A call that completes on the simulated carrier (its person talks, then hangs up).
        const code = yield* Daemon.campaignWithContacts(org.url, org.key, "talks", [{ phone_number: "+12025550101" }])
        yield* served.daemon.waitFor(/to \+12025550101 ended:/).pipe(Effect.timeout("60 seconds"))

        // campaigns list and show: --json is the API's JSON, nothing else on standard output.
        const listed = yield* run("campaigns", "list", "--json")
        assert.strictEqual(listed.code, 0, listed.stderr)
        assert.deepStrictEqual(parseJson(listed.stdout), yield* api("/v2/campaigns"))
        const table = yield* run("campaigns", "list")
        assert.match(table.stdout, /^CODE +NAME +STATE/)
        assert.match(table.stdout, new RegExp(`${code} +talks +active`))
        const shown = yield* run("campaigns", "show", code, "--json")
        assert.deepStrictEqual(parseJson(shown.stdout), {
          campaign: yield* api(`/v2/campaigns/${code}`),
          status_counts: { TRYING: 0, COMPLETED: 1, PARTIALLY_COMPLETED: 0, FAILED: 0 }
        })
        // The human form adds the campaign's turn latency, as GET .../latency answers it (the
        // call's one reply to the person).
        const described = (yield* run("campaigns", "show", code)).stdout
        assert.include(described, "Calling windows  Mon 00:00-24:00")
        const turns = (yield* api(`/v2/campaigns/${code}/latency`)) as {
          summary: { count: number; p50_ms: number; p90_ms: number; max_ms: number }
          calls: number
        }
        assert.deepStrictEqual([turns.summary.count, turns.calls], [1, 1])
        const [p50, p90, max] = [turns.summary.p50_ms, turns.summary.p90_ms, turns.summary.max_ms]
          .map((ms) => `${ms.toLocaleString("en-US")} ms`)
        assert.match(
          described,
          new RegExp(
            `\n\nTurn latency \\(voice to voice, 1 reply in 1 call\\)\nP50 +P90 +MAX\n${p50} +${p90} +${max}\n$`
          )
        )

        // pause and resume answer the updated campaign.
        const paused = yield* run("campaigns", "pause", code, "--json")
        assert.strictEqual((parseJson(paused.stdout) as { enabled: boolean }).enabled, false)
        assert.strictEqual(((yield* api(`/v2/campaigns/${code}`)) as { enabled: boolean }).enabled, false)
        const resumed = yield* run("campaigns", "resume", code)
        assert.strictEqual(resumed.stdout, `Resumed ${code} (talks)\n`)
        assert.strictEqual(((yield* api(`/v2/campaigns/${code}`)) as { enabled: boolean }).enabled, true)

        // calls list, filtered by the campaign's code; show; recordings as served.
        const calls = yield* run("calls", "list", "--campaign", code, "--limit", "10", "--json")
        assert.strictEqual(calls.code, 0, calls.stderr)
        const page = parseJson(calls.stdout) as {
          conversations: ReadonlyArray<{ call_id: string; campaign_id: string }>
        }
        const campaignId = ((yield* api(`/v2/campaigns/${code}`)) as { id: string }).id
        assert.deepStrictEqual(page, yield* api(`/v1/conversations?campaign_id=${campaignId}&limit=10`))
        assert.strictEqual(page.conversations.length, 1)
        const callId = page.conversations[0]!.call_id
        assert.match(
          (yield* run("calls", "list")).stdout,
          new RegExp(`${callId} .* outbound +\\${origin} +\\+12025550101 +\\d+ s +user-hangup`)
        )
        const detail = yield* run("calls", "show", callId, "--json")
        assert.deepStrictEqual(parseJson(detail.stdout), {
          conversation: yield* api(`/v1/conversations/${callId}`),
          transcript: yield* api(`/v1/conversations/${callId}/transcript`)
        })
        const human = yield* run("calls", "show", callId)
        assert.match(human.stdout, /\[00:00\.\d\] AGENT: /)
        assert.match(human.stdout, /\] HUMAN: /)

        yield* Effect.forEach(
          [undefined, "agent", "remote", "mixed"],
          (channel) =>
            Effect.gen(function*() {
              const out = path.join(dir, `${channel ?? "plain"}.wav`)
              const saved = yield* run(
                "calls",
                "recording",
                callId,
                ...(channel ? ["--channel", channel] : []),
                "--out",
                out
              )
              assert.strictEqual(saved.code, 0, saved.stderr)
              assert.strictEqual(saved.stdout, "")
              const served = yield* Effect.promise(() =>
                fetch(`${org.url}/v1/conversations/${callId}/${channel ? `channels/${channel}/` : ""}recording`, {
                  headers: { authorization: `Bearer ${org.key}` }
                }).then((response) => response.arrayBuffer())
              )
              assert.deepStrictEqual(fs.readFileSync(out), Buffer.from(served), channel)
              const info = spawnSync("sox", ["--i", out], { encoding: "utf8" })
              assert.strictEqual(info.status, 0, info.stderr)
              assert.match(info.stdout, /Sample Rate +: 8000/)
              assert.match(info.stdout, /Precision +: 16-bit/)
            }),
          { concurrency: 2 }
        )
        const missing = path.join(dir, "missing.wav")
        const noCall = yield* run("calls", "recording", "no-such-call", "--out", missing)
        assert.strictEqual(noCall.code, 1)
        assert.include(noCall.stderr, "not found")
        assert.isFalse(fs.existsSync(missing), "nothing written for a refused download")

        // delete: refused without --yes when not on a terminal; asked on one ("n" keeps it); done with --yes.
        const refused = yield* run("campaigns", "delete", code)
        assert.strictEqual(refused.code, 2)
        assert.include(refused.stderr, "--yes")
        const declined = yield* Daemon.cliOnTerminal(["campaigns", "delete", code], connection, "n\n")
        assert.strictEqual(declined.code, 1)
        assert.include(declined.stdout, `Delete campaign ${code} (talks)? [y/N]`)
        assert.include(declined.stdout, "Nothing deleted")
        assert.strictEqual(((yield* api("/v2/campaigns")) as ReadonlyArray<unknown>).length, 1)
        const deleted = yield* run("campaigns", "delete", code, "--yes", "--json")
        assert.deepStrictEqual(parseJson(deleted.stdout), { ok: true })
        assert.deepStrictEqual(yield* api("/v2/campaigns"), [])

        // Exit codes: 1 when the API refuses (its detail on standard error) or cannot be reached, 2 on
        // a usage error (with the command's help on standard error, nothing on standard output).
        // Independent runs go side by side: each command costs a node start (4 s on a loaded machine).
        const unreachableUrl = "http://127.0.0.1:1"
        const refusals = yield* Effect.all({
          unknown: run("campaigns", "show", code, "--json"),
          wrongKey: Daemon.cli(["campaigns", "list", "--json", "--key", "va_wrong"], connection),
          flagWins: Daemon.cli(["campaigns", "list", "--url", org.url, "--key", org.key], {
            VOICE_AGENT_URL: unreachableUrl,
            VOICE_AGENT_API_KEY: "va_wrong"
          }),
          unreachable: Daemon.cli(["calls", "list"], { ...connection, VOICE_AGENT_URL: unreachableUrl }),
          noKey: Daemon.cli(["campaigns", "list"], { VOICE_AGENT_URL: org.url }),
          help: run("contacts", "upload", "--help")
        }, { concurrency: 3 })
        assert.deepStrictEqual([refusals.unknown.code, refusals.unknown.stdout], [1, ""])
        assert.include(refusals.unknown.stderr, `Campaign ${code} not found`)
        assert.deepStrictEqual([refusals.wrongKey.code, refusals.wrongKey.stdout], [1, ""])
        assert.include(refusals.wrongKey.stderr, "API key")
        assert.strictEqual(refusals.flagWins.code, 0, refusals.flagWins.stderr)
        assert.strictEqual(refusals.unreachable.code, 1)
        assert.include(refusals.unreachable.stderr, `Cannot reach the voice-agent API at ${unreachableUrl}`)
        assert.strictEqual(refusals.noKey.code, 2)
        assert.include(refusals.noKey.stderr, "--key")
        assert.strictEqual(refusals.help.code, 0)
        assert.include(refusals.help.stdout, "--accept-terms")
        const usages = [
          ["campaigns", "nope"],
          ["campaigns", "show"],
          ["calls", "recording", callId],
          ["calls", "recording", callId, "--channel", "both", "--out", missing],
          ["calls", "list", "--limit", "many"]
        ]
        const results = yield* Effect.forEach(usages, (usage) => run(...usage, "--json"), { concurrency: 3 })
        usages.forEach((usage, index) => {
          const result = results[index]!
          assert.strictEqual(result.code, 2, usage.join(" "))
          assert.strictEqual(result.stdout, "", usage.join(" "))
          assert.include(result.stderr, "USAGE", usage.join(" "))
        })
      }),
    // About 35 commands, a node start each (1 s of CPU, 4-5 s on a loaded machine).
    { timeout: 400_000 }
  )
})
