/**
 * The dial loop under `TestClock`, over the in-memory ports and the real simulated carrier:
 * windows, every outcome of the simulated carrier (packages/carrier-sim/README.md), retries,
 * caps, a DST change, end_date, wake-ups and the recovery of a loop that died mid-call, and the
 * offer of each call to SDK agents
 * (CallControllers). No real waiting: each test moves the clock.
 */
import { assert, describe, it } from "@effect/vitest"
import { Temporal } from "@js-temporal/polyfill"
import * as SimCarrier from "@voice-agent/carrier-sim/SimCarrier"
import type { CallingSchedule } from "@voice-agent/core/CallingSchedule"
import * as ContactState from "@voice-agent/core/ContactState"
import type { ContactDialState } from "@voice-agent/core/ContactState"
import type { E164 } from "@voice-agent/core/PhoneNumber"
import type { CallOffer, OfferAnswer } from "@voice-agent/core/ports/CallControllers"
import { CallControllers } from "@voice-agent/core/ports/CallControllers"
import { Carrier } from "@voice-agent/core/ports/Carrier"
import { DialerRepository } from "@voice-agent/core/ports/DialerRepository"
import { DialerWakeup } from "@voice-agent/core/ports/DialerWakeup"
import * as DialerSettings from "@voice-agent/engine/DialerSettings"
import * as DialLoop from "@voice-agent/engine/DialLoop"
import * as MemoryDialer from "@voice-agent/engine/testing/MemoryDialer"
import { Clock, Deferred, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { TestClock } from "effect/testing"

const utc = (iso: string): number => Temporal.Instant.from(iso).epochMilliseconds
const SECOND = 1_000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE

// Weekdays 09:00-17:00 in New York.
const weekdays: CallingSchedule = {
  windows: [0, 1, 2, 3, 4].map((day) => ({ day, start_time: "09:00", end_time: "17:00" })),
  timeZone: "America/New_York",
  startDate: "2026-01-01",
  endDate: null
}

interface Setup {
  readonly schedule?: CallingSchedule
  readonly maxAttempts?: number
  readonly retryDelayS?: number
  readonly campaignCap?: number
  readonly organizationCap?: number
  readonly numbers: ReadonlyArray<string>
}

const campaignId = "c-1"
const organizationId = "org-1"

const seed = (setup: Setup, now: number): MemoryDialer.World => {
  const world = MemoryDialer.makeWorld()
  world.organizations.set(organizationId, { maxConcurrency: setup.organizationCap ?? 10, dialingEnabled: true })
  world.campaigns.set(campaignId, {
    id: campaignId,
    organizationId,
    schedule: setup.schedule ?? weekdays,
    maxAttempts: setup.maxAttempts ?? 3,
    retryDelayS: setup.retryDelayS ?? 3600,
    maxConcurrency: setup.campaignCap ?? 5,
    enabled: true,
    deleted: false,
    originPhoneNumbers: ["+12025550001" as E164, "+12025550002" as E164],
    dials: 0
  })
  setup.numbers.forEach((number, i) => {
    world.contacts.set(String(i + 1), {
      id: String(i + 1),
      campaignId,
      organizationId,
      phoneNumber: number as E164,
      data: {},
      state: ContactState.initial(now)
    })
  })
  return world
}

// Calls in progress when a test ends are hung up at once: a drain would wait on the TestClock.
const settings = (worker = "w-1") => DialerSettings.make(worker, { drainMs: 0 })

/** The loop, the simulated carrier and the in-memory ports over `world`, running in `scope`. */
const start = (world: MemoryDialer.World, scope: Scope.Scope, worker = "w-1") =>
  Layer.buildWithScope(
    DialLoop.layer(settings(worker)).pipe(
      Layer.provide(SimCarrier.layer),
      Layer.provideMerge(MemoryDialer.layer(world))
    ),
    scope
  )

type CampaignOffer = Extract<CallOffer, { readonly _tag: "Campaign" }>

/**
 * SDK agents answering each campaign offer with `answer` (by the order of the offers, from
 * 0), and the offers they received; `placed`, the call ids the simulated carrier was asked to
 * place.
 */
const remoteAgents = (answer: (offer: CampaignOffer, index: number) => Effect.Effect<OfferAnswer>) => {
  const offers: Array<CampaignOffer> = []
  const placed: Array<string> = []
  const controllers = Layer.succeed(
    CallControllers,
    CallControllers.of({
      offer: (offer) =>
        offer._tag === "Campaign"
          ? Effect.suspend(() => answer(offer, offers.push(offer) - 1))
          : Effect.die("the dial loop offers campaign calls only")
    })
  )
  const carrier = Layer.effect(
    Carrier,
    Effect.map(SimCarrier.make, (sim) =>
      Carrier.of({
        ...sim,
        placeCall: (request) => Effect.andThen(Effect.sync(() => placed.push(request.callId)), sim.placeCall(request))
      }))
  )
  return { offers, placed, layer: Layer.mergeAll(controllers, carrier) }
}

/** The loop over `world` with SDK agents (and their recording carrier), running in `scope`. */
const startOffering = (
  world: MemoryDialer.World,
  scope: Scope.Scope,
  agents: ReturnType<typeof remoteAgents>,
  loopSettings = settings()
) =>
  Layer.buildWithScope(
    DialLoop.layer(loopSettings).pipe(Layer.provide(agents.layer), Layer.provideMerge(MemoryDialer.layer(world))),
    scope
  )

/** Moves the clock forward in small steps, letting every fiber run between them. */
const advance = (ms: number, step = 250) =>
  Effect.gen(function*() {
    for (let moved = 0; moved < ms; moved += step) {
      yield* TestClock.adjust(Math.min(step, ms - moved))
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow
    }
  })

const advanceTo = (at: number, step = MINUTE) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => advance(Math.max(0, at - now), step))

const stateOf = (world: MemoryDialer.World, number: string): ContactDialState =>
  [...world.contacts.values()].find((contact) => contact.phoneNumber === number)!.state

const callsTo = (world: MemoryDialer.World, number: string) =>
  [...world.conversations.values()].filter((conversation) => conversation.to === number)

describe("DialLoop", () => {
  it.effect("dials nothing before the window opens, and each contact at the opening", () =>
    Effect.gen(function*() {
      const opening = utc("2026-01-05T14:00:00Z") // Monday 09:00 EST
      yield* TestClock.setTime(opening - 30 * MINUTE)
      const world = seed({ numbers: ["+12025550100", "+12025550101"] }, opening - 30 * MINUTE)
      yield* start(world, yield* Scope.Scope)
      yield* advance(29 * MINUTE, 30 * SECOND)
      assert.strictEqual(world.conversations.size, 0)
      yield* advanceTo(opening + 100, 100)
      const calls = [...world.conversations.values()]
      assert.strictEqual(calls.length, 2)
      for (const call of calls) assert.strictEqual(call.startedAt, opening)
      assert.deepStrictEqual(calls.map((call) => call.from).sort(), ["+12025550001", "+12025550002"])
    }))

  it.effect("brings each simulated outcome to the status docs/DECISIONS.md gives it", () =>
    Effect.gen(function*() {
      const now = utc("2026-01-05T15:00:00Z") // Monday 10:00 EST
      yield* TestClock.setTime(now)
      const numbers = [
        "+12025550100",
        "+12025550140",
        "+12025550150",
        "+12025550160",
        "+12025550170",
        "+12025550180",
        "+12025550190"
      ]
      const world = seed({ numbers, campaignCap: 10 }, now)
      yield* start(world, yield* Scope.Scope)
      yield* advance(20 * SECOND)
      const expect = (number: string, status: string, attempts: number, reason: string) => {
        const state = stateOf(world, number)
        assert.strictEqual(state.status, status, number)
        assert.strictEqual(state.attempts, attempts, number)
        assert.isNull(state.lease, number)
        const [call] = callsTo(world, number)
        assert.strictEqual(call?.terminationReason, reason, number)
      }
      expect("+12025550100", "COMPLETED", 1, "user-hangup")
      expect("+12025550140", "PARTIALLY_COMPLETED", 1, "voicemail")
      expect("+12025550150", "TRYING", 1, "busy")
      expect("+12025550160", "TRYING", 1, "no-answer")
      expect("+12025550170", "TRYING", 1, "failed")
      expect("+12025550180", "PARTIALLY_COMPLETED", 1, "user-hangup")
      expect("+12025550190", "COMPLETED", 1, "bot-hangup")
      const answered = callsTo(world, "+12025550100")[0]!
      assert.strictEqual(answered.answeredAt, now + SECOND)
      assert.isAbove(answered.durationSec!, 2)
      const busy = callsTo(world, "+12025550150")[0]!
      assert.strictEqual(busy.durationSec, 0)
      assert.isNull(busy.answeredAt)
      // Retried one hour after the end of the call.
      assert.strictEqual(stateOf(world, "+12025550150").nextAttemptAt, busy.endedAt! + HOUR)
    }))

  it.effect("retries after retry_delay_s while attempts remain, then FAILED", () =>
    Effect.gen(function*() {
      const now = utc("2026-01-05T15:00:00Z")
      yield* TestClock.setTime(now)
      const world = seed({ numbers: ["+12025550150"], maxAttempts: 3, retryDelayS: 3600 }, now)
      yield* start(world, yield* Scope.Scope)
      yield* advance(10 * SECOND)
      assert.strictEqual(stateOf(world, "+12025550150").attempts, 1)
      yield* advance(HOUR, 5 * SECOND)
      assert.strictEqual(stateOf(world, "+12025550150").attempts, 2)
      const calls = callsTo(world, "+12025550150").sort((a, b) => a.startedAt - b.startedAt)
      assert.strictEqual(calls[1]!.startedAt, calls[0]!.endedAt! + HOUR)
      yield* advance(HOUR, 5 * SECOND)
      const state = stateOf(world, "+12025550150")
      assert.strictEqual(state.status, "FAILED")
      assert.strictEqual(state.attempts, 3)
      assert.strictEqual(callsTo(world, "+12025550150").length, 3)
    }))

  it.effect("a retry that falls after the window waits for the next opening", () =>
    Effect.gen(function*() {
      const now = utc("2026-01-05T21:30:00Z") // Monday 16:30 EST
      yield* TestClock.setTime(now)
      const world = seed({ numbers: ["+12025550160"], retryDelayS: 3600 }, now)
      yield* start(world, yield* Scope.Scope)
      yield* advance(10 * SECOND)
      assert.strictEqual(stateOf(world, "+12025550160").attempts, 1)
      const tuesdayOpening = utc("2026-01-06T14:00:00Z")
      yield* advance(tuesdayOpening - 1_000 - now - 10 * SECOND, MINUTE)
      assert.strictEqual(callsTo(world, "+12025550160").length, 1)
      yield* advance(2 * SECOND)
      const calls = callsTo(world, "+12025550160").sort((a, b) => a.startedAt - b.startedAt)
      assert.strictEqual(calls.length, 2)
      assert.strictEqual(calls[1]!.startedAt, tuesdayOpening)
    }))

  it.effect("follows the campaign's zone across a DST change", () =>
    Effect.gen(function*() {
      // Friday 2026-03-06 16:59:50 EST; clocks spring forward on Sunday 2026-03-08.
      const now = utc("2026-03-06T21:59:50Z")
      yield* TestClock.setTime(now)
      const world = seed({ numbers: ["+12025550150"], retryDelayS: 3600 }, now)
      yield* start(world, yield* Scope.Scope)
      yield* advance(10 * SECOND)
      assert.strictEqual(stateOf(world, "+12025550150").attempts, 1)
      // Monday 09:00 EDT is 13:00 UTC (it was 14:00 UTC in winter).
      const mondayOpening = utc("2026-03-09T13:00:00Z")
      yield* advanceTo(mondayOpening + 500)
      const calls = callsTo(world, "+12025550150").sort((a, b) => a.startedAt - b.startedAt)
      assert.strictEqual(calls.length, 2)
      assert.strictEqual(calls[1]!.startedAt, mondayOpening)
    }), 20_000)

  it.effect("a contact whose retry would fall after end_date is FAILED", () =>
    Effect.gen(function*() {
      const now = utc("2026-01-09T21:30:00Z") // Friday 16:30 EST, the last day
      yield* TestClock.setTime(now)
      const world = seed({ numbers: ["+12025550150"], schedule: { ...weekdays, endDate: "2026-01-09" } }, now)
      yield* start(world, yield* Scope.Scope)
      yield* advance(10 * SECOND)
      const state = stateOf(world, "+12025550150")
      assert.strictEqual(state.status, "FAILED")
      assert.strictEqual(state.attempts, 1)
    }))

  it.effect("never holds more calls than the campaign's cap, and dials the rest as calls end", () =>
    Effect.gen(function*() {
      const now = utc("2026-01-05T15:00:00Z")
      yield* TestClock.setTime(now)
      const numbers = Array.from({ length: 12 }, (_, i) => `+1202555${String(100 + i).padStart(4, "0")}`)
      const world = seed({ numbers, campaignCap: 3, organizationCap: 8 }, now)
      yield* start(world, yield* Scope.Scope)
      let most = 0
      for (let t = 0; t < 60; t++) {
        yield* advance(SECOND)
        const live = [...world.contacts.values()].filter((k) => k.state.lease !== null).length
        most = Math.max(most, live)
      }
      assert.strictEqual(most, 3)
      for (const number of numbers) assert.strictEqual(stateOf(world, number).status, "COMPLETED", number)
    }))

  it.effect("an upload wakes the sleeping loop at once", () =>
    Effect.gen(function*() {
      const now = utc("2026-01-05T15:00:00Z")
      yield* TestClock.setTime(now)
      const world = seed({ numbers: [] }, now)
      const context = yield* start(world, yield* Scope.Scope)
      yield* advance(5 * SECOND)
      world.contacts.set("99", {
        id: "99",
        campaignId,
        organizationId,
        phoneNumber: "+12025550101" as E164,
        data: {},
        state: ContactState.initial(now + 5 * SECOND)
      })
      yield* Effect.provide(DialerWakeup.use((wakeup) => wakeup.notify), context)
      yield* advance(250)
      assert.strictEqual(callsTo(world, "+12025550101").length, 1)
      assert.strictEqual(callsTo(world, "+12025550101")[0]!.startedAt, now + 5 * SECOND)
    }))

  it.effect("a loop that dies mid-call is recovered by another once its lease expires", () =>
    Effect.gen(function*() {
      const now = utc("2026-01-05T15:00:00Z")
      yield* TestClock.setTime(now)
      const world = seed({ numbers: ["+12025550190"] }, now) // never hangs up by itself
      // Loop A runs in a scope that is never closed, over a repository whose writes stop when
      // the "power" goes off: no renewal, no end of call, no cleanup, as if the process died.
      let power = true
      const base = MemoryDialer.repository(world)
      const dying = DialerRepository.of(
        Object.fromEntries(
          Object.entries(base).map(([name, method]) => [
            name,
            (...args: Array<never>) => Effect.suspend(() => (power ? (method as any)(...args) : Effect.never))
          ])
        ) as unknown as DialerRepository["Service"]
      )
      const scopeA = yield* Scope.make()
      yield* Layer.buildWithScope(
        DialLoop.layer(settings("w-a")).pipe(
          Layer.provide(SimCarrier.layer),
          Layer.provide(Layer.succeed(DialerRepository, dying)),
          Layer.provideMerge(MemoryDialer.layer(world))
        ),
        scopeA
      )
      yield* advance(2 * SECOND)
      const held = stateOf(world, "+12025550190")
      assert.strictEqual(held.lease?.worker, "w-a")
      assert.isNotNull(held.lease?.conversationId)
      power = false
      yield* start(world, yield* Scope.Scope, "w-b")
      yield* advance(20 * SECOND)
      assert.strictEqual(stateOf(world, "+12025550190").lease?.worker, "w-a", "still held before the lease expires")
      yield* advance(50 * SECOND, SECOND)
      const [lost] = callsTo(world, "+12025550190").sort((a, b) => a.startedAt - b.startedAt)
      assert.strictEqual(lost!.terminationReason, "bot-failure")
      const after = stateOf(world, "+12025550190")
      assert.strictEqual(after.attempts >= 1, true)
      assert.notStrictEqual(after.lease?.worker, "w-a")
    }))

  describe("SDK agents (CallControllers)", () => {
    it.effect("offers each claimed contact's call with its data, then places it with the offered call id when taken or when no agent serves the campaign", () =>
      Effect.gen(function*() {
        const now = utc("2026-01-05T15:00:00Z")
        yield* TestClock.setTime(now)
        const world = seed({ numbers: ["+12025550100", "+12025550101"] }, now)
        for (const [id, data] of [["1", { name: "Ada" }], ["2", { name: "Grace", plan: 2 }]] as const) {
          world.contacts.set(id, { ...world.contacts.get(id)!, data })
        }
        const agents = remoteAgents((offer) => Effect.succeed(offer.phoneNumber === "+12025550100" ? "taken" : "none"))
        yield* startOffering(world, yield* Scope.Scope, agents)
        yield* advance(20 * SECOND)
        const offers = [...agents.offers].sort((a, b) => a.phoneNumber.localeCompare(b.phoneNumber))
        assert.deepStrictEqual(
          offers.map(({ callId: _, ...offer }) => offer),
          [
            {
              _tag: "Campaign",
              organizationId,
              campaignId,
              contactId: "1",
              phoneNumber: "+12025550100",
              data: { name: "Ada" }
            },
            {
              _tag: "Campaign",
              organizationId,
              campaignId,
              contactId: "2",
              phoneNumber: "+12025550101",
              data: { name: "Grace", plan: 2 }
            }
          ]
        )
        for (const offer of offers) {
          const [call] = callsTo(world, offer.phoneNumber)
          assert.strictEqual(call?.callId, offer.callId, offer.phoneNumber)
          assert.include(agents.placed, offer.callId)
          assert.strictEqual(stateOf(world, offer.phoneNumber).status, "COMPLETED", offer.phoneNumber)
        }
        assert.strictEqual(agents.placed.length, 2)
      }))

    it.effect("a declined offer releases the contact with no conversation and no attempt used; it is offered again after the back-off", () =>
      Effect.gen(function*() {
        const now = utc("2026-01-05T15:00:00Z")
        yield* TestClock.setTime(now)
        const world = seed({ numbers: ["+12025550100"], maxAttempts: 1 }, now)
        const agents = remoteAgents((_, index) => Effect.succeed(index === 0 ? "declined" : "taken"))
        yield* startOffering(world, yield* Scope.Scope, agents)
        yield* advance(SECOND)
        assert.strictEqual(agents.offers.length, 1)
        assert.strictEqual(world.conversations.size, 0)
        assert.deepStrictEqual(agents.placed, [])
        assert.deepStrictEqual(stateOf(world, "+12025550100"), {
          ...ContactState.initial(now),
          nextAttemptAt: now + ContactState.carrierBackoffMs
        })
        yield* advanceTo(now + ContactState.carrierBackoffMs - SECOND, SECOND)
        assert.strictEqual(agents.offers.length, 1, "not offered again before the back-off")
        yield* advance(20 * SECOND)
        assert.strictEqual(agents.offers.length, 2)
        const [call] = callsTo(world, "+12025550100")
        assert.strictEqual(call?.callId, agents.offers[1]!.callId)
        assert.strictEqual(call?.startedAt, now + ContactState.carrierBackoffMs)
        const state = stateOf(world, "+12025550100")
        assert.strictEqual(state.status, "COMPLETED")
        assert.strictEqual(state.attempts, 1)
      }))

    it.effect("a claim stays held, its lease live, while the offer waits; an offer unanswered past the engine's bound counts as declined", () =>
      Effect.gen(function*() {
        const now = utc("2026-01-05T15:00:00Z")
        yield* TestClock.setTime(now)
        const world = seed({ numbers: ["+12025550100"] }, now)
        const agents = remoteAgents(() => Effect.never)
        yield* startOffering(world, yield* Scope.Scope, agents)
        // The engine bounds an offer at 20 s (the port's implementation answers within a few).
        yield* advance(19 * SECOND)
        const held = stateOf(world, "+12025550100")
        assert.strictEqual(held.lease?.worker, "w-1")
        assert.isAbove(held.lease!.expiresAt, now + 30 * SECOND, "renewed while the offer waits")
        yield* advance(2 * SECOND)
        assert.strictEqual(agents.offers.length, 1)
        assert.strictEqual(world.conversations.size, 0)
        assert.deepStrictEqual(stateOf(world, "+12025550100"), {
          ...ContactState.initial(now),
          nextAttemptAt: now + 20 * SECOND + ContactState.carrierBackoffMs
        })
      }))
  })

  describe("shutdown", () => {
    const stopWhileTimePasses = (scope: Scope.Closeable, ms: number) =>
      Effect.gen(function*() {
        const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
        yield* advance(ms)
        yield* Fiber.join(closing)
      })

    it.effect("lets a call in progress end within drainMs, and stops dialing", () =>
      Effect.gen(function*() {
        const now = utc("2026-01-05T15:00:00Z")
        yield* TestClock.setTime(now)
        const world = seed({ numbers: ["+12025550100"] }, now)
        const scope = yield* Scope.make()
        yield* Layer.buildWithScope(
          DialLoop.layer(DialerSettings.make("w-1", { drainMs: 30 * SECOND })).pipe(
            Layer.provide(SimCarrier.layer),
            Layer.provideMerge(MemoryDialer.layer(world))
          ),
          scope
        )
        yield* advance(2 * SECOND)
        assert.isNotNull(stateOf(world, "+12025550100").lease)
        yield* stopWhileTimePasses(scope, 10 * SECOND)
        const state = stateOf(world, "+12025550100")
        assert.strictEqual(state.status, "COMPLETED")
        assert.strictEqual(callsTo(world, "+12025550100")[0]!.terminationReason, "user-hangup")
      }))

    it.effect("releases a claim whose offer is still waiting, or answered while the loop stops, with no call", () =>
      Effect.gen(function*() {
        const now = utc("2026-01-05T15:00:00Z")
        yield* TestClock.setTime(now)
        for (const drainMs of [0, 30 * SECOND]) {
          const world = seed({ numbers: ["+12025550100"] }, now)
          // Without a drain the waiting offer is interrupted; with one it is taken while stopping.
          const answered = yield* Deferred.make<OfferAnswer>()
          const agents = remoteAgents(() => Deferred.await(answered))
          const scope = yield* Scope.make()
          yield* startOffering(world, scope, agents, DialerSettings.make("w-1", { drainMs }))
          yield* advance(SECOND)
          assert.strictEqual(agents.offers.length, 1)
          assert.isNotNull(stateOf(world, "+12025550100").lease)
          const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
          yield* advance(SECOND)
          yield* Deferred.succeed(answered, "taken")
          yield* advance(SECOND)
          yield* Fiber.join(closing)
          assert.deepStrictEqual(stateOf(world, "+12025550100"), ContactState.initial(now), `drainMs ${drainMs}`)
          assert.strictEqual(world.conversations.size, 0)
          assert.deepStrictEqual(agents.placed, [])
          if (drainMs > 0) {
            // The agent that took it is told the call failed, so its session ends.
            const events = world.events.get(agents.offers[0]!.callId) ?? []
            assert.deepStrictEqual(events.map((event) => event._tag === "Ended" ? event.reason : event._tag), [
              "failed"
            ])
          }
        }
      }))

    it.effect("hangs up a call still going after drainMs and records it as bot-failure", () =>
      Effect.gen(function*() {
        const now = utc("2026-01-05T15:00:00Z")
        yield* TestClock.setTime(now)
        const world = seed({ numbers: ["+12025550100"], maxAttempts: 3 }, now)
        const scope = yield* Scope.make()
        yield* Layer.buildWithScope(
          DialLoop.layer(DialerSettings.make("w-1", { drainMs: 500 })).pipe(
            Layer.provide(SimCarrier.layer),
            Layer.provideMerge(MemoryDialer.layer(world))
          ),
          scope
        )
        yield* advance(2 * SECOND)
        yield* stopWhileTimePasses(scope, 2 * SECOND)
        const state = stateOf(world, "+12025550100")
        assert.strictEqual(state.status, "PARTIALLY_COMPLETED")
        assert.isNull(state.lease)
        assert.strictEqual(callsTo(world, "+12025550100")[0]!.terminationReason, "bot-failure")
      }))
  })
})
