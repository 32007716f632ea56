/**
 * CallEvents on SQL: each (call, kind) recorded once in `call_events`, then announced to the
 * daemons that hold a subscription to that call.
 *
 * Owns: the event rows and their encoding (`kind` is the tag, `at` the instant, `data` the
 * rest), the announcement, and the in-process fan-out to subscribers.
 *
 * - Publish is one statement: `INSERT … ON CONFLICT DO NOTHING`, and only a row actually
 *   inserted is announced, so a repeated report changes nothing and announces nothing. On
 *   PostgreSQL the announcement is `pg_notify` on {@link channel} in that same statement
 *   (delivered at commit, to every daemon); on the embedded database (one process) it is a
 *   direct hand-off to this process's subscribers.
 * - Subscribe listens first (on PostgreSQL the process's one `LISTEN` on the channel, started
 *   on first use, see internal/listener), registers the subscriber, then reads what is
 *   recorded, then passes on what is announced. Notifications that arrive during that read are
 *   held and merged with it, so the carrier's events come out in the order Ringing, Answered,
 *   Ended, each at most once (a kind that arrives after a later one, from a late webhook, is
 *   dropped), and the agent's verdict (AgentEnded) once, whenever it comes. The stream ends as
 *   the port says (`isLast`). When the `LISTEN` connection is lost and comes back, the events
 *   of every subscribed call are read again, so none sent in between is missed.
 *
 * Bounds: each subscriber has a queue of 4, and at most one event of each of the four kinds is
 * ever offered to it, so the queue never fills and the fan-out never waits; while its
 * recorded events are read it holds at most one announcement of each kind.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import type { CallEvent, CallEventKind } from "@voice-agent/core/ports/CallEvents"
import { CallEvents, inReplayOrder, isLast, replayOrder } from "@voice-agent/core/ports/CallEvents"
import { fromMillis } from "@voice-agent/core/Time"
import { Effect, Layer, Option, Queue, Schema, Stream } from "effect"
import { SqlSchema } from "effect/sql"
import { isEmbedded } from "./Database.ts"
import * as Listener from "./internal/listener.ts"
import { orDieInfrastructure } from "./internal/sqlErrors.ts"

/**
 * The PostgreSQL notification channel of call events.
 *
 * @category constructors
 */
export const channel = "voice_agent_call_events"

const CallEventSchema = Schema.Union([
  Schema.Struct({ _tag: Schema.Literal("Ringing"), at: Schema.Number }),
  Schema.Struct({
    _tag: Schema.Literal("Answered"),
    at: Schema.Number,
    answeredBy: Schema.Literals(["human", "machine", "unknown"])
  }),
  Schema.Struct({
    _tag: Schema.Literal("Ended"),
    at: Schema.Number,
    reason: Schema.Literals(["remote-hangup", "local-hangup", "busy", "no-answer", "failed"])
  }),
  Schema.Struct({
    _tag: Schema.Literal("AgentEnded"),
    at: Schema.Number,
    outcome: Schema.Literals(["completed", "cut-short", "voicemail", "transfer", "agent-failure"]),
    endedBy: Schema.Literals(["remote", "agent"])
  })
])

const Announcement = Schema.Struct({ callId: Schema.String, event: CallEventSchema })
const decodeAnnouncement = Schema.decodeUnknownOption(Schema.fromJsonString(Announcement))

const EventRow = Schema.Struct({ callId: Schema.String, kind: Schema.String, at: Schema.Date, data: Schema.Unknown })
const decodeEvent = Schema.decodeUnknownEffect(CallEventSchema)

/** The carrier's events come in this order; the agent's verdict (rank null) whenever it comes. */
const rank: Record<CallEventKind, number | null> = { Ringing: 0, Answered: 1, Ended: 2, AgentEnded: null }

/** The event without its tag and instant: what `data` stores. */
const dataOf = (event: CallEvent): Record<string, unknown> => {
  const { _tag, at, ...data } = event
  return data
}

interface Subscriber {
  readonly queue: Queue.Queue<CallEvent>
  /** Rank of the last carrier event offered; -1: none yet. */
  lastRank: number
  /** Kinds offered so far (each at most once). */
  readonly offered: Set<CallEventKind>
  /** Announcements received while the recorded events are read; `null` once read. */
  pending: Array<CallEvent> | null
}

/**
 * Offers the event unless its kind was offered already or, for a carrier event, one of a later
 * kind was.
 */
const deliver = (subscriber: Subscriber, event: CallEvent): void => {
  if (subscriber.offered.has(event._tag)) return
  const eventRank = rank[event._tag]
  if (eventRank !== null) {
    if (eventRank <= subscriber.lastRank) return
    subscriber.lastRank = eventRank
  }
  subscriber.offered.add(event._tag)
  Queue.offerUnsafe(subscriber.queue, event)
}

/**
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const sql = yield* PgClient.PgClient
  const embedded = isEmbedded(sql)
  const subscribers = new Map<string, Set<Subscriber>>()

  const dispatch = (callId: string, event: CallEvent): void => {
    for (const subscriber of subscribers.get(callId) ?? []) {
      if (subscriber.pending === null) deliver(subscriber, event)
      else if (!subscriber.pending.some((e) => e._tag === event._tag)) subscriber.pending.push(event)
    }
  }

  const insert = SqlSchema.findAll({
    Request: Schema.Struct({ callId: Schema.String, kind: Schema.String, at: Schema.Date, data: Schema.Unknown }),
    Result: Schema.Struct({ inserted: Schema.Boolean }),
    execute: ({ at, callId, data, kind }) => {
      const row = sql`
        INSERT INTO call_events (call_id, kind, at, data) VALUES (${callId}, ${kind}, ${at}, ${sql.json(data)})
        ON CONFLICT DO NOTHING
        RETURNING call_id, kind, at, data`
      return embedded
        ? sql`WITH inserted AS (${row}) SELECT true AS "inserted" FROM inserted`
        : sql`
          WITH inserted AS (${row})
          SELECT true AS "inserted", pg_notify(${channel}, json_build_object(
            'callId', call_id,
            'event', jsonb_build_object('_tag', kind, 'at', (extract(epoch FROM at) * 1000)::float8) || data
          )::text)::text AS "notified"
          FROM inserted`
    }
  })

  const recorded = SqlSchema.findAll({
    Request: Schema.Array(Schema.String),
    Result: EventRow,
    execute: (callIds) =>
      sql`
        SELECT call_id AS "callId", kind AS "kind", at AS "at", data AS "data" FROM call_events
        WHERE call_id = ANY(${callIds}::text[])`
  })

  const readEvents = (callIds: ReadonlyArray<string>) =>
    Effect.flatMap(
      recorded(callIds),
      Effect.forEach((row) =>
        Effect.map(
          decodeEvent({ ...(row.data as object), _tag: row.kind, at: row.at.getTime() }),
          (event) => [row.callId, event] as const
        )
      )
    )

  // After every (re)confirmed LISTEN: the recorded events of every subscribed call, in case
  // some were announced while nobody listened. A failure fails the listening session, which
  // the listener retries.
  const catchUp = Effect.suspend(() => {
    const callIds = [...subscribers.keys()]
    return callIds.length === 0 ? Effect.void : Effect.flatMap(
      readEvents(callIds),
      (events) =>
        Effect.sync(() => {
          for (const [callId, event] of [...events].sort(([, a], [, b]) => replayOrder(a, b))) {
            dispatch(callId, event)
          }
        })
    )
  })

  const listening = embedded ? Effect.void : yield* Listener.make(sql, channel, {
    onNotification: (payload) =>
      Option.match(decodeAnnouncement(payload), {
        onNone: () => undefined,
        onSome: ({ callId, event }) => dispatch(callId, event)
      }),
    onListening: catchUp
  })

  return CallEvents.of({
    publish: Effect.fn("CallEvents.publish")(
      function*(callId: string, event: CallEvent) {
        const inserted = yield* insert({ callId, kind: event._tag, at: fromMillis(event.at), data: dataOf(event) })
        if (embedded && inserted.length > 0) dispatch(callId, event)
      },
      orDieInfrastructure
    ),
    subscribe: Effect.fn("CallEvents.subscribe")(
      function*(callId: string) {
        yield* listening
        const subscriber: Subscriber = {
          queue: yield* Queue.bounded<CallEvent>(4),
          lastRank: -1,
          offered: new Set(),
          pending: []
        }
        yield* Effect.acquireRelease(
          Effect.sync(() => {
            const set = subscribers.get(callId) ?? new Set()
            set.add(subscriber)
            subscribers.set(callId, set)
          }),
          () =>
            Effect.sync(() => {
              const set = subscribers.get(callId)
              set?.delete(subscriber)
              if (set?.size === 0) subscribers.delete(callId)
            })
        )
        const events = yield* readEvents([callId])
        yield* Effect.sync(() => {
          const all = inReplayOrder([...events.map(([, e]) => e), ...(subscriber.pending ?? [])])
          subscriber.pending = null
          for (const event of all) deliver(subscriber, event)
        })
        const seen = new Set<CallEventKind>()
        return Stream.fromQueue(subscriber.queue).pipe(
          Stream.takeUntil((event) => {
            seen.add(event._tag)
            return isLast(seen)
          })
        )
      },
      orDieInfrastructure
    )
  })
})

/**
 * @category layers
 */
export const layer = Layer.effect(CallEvents, make)
