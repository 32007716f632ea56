/**
 * The webhook events the dialer's and the DNC sweep's transactions write with the changes they
 * report (SqlDialerRepository, sql/recoverExpiredLeases, SqlDncRepository), on both backends:
 * `call.started` and `call.ended` with the conversation in the API's Conversation shape,
 * `contact.status_changed` with the Contact resource, each exactly when the change happens.
 */
import { assert, describe, layer } from "@effect/vitest"
import type { CampaignRecord } from "@voice-agent/core/Campaign"
import type { E164 } from "@voice-agent/core/PhoneNumber"
import { ContactRepository } from "@voice-agent/core/ports/ContactRepository"
import { DialerRepository } from "@voice-agent/core/ports/DialerRepository"
import { DncRepository } from "@voice-agent/core/ports/DncRepository"
import { WebhookRepository } from "@voice-agent/core/ports/WebhookRepository"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import * as SqlStorage from "./SqlStorage.ts"
import * as Fixtures from "./testing/Fixtures.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

/** Monday 2026-03-02, 09:00 in Los Angeles: inside the fixtures' Monday 9-to-5 window. */
const now = Date.parse("2026-03-02T17:00:00.000Z")
const leaseMs = 30_000
const seconds = (n: number) => now + n * 1000

interface Written {
  readonly type: string
  // The event's data, read field by field in the assertions.
  readonly payload: any
}

/** A campaign (max attempts as given) of a fresh organization with one endpoint for every event. */
const campaignWithEndpoint = (maxAttempts = 3, subscribe = true) =>
  Effect.gen(function*() {
    const org = yield* Fixtures.organization({ maxConcurrency: 100 })
    const campaign = yield* Fixtures.campaign(org.id, { maxConcurrency: 100, maxAttempts })
    if (subscribe) {
      const webhooks = yield* WebhookRepository
      yield* webhooks.createEndpoint({ organizationId: org.id, url: "http://127.0.0.1:9/", events: null, now })
    }
    return { org, campaign }
  })

const upload = (campaign: CampaignRecord, numbers: ReadonlyArray<E164>) =>
  ContactRepository.use((contacts) =>
    contacts.upload(campaign, numbers.map((n) => Fixtures.contact(n, { name: `Ada ${n.slice(-2)}` })), {
      allowDuplicates: false,
      now: new Date(seconds(-60))
    })
  ).pipe(Effect.orDie)

/** The organization's events in the order they were written (their deliveries' order). */
const written = (organizationId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<Written>`
      SELECT e.type AS "type", e.payload AS "payload"
      FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id
      WHERE e.organization_id = ${organizationId}
      ORDER BY d.id`)

const claimOne = (campaign: CampaignRecord, at = now) =>
  Effect.gen(function*() {
    const dialer = yield* DialerRepository
    const [claimed] = yield* dialer.claim({ worker: "w", campaignIds: [campaign.id], now: at, leaseMs, limit: 1 })
    return claimed!
  })

const callId = () => `call-${randomBytes(6).toString("hex")}`

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`webhook events of the dialer on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "60 seconds" })((it) => {
      it.effect("a call: call.started when it starts; call.ended and the new status when it ends", () =>
        Effect.gen(function*() {
          const dialer = yield* DialerRepository
          const { campaign, org } = yield* campaignWithEndpoint()
          yield* upload(campaign, [Fixtures.e164(1)])
          const claim = yield* claimOne(campaign)
          assert.deepStrictEqual(yield* written(org.id), [], "a claim is no event")
          const id = callId()
          const start = yield* dialer.startCall({ contactId: claim.contactId, worker: "w", callId: id, now })
          assert.strictEqual(start._tag, "Dial")
          if (start._tag !== "Dial") return
          const started = yield* written(org.id)
          const conversation = {
            id: start.conversationId,
            call_id: id,
            ts: new Date(now).toISOString(),
            direction: "outbound",
            from_number: start.from,
            to_number: Fixtures.e164(1),
            duration_sec: null,
            campaign_id: campaign.id,
            termination_reason: null
          }
          assert.deepStrictEqual(started, [
            { type: "call.started", payload: { conversation, contact_id: claim.contactId } }
          ])

          yield* dialer.endCall({
            contactId: claim.contactId,
            worker: "w",
            conversationId: start.conversationId,
            outcome: "completed",
            endedBy: "remote",
            answeredAt: seconds(2),
            endedAt: seconds(9)
          })
          const all = yield* written(org.id)
          assert.deepStrictEqual(all.slice(1), [
            {
              type: "call.ended",
              payload: {
                conversation: { ...conversation, duration_sec: 7, termination_reason: "user-hangup" },
                contact_id: claim.contactId
              }
            },
            {
              type: "contact.status_changed",
              payload: {
                contact: {
                  id: claim.contactId,
                  phone_number: Fixtures.e164(1),
                  status: "COMPLETED",
                  data: { name: "Ada 01" }
                },
                previous_status: "TRYING",
                campaign_id: campaign.id
              }
            }
          ])
          // The call's end is recorded once: a repeated end writes nothing more.
          yield* dialer.endCall({
            contactId: claim.contactId,
            worker: "w",
            conversationId: start.conversationId,
            outcome: "completed",
            endedBy: "remote",
            answeredAt: seconds(2),
            endedAt: seconds(10)
          })
          assert.strictEqual((yield* written(org.id)).length, 3)
        }))

      it.effect("a call retried later: call.ended and no status change; the last attempt fails the contact", () =>
        Effect.gen(function*() {
          const dialer = yield* DialerRepository
          const { campaign, org } = yield* campaignWithEndpoint(1)
          yield* upload(campaign, [Fixtures.e164(2), Fixtures.e164(3)])
          // Max 1 attempt: busy fails the contact at once.
          const claim = yield* claimOne(campaign)
          const start = yield* dialer.startCall({ contactId: claim.contactId, worker: "w", callId: callId(), now })
          if (start._tag !== "Dial") return assert.fail(start.reason)
          yield* dialer.endCall({
            contactId: claim.contactId,
            worker: "w",
            conversationId: start.conversationId,
            outcome: "busy",
            endedBy: "remote",
            answeredAt: null,
            endedAt: seconds(3)
          })
          const events = yield* written(org.id)
          assert.deepStrictEqual(events.map((e) => e.type), ["call.started", "call.ended", "contact.status_changed"])
          assert.include(events[1]!.payload.conversation, { duration_sec: 0, termination_reason: "busy" })
          assert.strictEqual(events[2]!.payload.contact.status, "FAILED")

          const retried = yield* campaignWithEndpoint(3)
          yield* upload(retried.campaign, [Fixtures.e164(4)])
          const again = yield* claimOne(retried.campaign)
          const call = yield* dialer.startCall({ contactId: again.contactId, worker: "w", callId: callId(), now })
          if (call._tag !== "Dial") return assert.fail(call.reason)
          yield* dialer.endCall({
            contactId: again.contactId,
            worker: "w",
            conversationId: call.conversationId,
            outcome: "no-answer",
            endedBy: "remote",
            answeredAt: null,
            endedAt: seconds(3)
          })
          assert.deepStrictEqual((yield* written(retried.org.id)).map((e) => e.type), ["call.started", "call.ended"])
        }))

      it.effect("a refused call is ended as failed; a lost call ends as bot-failure; the DNC sweep fails contacts", () =>
        Effect.gen(function*() {
          const dialer = yield* DialerRepository
          const { campaign, org } = yield* campaignWithEndpoint(1)
          yield* upload(campaign, [Fixtures.e164(5), Fixtures.e164(6), Fixtures.e164(7)])

          // The carrier refused the call before placing it (retryable): its record goes.
          const refused = yield* claimOne(campaign)
          const start = yield* dialer.startCall({ contactId: refused.contactId, worker: "w", callId: callId(), now })
          if (start._tag !== "Dial") return assert.fail(start.reason)
          yield* dialer.release({
            contactId: refused.contactId,
            worker: "w",
            reason: "carrier-retryable",
            now: seconds(1),
            conversationId: start.conversationId
          })
          const afterRefusal = yield* written(org.id)
          assert.deepStrictEqual(afterRefusal.map((e) => e.type), ["call.started", "call.ended"])
          assert.include(afterRefusal[1]!.payload.conversation, {
            id: start.conversationId,
            duration_sec: 0,
            termination_reason: "failed"
          })

          // A daemon died mid-call: recovery closes the call and, with no attempt left, fails the contact.
          const lost = yield* claimOne(campaign, seconds(2))
          const mine = yield* dialer.startCall({
            contactId: lost.contactId,
            worker: "w",
            callId: callId(),
            now: seconds(2)
          })
          if (mine._tag !== "Dial") return assert.fail(mine.reason)
          const recovered = yield* dialer.recoverExpired({ now: seconds(2) + leaseMs + 1, limit: 100 })
          assert.isAtLeast(recovered, 1)
          const afterRecovery = (yield* written(org.id)).slice(afterRefusal.length)
          assert.deepStrictEqual(afterRecovery.map((e) => e.type), [
            "call.started",
            "call.ended",
            "contact.status_changed"
          ])
          assert.include(afterRecovery[1]!.payload.conversation, {
            id: mine.conversationId,
            termination_reason: "bot-failure"
          })
          assert.include(afterRecovery[2]!.payload, { previous_status: "TRYING" })
          assert.strictEqual(afterRecovery[2]!.payload.contact.id, lost.contactId)
          assert.strictEqual(afterRecovery[2]!.payload.contact.status, "FAILED")

          // A number put on the DNC list fails its TRYING contacts, each with its event.
          const listed = yield* campaignWithEndpoint(3)
          yield* upload(listed.campaign, [Fixtures.e164(10), Fixtures.e164(11), Fixtures.e164(12)])
          const dnc = yield* DncRepository
          const added = yield* dnc.add(listed.org.id, [Fixtures.e164(12), Fixtures.e164(10)])
          assert.strictEqual(added.contactsFailed, 2)
          const swept = yield* written(listed.org.id)
          assert.deepStrictEqual(
            swept.map((e) =>
              [e.type, e.payload.contact.phone_number, e.payload.contact.status, e.payload.previous_status].join(" ")
            ).sort((a, b) => a.localeCompare(b)),
            [
              `contact.status_changed ${Fixtures.e164(10)} FAILED TRYING`,
              `contact.status_changed ${Fixtures.e164(12)} FAILED TRYING`
            ]
          )
          assert.deepStrictEqual(swept[0]!.payload.campaign_id, listed.campaign.id)
        }))

      it.effect("an organization with no endpoint gets no event written", () =>
        Effect.gen(function*() {
          const dialer = yield* DialerRepository
          const { campaign, org } = yield* campaignWithEndpoint(1, false)
          yield* upload(campaign, [Fixtures.e164(8)])
          const claim = yield* claimOne(campaign)
          const start = yield* dialer.startCall({ contactId: claim.contactId, worker: "w", callId: callId(), now })
          if (start._tag !== "Dial") return assert.fail(start.reason)
          yield* dialer.endCall({
            contactId: claim.contactId,
            worker: "w",
            conversationId: start.conversationId,
            outcome: "completed",
            endedBy: "agent",
            answeredAt: seconds(1),
            endedAt: seconds(4)
          })
          assert.deepStrictEqual(yield* written(org.id), [])
        }))
    })
  })
}
