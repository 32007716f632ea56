/**
 * The dialer's ports in memory, for tests of the loop under `TestClock` and for embedders who
 * want to try the engine without a database: `DialerRepository`, `CallEvents` and
 * `DialerWakeup` over one {@link World}. Every transition is ContactState's, as in the SQL
 * implementation; caps count live leases the same way. One process only.
 *
 * @since 0.1.0
 */
import type { CallingSchedule } from "@voice-agent/core/CallingSchedule"
import type { ContactData } from "@voice-agent/core/Contact"
import * as ContactState from "@voice-agent/core/ContactState"
import type { TerminationReason } from "@voice-agent/core/Conversation"
import type { E164 } from "@voice-agent/core/PhoneNumber"
import type { CallEvent } from "@voice-agent/core/ports/CallEvents"
import { CallEvents, inReplayOrder, isLast } from "@voice-agent/core/ports/CallEvents"
import type { ClaimedContact } from "@voice-agent/core/ports/DialerRepository"
import { DialerRepository } from "@voice-agent/core/ports/DialerRepository"
import { DialerWakeup } from "@voice-agent/core/ports/DialerWakeup"
import { ServerSecrets } from "@voice-agent/core/ports/ServerSecrets"
import { Effect, Layer, Option, PubSub, Stream } from "effect"

/**
 * @category models
 */
export interface MemoryCampaign {
  readonly id: string
  readonly organizationId: string
  schedule: CallingSchedule
  maxAttempts: number
  retryDelayS: number
  maxConcurrency: number
  enabled: boolean
  deleted: boolean
  originPhoneNumbers: ReadonlyArray<E164>
  dials: number
}

/**
 * @category models
 */
export interface MemoryContact {
  readonly id: string
  readonly campaignId: string
  readonly organizationId: string
  readonly phoneNumber: E164
  readonly data: ContactData
  state: ContactState.ContactDialState
}

/**
 * @category models
 */
export interface MemoryConversation {
  readonly id: string
  readonly callId: string
  readonly contactId: string
  readonly campaignId: string
  readonly from: E164
  readonly to: E164
  readonly startedAt: number
  answeredAt: number | null
  endedAt: number | null
  durationSec: number | null
  terminationReason: TerminationReason | null
}

/**
 * Everything the in-memory dialer knows; tests read and change it directly.
 *
 * @category models
 */
export interface World {
  readonly organizations: Map<string, { maxConcurrency: number; dialingEnabled: boolean }>
  readonly campaigns: Map<string, MemoryCampaign>
  readonly contacts: Map<string, MemoryContact>
  readonly dnc: Set<string>
  readonly conversations: Map<string, MemoryConversation>
  readonly events: Map<string, Array<CallEvent>>
}

/**
 * @category constructors
 */
export const makeWorld = (): World => ({
  organizations: new Map(),
  campaigns: new Map(),
  contacts: new Map(),
  dnc: new Set(),
  conversations: new Map(),
  events: new Map()
})

const dncKey = (organizationId: string, phoneNumber: string) => `${organizationId} ${phoneNumber}`

const policyOf = (campaign: MemoryCampaign): ContactState.RetryPolicy => ({
  maxAttempts: campaign.maxAttempts,
  retryDelayS: campaign.retryDelayS,
  schedule: campaign.schedule
})

const dialingOf = (campaign: MemoryCampaign): ContactState.CampaignDialing => ({
  enabled: campaign.enabled,
  deleted: campaign.deleted,
  maxAttempts: campaign.maxAttempts,
  schedule: campaign.schedule
})

const live = (world: World, now: number, where: (contact: MemoryContact) => boolean) =>
  [...world.contacts.values()].filter((contact) => ContactState.isBeingDialed(contact.state, now) && where(contact))
    .length

let sequence = 0
const nextId = () => `00000000-0000-4000-8000-${String(++sequence).padStart(12, "0")}`

const closeConversation = (
  world: World,
  conversationId: string,
  reason: TerminationReason,
  answeredAt: number | null,
  endedAt: number
) => {
  const conversation = world.conversations.get(conversationId)
  if (conversation === undefined || conversation.endedAt !== null) return
  conversation.answeredAt = answeredAt
  conversation.endedAt = endedAt
  conversation.durationSec = answeredAt === null ? 0 : Math.max(0, Math.floor((endedAt - answeredAt) / 1000))
  conversation.terminationReason = reason
}

/**
 * `DialerRepository` over `world`.
 *
 * @category constructors
 */
export const repository = (world: World): DialerRepository["Service"] => {
  const held = (contactId: string, worker: string) => {
    const contact = world.contacts.get(contactId)
    return contact !== undefined && contact.state.lease?.worker === worker ? contact : undefined
  }
  return DialerRepository.of({
    dialableCampaigns: (now) =>
      Effect.sync(() =>
        [...world.campaigns.values()]
          .filter((c) => c.enabled && !c.deleted && world.organizations.get(c.organizationId)?.dialingEnabled === true)
          .map((c) => {
            const due = [...world.contacts.values()]
              .filter((k) =>
                k.campaignId === c.id && k.state.status === "TRYING" && k.state.lease === null &&
                k.state.attempts < c.maxAttempts && !world.dnc.has(dncKey(k.organizationId, k.phoneNumber))
              )
              .map((k) => k.state.nextAttemptAt ?? Number.POSITIVE_INFINITY)
            const nextDueAt = due.length === 0 ? null : Math.min(...due)
            void now
            return {
              id: c.id,
              organizationId: c.organizationId,
              schedule: c.schedule,
              maxAttempts: c.maxAttempts,
              nextDueAt
            }
          })
      ),
    claim: ({ worker, campaignIds, now, leaseMs, limit }) =>
      Effect.sync(() => {
        const claimed: Array<ClaimedContact> = []
        const candidates = [...world.contacts.values()]
          .filter((k) => {
            const campaign = world.campaigns.get(k.campaignId)
            return campaign !== undefined && campaignIds.includes(campaign.id) &&
              world.organizations.get(campaign.organizationId)?.dialingEnabled === true &&
              ContactState.isCallable(
                k.state,
                dialingOf(campaign),
                world.dnc.has(dncKey(k.organizationId, k.phoneNumber)),
                now
              )
          })
          .sort((a, b) => (a.state.nextAttemptAt ?? 0) - (b.state.nextAttemptAt ?? 0) || Number(a.id) - Number(b.id))
        for (const contact of candidates) {
          if (claimed.length >= limit) break
          const campaign = world.campaigns.get(contact.campaignId)!
          const organization = world.organizations.get(contact.organizationId)!
          if (live(world, now, (k) => k.campaignId === campaign.id) >= campaign.maxConcurrency) continue
          if (live(world, now, (k) => k.organizationId === contact.organizationId) >= organization.maxConcurrency) {
            continue
          }
          contact.state = ContactState.claim(contact.state, worker, now, leaseMs)
          claimed.push({
            contactId: contact.id,
            campaignId: contact.campaignId,
            organizationId: contact.organizationId,
            phoneNumber: contact.phoneNumber,
            data: contact.data
          })
        }
        return claimed
      }),
    startCall: ({ contactId, worker, callId, now }) =>
      Effect.sync(() => {
        const contact = held(contactId, worker)
        if (contact === undefined || contact.state.status !== "TRYING") {
          return { _tag: "NotPlaced", reason: "claim-lost" } as const
        }
        const campaign = world.campaigns.get(contact.campaignId)!
        if (world.dnc.has(dncKey(contact.organizationId, contact.phoneNumber))) {
          contact.state = ContactState.release(contact.state, "do-not-call", policyOf(campaign), now)
          return { _tag: "NotPlaced", reason: "do-not-call" } as const
        }
        if (
          !campaign.enabled || campaign.deleted ||
          world.organizations.get(campaign.organizationId)?.dialingEnabled !== true
        ) {
          contact.state = ContactState.release(contact.state, "campaign-stopped", policyOf(campaign), now)
          return { _tag: "NotPlaced", reason: "campaign-stopped" } as const
        }
        const from = campaign.originPhoneNumbers[campaign.dials % campaign.originPhoneNumbers.length]!
        campaign.dials++
        const id = nextId()
        world.conversations.set(id, {
          id,
          callId,
          contactId,
          campaignId: campaign.id,
          from,
          to: contact.phoneNumber,
          startedAt: now,
          answeredAt: null,
          endedAt: null,
          durationSec: null,
          terminationReason: null
        })
        contact.state = ContactState.dial(contact.state, id, now)
        return { _tag: "Dial", conversationId: id, from } as const
      }),
    endCall: (end) =>
      Effect.sync(() => {
        closeConversation(
          world,
          end.conversationId,
          ContactState.terminationReasonFor(end.outcome, end.endedBy),
          end.answeredAt,
          end.endedAt
        )
        const contact = held(end.contactId, end.worker)
        if (contact === undefined || contact.state.lease?.conversationId !== end.conversationId) return
        const campaign = world.campaigns.get(contact.campaignId)!
        contact.state = ContactState.applyOutcome(contact.state, end.outcome, policyOf(campaign), end.endedAt)
      }),
    release: ({ contactId, worker, reason, now, conversationId }) =>
      Effect.sync(() => {
        if (conversationId !== undefined) world.conversations.delete(conversationId)
        const contact = held(contactId, worker)
        if (contact === undefined) return
        const campaign = world.campaigns.get(contact.campaignId)!
        contact.state = ContactState.release(contact.state, reason, policyOf(campaign), now)
      }),
    renewLeases: ({ worker, now, leaseMs }) =>
      Effect.sync(() => {
        let renewed = 0
        for (const contact of world.contacts.values()) {
          const lease = contact.state.lease
          if (lease?.worker !== worker) continue
          contact.state = { ...contact.state, lease: { ...lease, expiresAt: now + leaseMs } }
          renewed++
        }
        return renewed
      }),
    // The world keeps no call events, turns or recordings: a lost call ends unanswered, 0 s.
    recoverExpired: ({ now, limit }) =>
      Effect.sync(() => {
        let recovered = 0
        for (const contact of world.contacts.values()) {
          if (recovered >= limit) break
          if (!ContactState.hasExpiredLease(contact.state, now)) continue
          const conversationId = contact.state.lease?.conversationId
          if (conversationId != null) closeConversation(world, conversationId, "bot-failure", null, now)
          contact.state = ContactState.recover(contact.state, policyOf(world.campaigns.get(contact.campaignId)!), now)
          recovered++
        }
        return recovered
      }),
    inspect: (campaignId, contactId, now) =>
      Effect.sync(() => {
        const contact = world.contacts.get(contactId)
        const campaign = world.campaigns.get(campaignId)
        if (contact === undefined || campaign === undefined || contact.campaignId !== campaignId) {
          return Option.none()
        }
        const organization = world.organizations.get(campaign.organizationId)!
        return Option.some({
          state: contact.state,
          isOnDnc: world.dnc.has(dncKey(contact.organizationId, contact.phoneNumber)),
          load: {
            campaignActive: live(world, now, (k) => k.campaignId === campaignId),
            campaignMax: campaign.maxConcurrency,
            organizationActive: live(world, now, (k) => k.organizationId === campaign.organizationId),
            organizationMax: organization.maxConcurrency
          }
        })
      })
  })
}

/**
 * `CallEvents` over `world` (events kept per call, one of each kind).
 *
 * @category constructors
 */
export const callEvents = (world: World): Effect.Effect<CallEvents["Service"]> =>
  Effect.gen(function*() {
    const published = yield* PubSub.unbounded<{ readonly callId: string; readonly event: CallEvent }>()
    return CallEvents.of({
      publish: (callId, event) =>
        Effect.suspend(() => {
          const recorded = world.events.get(callId) ?? []
          if (recorded.some((e) => e._tag === event._tag)) return Effect.void
          world.events.set(callId, [...recorded, event])
          return PubSub.publish(published, { callId, event })
        }),
      subscribe: (callId) =>
        Effect.gen(function*() {
          const subscription = yield* PubSub.subscribe(published)
          const already = inReplayOrder(world.events.get(callId) ?? [])
          const seen = new Set<CallEvent["_tag"]>()
          const later = Stream.fromSubscription(subscription).pipe(
            Stream.filter((item) => item.callId === callId && !already.some((e) => e._tag === item.event._tag)),
            Stream.map((item) => item.event)
          )
          return Stream.concat(Stream.fromIterable(already), later).pipe(
            Stream.takeUntil((event) => {
              seen.add(event._tag)
              return isLast(seen)
            })
          )
        })
    })
  })

/**
 * An in-process `DialerWakeup`.
 *
 * @category constructors
 */
export const wakeup: Effect.Effect<DialerWakeup["Service"]> = Effect.gen(function*() {
  const pubsub = yield* PubSub.sliding<void>(16)
  return DialerWakeup.of({
    notify: PubSub.publish(pubsub, undefined).pipe(Effect.asVoid),
    wakeups: Effect.map(PubSub.subscribe(pubsub), Stream.fromSubscription)
  })
})

/**
 * Installation secrets with a fixed key (tests only).
 *
 * @category constructors
 */
export const serverSecrets: ServerSecrets["Service"] = ServerSecrets.of({
  cursorKey: Effect.succeed(new Uint8Array(32).fill(42))
})

/**
 * The three ports over `world`, and fixed installation secrets.
 *
 * @category layers
 */
export const layer = (world: World): Layer.Layer<DialerRepository | CallEvents | DialerWakeup | ServerSecrets> =>
  Layer.mergeAll(
    Layer.succeed(DialerRepository, repository(world)),
    Layer.effect(CallEvents, callEvents(world)),
    Layer.effect(DialerWakeup, wakeup),
    Layer.succeed(ServerSecrets, serverSecrets)
  )
