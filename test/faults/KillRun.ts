/**
 * The kill fault run (issue 12, faults): `daemons` real `voice-agent serve` processes (API and
 * dialer each, `node daemon/src/voice-agent.js`) on one PostgreSQL database of their own and one shared
 * data directory (so any of them serves any recording), dialing simulated contacts of every
 * outcome of the simulated carrier (packages/carrier-sim/README.md; the number's last two digits run through 00..99, so 40 % talk, 10 %
 * each voicemail, busy, no answer, carrier failure, early hang-up, never hangs up) while faults
 * hit them at random: SIGKILL (then a restart at once, with a new worker id), or every
 * `sigtermEvery`-th fault a SIGTERM (a drain; the daemon holding the most calls is chosen, and it
 * is restarted once it exits). Then the campaign is paused, the daemons settle (no lease, no
 * open conversation), and the run checks, collecting every violation:
 *
 * - no contact dialed twice at once: no two conversations of one contact overlap
 *   (`[started_at, ended_at)`, an open one running forever);
 * - none stuck past its lease: no lease left; every contact final, or `TRYING` with attempts
 *   left and its eligibility (HTTP) blocked by nothing but `paused` and `retry_delay`; a killed
 *   daemon's calls were recovered (closed `bot-failure`) within two leases plus a margin of
 *   its death; attempts equal conversations, contact by contact;
 * - every finished call has its record and transcript: every conversation ended with a
 *   reason; through the HTTP API each answers with the reason SQL holds, and each answered call
 *   that ended normally has its transcript (an AGENT turn, and a HUMAN one for a conversation
 *   with the scripted person) and its `agent`, `remote` and `mixed` recordings; a call
 *   recovered from a killed daemon has what was recorded of it, its duration covering every
 *   turn and every recording it serves (each less than a second shorter than the duration);
 * - every WAV readable by sox: every file under the recordings directory (those of killed
 *   daemons included) and every recording fetched through the API (`sox <file> -n` reads them
 *   whole);
 * - SIGTERM drains: a daemon sent SIGTERM exits 0, and every call it held then ended by its
 *   own end (not `bot-failure`) before the process exited.
 *
 * `test/faults/kill.test.ts` runs a short version; `test/faults/kill.ts` the long one
 * (test/faults/README.md).
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Clock, Context, Duration, Effect, Fiber, Layer, Redacted, Schedule } from "effect"
import type { Scope } from "effect"
import { SqlClient } from "effect/sql"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Daemon from "../support/Daemon.ts"

/**
 * @category models
 */
export interface Options {
  readonly contacts: number
  /** How long faults are injected, from the upload. */
  readonly chaosMs: number
  readonly daemons: number
  /** The organization's and the campaign's cap on simultaneous calls. */
  readonly concurrency: number
  /** `VOICE_AGENT_DIALER_LEASE_MS` of every daemon. */
  readonly leaseMs: number
  /** Mean time between two faults (each gap is uniform in [0.5, 1.5] of it). */
  readonly faultGapMs: number
  /** Every n-th fault is a SIGTERM (0: none). */
  readonly sigtermEvery: number
  /** `VOICE_AGENT_RECORDINGS` of every daemon: files in the shared data directory, or rows. */
  readonly recordings: "fs" | "database"
  /** Most conversations whose details, transcript and recordings are checked through HTTP (a random sample). */
  readonly httpChecks: number
  readonly seed: number
  readonly log: (line: string) => void
}

/**
 * @category models
 */
export interface Report {
  readonly violations: ReadonlyArray<string>
  readonly sigkills: number
  /** SIGKILLs that hit a daemon holding at least one call. */
  readonly sigkillsMidCall: number
  readonly sigterms: number
  /** Calls in progress when a SIGTERM came, all drained (see violations otherwise). */
  readonly drainedCalls: number
  /** Calls of killed daemons, closed by another daemon's recovery. */
  readonly recoveredCalls: number
  readonly conversations: number
  readonly byReason: Readonly<Record<string, number>>
  readonly byStatus: Readonly<Record<string, number>>
  readonly wavFiles: number
  readonly httpChecked: number
  readonly seconds: number
  /** Where the daemons' output was written when there were violations. */
  readonly logs: ReadonlyArray<string>
}

/** A seeded PRNG (mulberry32): the same seed, the same faults. */
const random = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Area codes 200..999 but the N11 service codes, which no number may have. */
const areaCodes = Array.from({ length: 800 }, (_, i) => 200 + i).filter((code) => code % 100 !== 11)

/**
 * Contact `i`'s number: the simulated carrier's outcome comes from the last two digits
 * (`01xx`), stepped by 7 so that contacts dialed in upload order mix every outcome; uniqueness
 * from the area code (one per hundred contacts, so up to 79,200 contacts).
 */
export const numberOf = (i: number): string =>
  `+1${areaCodes[Math.floor(i / 100) % areaCodes.length]}555${String(100 + ((i * 7) % 100)).padStart(4, "0")}`

const allWeek = [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, start_time: "00:00", end_time: "24:00" }))

interface Slot {
  readonly index: number
  daemon: Daemon.RunningDaemon | undefined
  worker: string | undefined
  state: "up" | "stopping" | "starting"
  /** Every output line of every process this slot ran. */
  readonly output: Array<string>
}

interface Held {
  readonly contactId: string
  readonly conversationId: string | null
}

interface Fault {
  readonly signal: "SIGKILL" | "SIGTERM"
  readonly worker: string
  readonly at: number
  readonly exitedAt: number
  readonly code: number | null
  readonly held: ReadonlyArray<Held>
}

/** Runs `command` to its end: exit code and standard error. */
const run = (command: string, args: ReadonlyArray<string>) =>
  Effect.callback<{ readonly code: number | null; readonly stderr: string }>((resume) => {
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.once("error", (error) => resume(Effect.succeed({ code: -1, stderr: String(error) })))
    child.once("close", (code) => resume(Effect.succeed({ code, stderr })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** Undefined when sox reads the whole file, else why not. */
export const soxRejects = (file: string): Effect.Effect<string | undefined> =>
  Effect.map(
    run("sox", [file, "-n"]),
    ({ code, stderr }) => code === 0 ? undefined : `sox cannot read ${file} (exit ${code}): ${stderr.trim()}`
  )

/** Seconds of audio a canonical 8 kHz mono 16-bit WAV declares (its data chunk's size). */
const wavSeconds = (bytes: Uint8Array): number =>
  bytes.length < 44 ? 0 : new DataView(bytes.buffer, bytes.byteOffset).getUint32(40, true) / 16_000

/** Every `.wav` under `dir`. */
const wavFilesUnder = (dir: string): Array<string> =>
  fs.existsSync(dir)
    ? fs.readdirSync(dir, { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".wav"))
      .map((name) => path.join(dir, name))
    : []

/** A GET or other request bounded at 10 s, answering status, body text and bytes. */
const http = (url: string, init: RequestInit = {}) =>
  Effect.tryPromise({
    try: async () => {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) })
      const bytes = new Uint8Array(await response.arrayBuffer())
      return { status: response.status, bytes, text: () => new TextDecoder().decode(bytes) }
    },
    catch: (error) => new Error(`${init.method ?? "GET"} ${url}: ${String(error)}`)
  })

const json = (url: string, init: RequestInit = {}) =>
  Effect.map(
    http(url, init),
    (r) => ({ status: r.status, body: r.bytes.length === 0 ? undefined : JSON.parse(r.text()) })
  )

const sendJson = (method: string, key: string, body: unknown): RequestInit => ({
  method,
  headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
  body: JSON.stringify(body)
})

const must = <A extends { readonly status: number; readonly body: unknown }>(what: string, expected: number) =>
(
  response: A
): Effect.Effect<A> =>
  response.status === expected
    ? Effect.succeed(response)
    : Effect.die(new Error(`${what}: ${response.status} ${JSON.stringify(response.body)}`))

/**
 * Runs the whole thing in the caller's scope (which drops the database and stops the daemons).
 *
 * @category constructors
 */
export const runKill = (options: Options): Effect.Effect<Report, never, Scope.Scope> =>
  Effect.gen(function*() {
    const rand = random(options.seed)
    const startedAt = yield* Clock.currentTimeMillis
    const url = yield* TestDatabase.freshDatabaseUrl("voice_agent_faults").pipe(Effect.orDie)
    const dataDir = yield* Daemon.tempDir
    const adminToken = "faults-admin-token"
    const env = {
      DATABASE_URL: url,
      VOICE_AGENT_ADMIN_TOKEN: adminToken,
      VOICE_AGENT_DIALER_LEASE_MS: String(options.leaseMs),
      VOICE_AGENT_RECORDINGS: options.recordings
    }
    const violations: Array<string> = []
    const violation = (text: string) =>
      Effect.sync(() => {
        violations.push(text)
        if (violations.length <= 20) options.log(`VIOLATION ${text}`)
      })

    // ------------------------------------------------------------------ daemons
    const slots: Array<Slot> = Array.from(
      { length: options.daemons },
      (_, index) => ({ index, daemon: undefined, worker: undefined, state: "starting", output: [] })
    )
    const start = (slot: Slot): Effect.Effect<void, never, Scope.Scope> =>
      Effect.gen(function*() {
        slot.state = "starting"
        for (let attempt = 1;; attempt++) {
          const started = yield* Effect.result(Daemon.serve(["--port", "0", "--data-dir", dataDir], env))
          if (started._tag === "Success") {
            const daemon = started.success
            const line = yield* daemon.waitFor(/Dialer (\S+) started/)
            slot.daemon = daemon
            slot.worker = /Dialer (\S+) started/.exec(line)![1]!
            slot.state = "up"
            return
          }
          yield* violation(`daemon ${slot.index} did not start (attempt ${attempt}): ${started.failure.message}`)
          if (attempt === 3) return yield* Effect.die(started.failure)
        }
      })
    /** Keeps what a stopped process printed, for the logs written on violations. */
    const keepOutput = (slot: Slot) => {
      if (slot.daemon !== undefined) slot.output.push(...slot.daemon.stdout, `---- process ${slot.daemon.pid} ended`)
    }
    const anyUrl = () => slots.find((s) => s.state === "up")?.daemon?.url ?? slots[0]!.daemon!.url

    yield* start(slots[0]!)
    const admin = (p: string, body: unknown) =>
      json(`${slots[0]!.daemon!.url}/admin/v1/${p}`, sendJson("POST", adminToken, body)).pipe(Effect.orDie)
    const organization = (yield* admin("organizations", { name: "faults", max_concurrency: options.concurrency })
      .pipe(Effect.flatMap(must("organization", 201)))).body as { id: string }
    const key = ((yield* admin(`organizations/${organization.id}/api-keys`, {})
      .pipe(Effect.flatMap(must("api key", 201)))).body as { api_key: string }).api_key
    yield* admin(`organizations/${organization.id}/phone-numbers`, { phone_number: "+12025550100" })
      .pipe(Effect.flatMap(must("phone number", 201)))
    yield* Effect.forEach(slots.slice(1), start, { concurrency: "unbounded", discard: true })
    const auth: RequestInit = { headers: { authorization: `Bearer ${key}` } }

    const sqlContext = yield* Layer.build(PgClient.layer({ url: Redacted.make(url), maxConnections: 3 })).pipe(
      Effect.orDie
    )
    const sql = Context.get(sqlContext, SqlClient.SqlClient)
    const query = <A extends object>(statement: Effect.Effect<ReadonlyArray<A>, unknown>) =>
      Effect.map(Effect.orDie(statement), (rows) => rows.map((row) => ({ ...row })))

    // ------------------------------------------------------------------ campaign
    const today = new Date(startedAt).toISOString().slice(0, 10)
    const campaign = (yield* json(
      `${anyUrl()}/v2/campaigns`,
      sendJson("POST", key, {
        name: "faults",
        origin_phone_numbers: ["+12025550100"],
        start_date: today,
        calling_windows: allWeek,
        timezone: "UTC",
        max_attempts: 2,
        max_concurrency: options.concurrency
      })
    ).pipe(Effect.orDie, Effect.flatMap(must("campaign", 201)))).body as { campaign_code: string }
    const code = campaign.campaign_code
    for (let from = 0; from < options.contacts; from += 10_000) {
      const batch = Array.from(
        { length: Math.min(10_000, options.contacts - from) },
        (_, i) => ({ phone_number: numberOf(from + i), data: { name: `Contact ${from + i}` } })
      )
      yield* json(
        `${anyUrl()}/v2/campaigns/${code}/contacts?accepted_terms_of_service=true`,
        sendJson("POST", key, { contacts: batch })
      ).pipe(Effect.orDie, Effect.flatMap(must("upload", 200)))
    }
    options.log(`${options.contacts} contacts uploaded to ${code}; ${options.daemons} daemons dialing`)

    // ------------------------------------------------------------------ faults
    const heldBy = (worker: string) =>
      query(sql<Held>`
        SELECT id::text AS "contactId", dialing_conversation_id::text AS "conversationId"
        FROM contacts WHERE dialing_worker = ${worker}`)
    const faults: Array<Fault> = []
    const restarts: Array<Fiber.Fiber<void>> = []
    const scope = yield* Effect.scope
    const fault = (slot: Slot, signal: "SIGKILL" | "SIGTERM") =>
      Effect.gen(function*() {
        const daemon = slot.daemon!
        const worker = slot.worker!
        slot.state = "stopping"
        const held = yield* heldBy(worker)
        const at = yield* Clock.currentTimeMillis
        const calls = held.filter((h) => h.conversationId !== null).length
        options.log(`${signal} daemon ${slot.index} (${worker}) holding ${held.length} contact(s), ${calls} in a call`)
        restarts.push(
          yield* Effect.forkIn(
            Effect.gen(function*() {
              const code = yield* daemon.stop(signal)
              const exitedAt = yield* Clock.currentTimeMillis
              faults.push({ signal, worker, at, exitedAt, code, held })
              keepOutput(slot)
              yield* start(slot)
            }),
            scope
          )
        )
      })
    const chaosEnd = (yield* Clock.currentTimeMillis) + options.chaosMs
    let count = 0
    while ((yield* Clock.currentTimeMillis) < chaosEnd) {
      yield* Effect.sleep(Duration.millis(options.faultGapMs * (0.5 + rand())))
      const loadNow = Effect.suspend(() =>
        Effect.forEach(slots.filter((s) => s.state === "up"), (s) =>
          Effect.map(heldBy(s.worker!), (held) => ({
            slot: s,
            calls: held.filter((h) => h.conversationId !== null).length
          })))
      )
      const load = yield* loadNow
      if (load.length === 0) continue
      count++
      if (options.sigtermEvery > 0 && count % options.sigtermEvery === 0) {
        // The drain is the point: the daemon in the most calls, once one is in a call (on a
        // loaded machine the daemons can all be between calls for a moment after restarts).
        const busiest = (rows: typeof load) => rows.reduce((a, b) => (b.calls > a.calls ? b : a), rows[0]!)
        const someInCall = (rows: typeof load) => rows.some((row) => row.calls > 0)
        const polled = someInCall(load) ? load : yield* Effect.sleep(Duration.millis(250)).pipe(
          Effect.andThen(loadNow),
          Effect.repeat({ schedule: Schedule.spaced("250 millis"), until: someInCall, times: 39 })
        )
        yield* fault(busiest(polled.length > 0 ? polled : load).slot, "SIGTERM")
      } else {
        // A daemon in a call, at random (any daemon when none is).
        const inCall = load.filter((l) => l.calls > 0)
        const among = inCall.length > 0 ? inCall : load
        yield* fault(among[Math.floor(rand() * among.length)]!.slot, "SIGKILL")
      }
    }
    yield* Fiber.joinAll(restarts)
    options.log(`faults over (${faults.length}); pausing the campaign and letting the daemons settle`)

    // ------------------------------------------------------------------ settle
    yield* json(`${anyUrl()}/v2/campaigns/${code}`, sendJson("PATCH", key, { enabled: false })).pipe(
      Effect.orDie,
      Effect.flatMap(must("pause", 200))
    )
    const settleDeadline = (yield* Clock.currentTimeMillis) + 2 * options.leaseMs + 45_000
    for (;;) {
      const [state] = yield* query(sql<{ leased: number; open: number }>`
        SELECT (SELECT count(*) FROM contacts WHERE dialing_worker IS NOT NULL)::int AS "leased",
               (SELECT count(*) FROM conversations WHERE ended_at IS NULL)::int AS "open"`)
      if (state!.leased === 0 && state!.open === 0) break
      if ((yield* Clock.currentTimeMillis) > settleDeadline) {
        yield* violation(
          `not settled ${Math.round((settleDeadline - startedAt) / 1000)} s in: ` +
            `${state!.leased} contact(s) still leased, ${state!.open} conversation(s) open`
        )
        break
      }
      yield* Effect.sleep("250 millis")
    }

    // ------------------------------------------------------------------ checks: SQL
    const overlaps = yield* query(sql<{ contact: string; first: string; second: string }>`
      SELECT a.contact_id::text AS "contact", a.call_id AS "first", b.call_id AS "second"
      FROM conversations a JOIN conversations b
        ON b.contact_id = a.contact_id AND (a.started_at, a.id) < (b.started_at, b.id)
       AND b.started_at < coalesce(a.ended_at, 'infinity')
      WHERE a.direction = 'outbound'`)
    for (const o of overlaps) {
      yield* violation(`contact ${o.contact} dialed twice at once: calls ${o.first} and ${o.second}`)
    }

    const leftovers = yield* query(sql<{ id: string; status: string; worker: string | null }>`
      SELECT id::text AS "id", status, dialing_worker AS "worker" FROM contacts
      WHERE dialing_worker IS NOT NULL OR dialing_lease_expires_at IS NOT NULL OR dialing_conversation_id IS NOT NULL`)
    for (const c of leftovers) yield* violation(`contact ${c.id} (${c.status}) still leased by ${c.worker}`)

    const miscounted = yield* query(sql<{ id: string; attempts: number; calls: number }>`
      SELECT c.id::text AS "id", c.attempts, count(v.id)::int AS "calls"
      FROM contacts c LEFT JOIN conversations v ON v.contact_id = c.id
      GROUP BY c.id HAVING c.attempts <> count(v.id)`)
    for (const c of miscounted) {
      yield* violation(`contact ${c.id}: ${c.attempts} attempt(s) counted, ${c.calls} conversation(s) recorded`)
    }
    const exhausted = yield* query(sql<{ id: string }>`
      SELECT c.id::text AS "id" FROM contacts c JOIN campaigns k ON k.id = c.campaign_id
      WHERE c.status = 'TRYING' AND c.attempts >= k.max_attempts`)
    for (const c of exhausted) yield* violation(`contact ${c.id} is TRYING with no attempt left`)

    const conversations = yield* query(sql<{
      id: string
      callId: string
      toNumber: string
      answered: boolean
      endedAt: Date | null
      reason: string | null
      durationSec: number | null
      turns: number
      agentTurns: number
      humanTurns: number
    }>`
      SELECT v.id::text AS "id", v.call_id AS "callId", v.to_number AS "toNumber", v.answered_at IS NOT NULL AS "answered",
             v.ended_at AS "endedAt", v.termination_reason AS "reason", v.duration_sec AS "durationSec",
             count(t.seq)::int AS "turns", count(t.seq) FILTER (WHERE t.speaker = 'AGENT')::int AS "agentTurns",
             count(t.seq) FILTER (WHERE t.speaker = 'HUMAN')::int AS "humanTurns"
      FROM conversations v LEFT JOIN transcript_turns t ON t.conversation_id = v.id
      GROUP BY v.id`)
    const byConversationId = new Map(conversations.map((c) => [c.id, c]))
    const byReason: Record<string, number> = {}
    for (const c of conversations) {
      byReason[c.reason ?? "open"] = (byReason[c.reason ?? "open"] ?? 0) + 1
      if (c.endedAt === null || c.reason === null) yield* violation(`call ${c.callId} has no end recorded`)
    }
    const suffix = (n: string) => Number(n.slice(-4))
    /** An answered call that ended by its own end, not recovered from a dead daemon. */
    const finishedNormally = (c: (typeof conversations)[number]) => c.answered && c.reason !== "bot-failure"
    for (const c of conversations.filter(finishedNormally)) {
      if (c.agentTurns === 0) yield* violation(`call ${c.callId} (${c.reason}) has no AGENT turn`)
      if (suffix(c.toNumber) < 140 && c.reason === "user-hangup" && c.humanTurns === 0) {
        yield* violation(`call ${c.callId} with the scripted person has no HUMAN turn`)
      }
    }

    // A killed daemon's calls: closed as lost by another daemon within two leases (expiry, then
    // the safety poll, which is the lease) plus a margin; or ended by themselves before the kill.
    let recoveredCalls = 0
    let drainedCalls = 0
    for (const f of faults) {
      for (const h of f.held) {
        if (h.conversationId === null) continue
        const c = byConversationId.get(h.conversationId)
        if (c === undefined) {
          yield* violation(`conversation ${h.conversationId} held by ${f.worker} at its ${f.signal} is gone`)
          continue
        }
        const endedAt = c.endedAt?.getTime() ?? Number.POSITIVE_INFINITY
        if (f.signal === "SIGKILL") {
          if (c.reason === "bot-failure") recoveredCalls++
          const bound = f.at + 2 * options.leaseMs + 5_000
          if (endedAt > bound) {
            yield* violation(
              `call ${c.callId} of killed ${f.worker} ended ${Math.round((endedAt - f.at) / 1000)} s after the kill`
            )
          }
        } else {
          drainedCalls++
          if (c.reason === "bot-failure") yield* violation(`call ${c.callId} was cut by the SIGTERM of ${f.worker}`)
          if (endedAt > f.exitedAt) yield* violation(`${f.worker} exited before call ${c.callId} ended`)
        }
      }
      if (f.signal === "SIGTERM" && f.code !== 0) yield* violation(`${f.worker} exited ${f.code} on SIGTERM`)
    }

    // ------------------------------------------------------------------ checks: HTTP
    const base = anyUrl()
    const contactsHttp: Array<{ id: string; status: string }> = []
    type ContactPage = { contacts: Array<{ id: string; status: string }>; next_cursor: string | null }
    let cursor: string | null = null
    do {
      const after = cursor === null ? "" : `&after=${encodeURIComponent(cursor)}`
      const page = yield* json(`${base}/v2/contacts?campaign_code=${code}&limit=1000${after}`, auth).pipe(
        Effect.orDie,
        Effect.flatMap(must("contact list", 200))
      )
      const body = page.body as ContactPage
      contactsHttp.push(...body.contacts)
      cursor = body.next_cursor
    } while (cursor !== null)
    if (contactsHttp.length !== options.contacts) {
      yield* violation(`the API lists ${contactsHttp.length} contacts of ${options.contacts}`)
    }
    const byStatus: Record<string, number> = {}
    for (const c of contactsHttp) byStatus[c.status] = (byStatus[c.status] ?? 0) + 1
    yield* Effect.forEach(
      contactsHttp.filter((c) => c.status === "TRYING"),
      (c) =>
        Effect.gen(function*() {
          const { body, status } = yield* json(`${base}/v2/campaigns/${code}/contacts/${c.id}/eligibility`, auth).pipe(
            Effect.orDie
          )
          const blocked = (body as { blocked_by?: Array<string> } | undefined)?.blocked_by
          if (status !== 200 || blocked === undefined) {
            return yield* violation(`eligibility of contact ${c.id}: ${status} ${JSON.stringify(body)}`)
          }
          const other = blocked.filter((b) => b !== "paused" && b !== "retry_delay")
          if (other.length > 0) yield* violation(`contact ${c.id} is TRYING and blocked by ${other.join(", ")}`)
        }),
      { concurrency: 8, discard: true }
    )

    // A random sample of the conversations: details, transcript and recordings through HTTP.
    const sample = [...conversations].sort(() => rand() - 0.5).slice(0, options.httpChecks)
    const downloads = path.join(dataDir, "downloads")
    fs.mkdirSync(downloads, { recursive: true })
    yield* Effect.forEach(
      sample,
      (c) =>
        Effect.gen(function*() {
          const details = yield* json(`${base}/v1/conversations/${c.callId}`, auth).pipe(Effect.orDie)
          const record = details.body as { termination_reason?: string | null; duration_sec?: number | null }
          if (details.status !== 200 || record.termination_reason !== c.reason) {
            yield* violation(`call ${c.callId}: the API answers ${details.status} ${JSON.stringify(details.body)}`)
          }
          if (!c.answered) return
          const transcript = yield* json(`${base}/v1/conversations/${c.callId}/transcript`, auth).pipe(Effect.orDie)
          const turns = transcript.body as Array<{ speaker: string; offset_ms: number }>
          if (transcript.status !== 200 || !Array.isArray(turns) || turns.length !== c.turns) {
            yield* violation(`transcript of call ${c.callId}: ${transcript.status}, ${c.turns} turn(s) in SQL`)
          }
          // A lost call's duration covers what was recorded of it: every turn, every recording.
          const lost = c.reason === "bot-failure"
          const duration = record.duration_sec ?? 0
          const pastTheEnd = lost && Array.isArray(turns) ? turns.filter((t) => t.offset_ms > duration * 1000) : []
          if (pastTheEnd.length > 0) {
            yield* violation(
              `lost call ${c.callId} (${duration} s) has turns past its end: ${JSON.stringify(pastTheEnd)}`
            )
          }
          // A call that ended by its own end has all three; one cut by a kill has what was
          // written before it (maybe nothing), and what there is must read, as long as its
          // duration says (within a second: the duration is rounded up to whole seconds).
          for (const channel of ["agent", "remote", "mixed"] as const) {
            const wav = yield* http(`${base}/v1/conversations/${c.callId}/channels/${channel}/recording`, auth).pipe(
              Effect.orDie
            )
            if (wav.status !== 200) {
              if (finishedNormally(c) || wav.status !== 404) {
                yield* violation(`recording ${channel} of call ${c.callId} (${c.reason}): ${wav.status} ${wav.text()}`)
              }
              continue
            }
            const file = path.join(downloads, `${c.callId}-${channel}.wav`)
            fs.writeFileSync(file, wav.bytes)
            const rejected = yield* soxRejects(file)
            if (rejected !== undefined) yield* violation(rejected)
            fs.rmSync(file)
            const seconds = wavSeconds(wav.bytes)
            if (lost && (seconds > duration || duration - seconds >= 1)) {
              yield* violation(`recording ${channel} of lost call ${c.callId}: ${seconds} s, duration ${duration} s`)
            }
          }
        }),
      { concurrency: 4, discard: true }
    )

    // Every WAV file any daemon wrote, killed ones' included.
    const files = wavFilesUnder(path.join(dataDir, "recordings"))
    yield* Effect.forEach(
      files,
      (file) =>
        Effect.flatMap(soxRejects(file), (rejected) => rejected === undefined ? Effect.void : violation(rejected)),
      { concurrency: 4, discard: true }
    )
    for (const c of options.recordings === "fs" ? conversations.filter(finishedNormally) : []) {
      for (const channel of ["agent", "remote"]) {
        if (!fs.existsSync(path.join(dataDir, "recordings", c.callId, `${channel}.wav`))) {
          yield* violation(`call ${c.callId} (${c.reason}) has no ${channel}.wav`)
        }
      }
    }

    // ------------------------------------------------------------------ report
    const logs: Array<string> = []
    if (violations.length > 0) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "voice-agent-faults-"))
      for (const slot of slots) {
        keepOutput(slot)
        const file = path.join(dir, `daemon-${slot.index}.log`)
        fs.writeFileSync(file, slot.output.join("\n"))
        logs.push(file)
      }
    }
    const finishedAt = yield* Clock.currentTimeMillis
    return {
      violations,
      sigkills: faults.filter((f) => f.signal === "SIGKILL").length,
      sigkillsMidCall: faults.filter((f) => f.signal === "SIGKILL" && f.held.some((h) => h.conversationId !== null))
        .length,
      sigterms: faults.filter((f) => f.signal === "SIGTERM").length,
      drainedCalls,
      recoveredCalls,
      conversations: conversations.length,
      byReason,
      byStatus,
      wavFiles: files.length,
      httpChecked: sample.length,
      seconds: Math.round((finishedAt - startedAt) / 1000),
      logs
    } satisfies Report
  })
