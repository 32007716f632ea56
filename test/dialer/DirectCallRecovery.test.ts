/**
 * A direct call (`POST /v1/create-outbound`) whose follower died with its daemon is recovered
 * like a campaign call whose lease expired (docs/DIALER.md, "Lost calls"), on both backends: a
 * sweep of any daemon's `DirectCalls` closes it as `bot-failure` with what was recorded of it
 * (its answer from the carrier's `Answered`, its duration up to its last turn) and writes its
 * `call.ended`; a call that may still be followed is left alone.
 */
import { assert, describe, layer } from "@effect/vitest"
import { CallEvents } from "@voice-agent/core/ports/CallEvents"
import { Carrier } from "@voice-agent/core/ports/Carrier"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import * as DirectCallsModule from "@voice-agent/engine/DirectCalls"
import * as MemoryDialer from "@voice-agent/engine/testing/MemoryDialer"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import * as Fixtures from "@voice-agent/store-sql/testing/Fixtures"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Clock, Duration, Effect, Layer, Option, Schedule } from "effect"

const carrier = Layer.succeed(
  Carrier,
  Carrier.of({
    placeCall: () => Effect.die("unused"),
    hangUp: () => Effect.die("unused"),
    transfer: () => Effect.die("unused"),
    sendSms: () => Effect.die("unused")
  })
)

// Followed at the most 10.6 s (ring, call, the carrier's report after a hang-up): calls started
// longer ago than that, the verdict's grace and a sweep are no daemon's any more.
const settings: DirectCallsModule.DirectCallSettings = {
  ...DirectCallsModule.defaults(Effect.succeed("ws://127.0.0.1:9/carrier/twilio/media")),
  ringTimeoutMs: 100,
  maxCallMs: 500,
  sweepEveryMs: 200
}

for (const backend of await TestDatabase.backends()) {
  const stack = DirectCallsModule.layer(settings).pipe(
    Layer.provideMerge(Layer.mergeAll(
      SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)),
      Layer.succeed(ServerSecrets, MemoryDialer.serverSecrets),
      carrier
    ))
  )
  describe.skipIf(backend.skip !== undefined)(`a direct call no daemon follows any more, on ${backend.name}`, () => {
    layer(stack, { timeout: "60 seconds", excludeTestServices: true })((it) => {
      it.effect("is closed as bot-failure with its duration, and announced as call.ended", () =>
        Effect.gen(function*() {
          const conversations = yield* ConversationRepository
          const webhooks = yield* WebhookRepository
          const org = yield* Fixtures.organization()
          const now = yield* Clock.currentTimeMillis
          const { endpoint } = yield* webhooks.createEndpoint({
            organizationId: org.id,
            url: "http://127.0.0.1:9/hooks",
            events: null,
            now
          })
          // placed by a daemon that died 50 s later (its follower is gone), and one placed now
          const direct = {
            callId: `orphan-${now}`,
            organizationId: org.id,
            campaignId: null,
            contactId: null,
            direction: "outbound" as const,
            fromNumber: Fixtures.randomE164(),
            toNumber: Fixtures.randomE164(),
            startedAt: new Date(now - 60_000),
            answeredAt: null,
            endedAt: null,
            durationSec: null,
            terminationReason: null
          }
          const recent = yield* conversations.insert({ ...direct, callId: `recent-${now}`, startedAt: new Date(now) })
          const orphan = yield* conversations.insert(direct)
          // what the carrier and its dead daemon recorded: the answer, a turn 9.5 s into the call
          yield* (yield* CallEvents).publish(orphan.callId, { _tag: "Answered", at: now - 59_000, answeredBy: "human" })
          yield* conversations.appendTurns(orphan.id, [{ speaker: "HUMAN", text: "Still there?", offsetMs: 9_500 }])

          const closed = yield* conversations.findByCallId(org.id, orphan.callId).pipe(
            Effect.map(Option.getOrThrow),
            Effect.filterOrFail((c) => c.endedAt !== null, () => "in progress" as const),
            Effect.retry(Schedule.spaced(Duration.millis(25))),
            Effect.timeout(Duration.seconds(10))
          )
          assert.strictEqual(closed.terminationReason, "bot-failure")
          assert.deepStrictEqual(closed.answeredAt, new Date(now - 59_000))
          // the part recorded (docs/DIALER.md, "Lost calls"): up to its last turn, in whole seconds
          assert.strictEqual(closed.durationSec, 10)
          const deliveries = yield* webhooks.listDeliveries({
            organizationId: org.id,
            endpointId: endpoint.id,
            limit: 10
          })
          assert.deepStrictEqual(deliveries.deliveries.map((d) => d.eventType), ["call.ended"])
          const open = yield* conversations.findByCallId(org.id, recent.callId)
          assert.isNull(Option.getOrThrow(open).endedAt)
        }))
    })
  })
}
