import { assert, describe, layer } from "@effect/vitest"
import type { AgentDefinition, NewAgentDefinition } from "@voice-agent/core/AgentDefinition"
import { AgentRepository } from "@voice-agent/core/ports/AgentRepository"
import { CampaignRepository } from "@voice-agent/core/ports/CampaignRepository"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { PhoneNumberRepository } from "@voice-agent/core/ports/PhoneNumberRepository"
import { Effect, Exit, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import * as SqlStorage from "./SqlStorage.ts"
import * as Fixtures from "./testing/Fixtures.ts"
import * as TestDatabase from "./testing/TestDatabase.ts"

const base = new Date("2026-03-02T17:00:00.000Z")
const at = (seconds: number) => new Date(base.getTime() + seconds * 1000)

const definition = (overrides?: Partial<NewAgentDefinition>): NewAgentDefinition => ({
  name: `agent-${randomBytes(4).toString("hex")}`,
  persona: { agent_name: "Riley", organization_name: "Acme Dental", agent_purpose: "book visits", voice: null },
  task: {
    objective: "Book a cleaning",
    completion_criteria: null,
    action_items: [
      { item_type: "say", key: "hello", statement: "Hi, this is Riley from Acme Dental." },
      { item_type: "field", key: "name", field_type: "text", question: "May I have your name?", choices: [] },
      {
        item_type: "field",
        key: "slot",
        field_type: "multiple_choice",
        question: "Morning or afternoon?",
        required: true,
        choices: ["morning", "afternoon"]
      },
      { item_type: "todo", key: "confirm", description: "Confirm the booking" }
    ]
  },
  instructions: null,
  language: "en-US",
  llm: null,
  stt: null,
  tts: null,
  ...overrides
})

const number = (organizationId: string) =>
  PhoneNumberRepository.use((numbers) =>
    numbers.add(organizationId, { phoneNumber: Fixtures.randomE164(), smsEnabled: true })
  ).pipe(Effect.orDie, Effect.map((owned) => owned.phoneNumber))

const call = (organizationId: string, fields: {
  readonly direction: "inbound" | "outbound"
  readonly campaignId?: string | null
  readonly fromNumber?: string
  readonly toNumber?: string
}) =>
  ConversationRepository.use((conversations) =>
    conversations.insert({
      callId: `call-${randomBytes(8).toString("hex")}`,
      organizationId,
      campaignId: fields.campaignId ?? null,
      contactId: null,
      direction: fields.direction,
      fromNumber: fields.fromNumber ?? Fixtures.randomE164(),
      toNumber: fields.toNumber ?? Fixtures.randomE164(),
      startedAt: base,
      answeredAt: null,
      endedAt: null,
      durationSec: null,
      terminationReason: null
    })
  )

const failure = <A, E>(effect: Effect.Effect<A, E>) => Effect.map(Effect.flip(effect), (e) => e)

for (const backend of await TestDatabase.backends()) {
  describe.skipIf(backend.skip !== undefined)(`SqlAgentRepository on ${backend.name}`, () => {
    layer(SqlStorage.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: "60 seconds" })((it) => {
      it.effect("creates a definition with an agt- id and finds it within its organization only", () =>
        Effect.gen(function*() {
          const agents = yield* AgentRepository
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const input = definition({ instructions: "Be brief.", llm: "gpt", stt: "deepgram", tts: "voice" })
          const created = yield* agents.create(org.id, input, at(0))
          assert.match(created.id, /^agt-[0-9a-f]{20}$/)
          assert.deepStrictEqual(created, {
            ...input,
            id: created.id,
            organizationId: org.id,
            createdAt: at(0),
            updatedAt: at(0)
          })
          assert.deepStrictEqual(yield* agents.get(org.id, created.id), Option.some(created))
          assert.isTrue(Option.isNone(yield* agents.get(other.id, created.id)))
          assert.isTrue(Option.isNone(yield* agents.get(org.id, "agt-00000000000000000000")))
          assert.isTrue(Option.isNone(yield* agents.get(org.id, "nonsense")))
          assert.isTrue(Option.isNone(yield* agents.get("not-a-uuid", created.id)))
        }))

      it.effect("names are unique among an organization's live definitions", () =>
        Effect.gen(function*() {
          const agents = yield* AgentRepository
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const first = yield* agents.create(org.id, definition({ name: "Front desk" }), at(0))
          const taken = yield* failure(agents.create(org.id, definition({ name: "Front desk" }), at(1)))
          assert.strictEqual(taken._tag, "AgentNameTaken")
          yield* agents.create(other.id, definition({ name: "Front desk" }), at(1))
          const second = yield* agents.create(org.id, definition({ name: "Back office" }), at(2))
          const renamed = yield* failure(agents.update(org.id, second.id, { name: "Front desk" }, at(3)))
          assert.strictEqual(renamed._tag, "AgentNameTaken")
          yield* agents.delete(org.id, first.id, at(4))
          const reused = yield* agents.create(org.id, definition({ name: "Front desk" }), at(5))
          assert.notStrictEqual(reused.id, first.id)
        }))

      it.effect("updates only the supplied fields, null clears, and stamps updatedAt", () =>
        Effect.gen(function*() {
          const agents = yield* AgentRepository
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const created = yield* agents.create(org.id, definition({ instructions: "Be brief.", llm: "gpt" }), at(0))
          const task = {
            objective: "Say hello",
            action_items: [{ item_type: "say" as const, key: "hi", statement: "Hi" }]
          }
          const updated = yield* agents.update(org.id, created.id, { task, instructions: null, llm: null }, at(10))
          assert.deepStrictEqual(updated, {
            ...created,
            task,
            instructions: null,
            llm: null,
            updatedAt: at(10)
          })
          assert.deepStrictEqual(yield* agents.get(org.id, created.id), Option.some(updated))
          const untouched = yield* agents.update(org.id, created.id, {}, at(11))
          assert.deepStrictEqual(untouched, { ...updated, updatedAt: at(11) })
          assert.strictEqual(
            (yield* failure(agents.update(other.id, created.id, { name: "x" }, at(12))))._tag,
            "AgentNotFound"
          )
          assert.strictEqual(
            (yield* failure(agents.update(org.id, "bad", { name: "x" }, at(12))))._tag,
            "AgentNotFound"
          )
        }))

      it.effect("lists live definitions newest first, page by page on the keyset", () =>
        Effect.gen(function*() {
          const agents = yield* AgentRepository
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const created: Array<AgentDefinition> = []
          // Two share an instant: the id breaks the tie.
          for (const second of [0, 1, 1, 2, 3, 4]) created.push(yield* agents.create(org.id, definition(), at(second)))
          yield* agents.create(other.id, definition(), at(9))
          yield* agents.delete(org.id, created[3]!.id, at(5))
          const live = created.filter((_, i) => i !== 3)
          const expected = [...live]
            .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
            .map((a) => a.id)
          for (const limit of [1, 2, 3, 5, 100]) {
            const seen: Array<string> = []
            let after: { createdAt: Date; id: string } | undefined = undefined
            for (;;) {
              const page: { agents: ReadonlyArray<AgentDefinition>; hasMore: boolean } = yield* agents.list({
                organizationId: org.id,
                limit,
                after
              })
              seen.push(...page.agents.map((a) => a.id))
              if (!page.hasMore) break
              assert.strictEqual(page.agents.length, limit)
              const last = page.agents.at(-1)!
              after = { createdAt: last.createdAt, id: last.id }
            }
            assert.deepStrictEqual(seen, expected, `limit ${limit}`)
          }
          const malformed = yield* agents.list({
            organizationId: org.id,
            limit: 5,
            after: { createdAt: at(0), id: "x" }
          })
          assert.deepStrictEqual(malformed, { agents: [], hasMore: false })
        }))

      it.effect("attaches to and detaches from the organization's campaigns and numbers", () =>
        Effect.gen(function*() {
          const agents = yield* AgentRepository
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const agent = yield* agents.create(org.id, definition(), at(0))
          const foreign = yield* agents.create(other.id, definition(), at(0))
          const campaign = yield* Fixtures.campaign(org.id)
          const foreignCampaign = yield* Fixtures.campaign(other.id)
          const phone = yield* number(org.id)
          const foreignPhone = yield* number(other.id)

          assert.strictEqual(yield* agents.campaignAgent(org.id, campaign.code), null)
          yield* agents.attachToCampaign(org.id, campaign.code, agent.id)
          assert.strictEqual(yield* agents.campaignAgent(org.id, campaign.code), agent.id)
          assert.strictEqual(yield* agents.numberAgent(org.id, phone), null)
          yield* agents.attachToNumber(org.id, phone, agent.id)
          assert.strictEqual(yield* agents.numberAgent(org.id, phone), agent.id)

          // Another organization's campaign, number or definition is not found; nothing changes.
          const errors = [
            yield* failure(agents.attachToCampaign(org.id, foreignCampaign.code, agent.id)),
            yield* failure(agents.attachToCampaign(org.id, campaign.code, foreign.id)),
            yield* failure(agents.attachToCampaign(org.id, "gcmp-missing", null)),
            yield* failure(agents.attachToNumber(org.id, foreignPhone, agent.id)),
            yield* failure(agents.attachToNumber(org.id, phone, foreign.id)),
            yield* failure(agents.attachToNumber(org.id, "+12025550000", null)),
            yield* failure(agents.campaignAgent(other.id, campaign.code)),
            yield* failure(agents.numberAgent(other.id, phone))
          ]
          assert.deepStrictEqual(errors.map((e) => e._tag), [
            "CampaignNotFound",
            "AgentNotFound",
            "CampaignNotFound",
            "PhoneNumberNotOwned",
            "AgentNotFound",
            "PhoneNumberNotOwned",
            "CampaignNotFound",
            "PhoneNumberNotOwned"
          ])
          assert.strictEqual(yield* agents.campaignAgent(org.id, campaign.code), agent.id)
          assert.strictEqual(yield* agents.numberAgent(org.id, phone), agent.id)
          assert.strictEqual(yield* agents.campaignAgent(other.id, foreignCampaign.code), null)

          yield* agents.attachToCampaign(org.id, campaign.code, null)
          yield* agents.attachToNumber(org.id, phone, null)
          assert.strictEqual(yield* agents.campaignAgent(org.id, campaign.code), null)
          assert.strictEqual(yield* agents.numberAgent(org.id, phone), null)

          // A deleted campaign is not found.
          yield* (yield* CampaignRepository).softDelete(org.id, campaign.id)
          assert.strictEqual(
            (yield* failure(agents.attachToCampaign(org.id, campaign.code, agent.id)))._tag,
            "CampaignNotFound"
          )
        }))

      it.effect("refuses to delete a definition attached to a live campaign or a number, then deletes it", () =>
        Effect.gen(function*() {
          const agents = yield* AgentRepository
          const campaigns = yield* CampaignRepository
          const org = yield* Fixtures.organization()
          const other = yield* Fixtures.organization()
          const agent = yield* agents.create(org.id, definition(), at(0))
          const live = yield* Fixtures.campaign(org.id)
          const deleted = yield* Fixtures.campaign(org.id)
          const phone = yield* number(org.id)
          yield* agents.attachToCampaign(org.id, live.code, agent.id)
          yield* agents.attachToCampaign(org.id, deleted.code, agent.id)
          yield* campaigns.softDelete(org.id, deleted.id)
          yield* agents.attachToNumber(org.id, phone, agent.id)

          assert.strictEqual((yield* failure(agents.delete(other.id, agent.id, at(1))))._tag, "AgentNotFound")
          const inUse = yield* failure(agents.delete(org.id, agent.id, at(1)))
          assert.deepStrictEqual(inUse._tag === "AgentInUse" && [inUse.campaignCodes, inUse.phoneNumbers], [
            [live.code],
            [phone]
          ])
          assert.isTrue(Option.isSome(yield* agents.get(org.id, agent.id)))

          yield* agents.attachToCampaign(org.id, live.code, null)
          assert.strictEqual((yield* failure(agents.delete(org.id, agent.id, at(2))))._tag, "AgentInUse")
          yield* agents.attachToNumber(org.id, phone, null)
          // The deleted campaign still pointing at it does not hold it.
          yield* agents.delete(org.id, agent.id, at(3))
          assert.isTrue(Option.isNone(yield* agents.get(org.id, agent.id)))
          assert.strictEqual((yield* failure(agents.delete(org.id, agent.id, at(4))))._tag, "AgentNotFound")
          assert.strictEqual(
            (yield* failure(agents.attachToCampaign(org.id, live.code, agent.id)))._tag,
            "AgentNotFound"
          )
          assert.strictEqual((yield* failure(agents.attachToNumber(org.id, phone, agent.id)))._tag, "AgentNotFound")
          assert.strictEqual(
            (yield* failure(agents.update(org.id, agent.id, { name: "again" }, at(5))))._tag,
            "AgentNotFound"
          )
        }))

      it.effect("an attach and a delete of one definition at once never leave a deleted definition attached", () =>
        Effect.gen(function*() {
          const agents = yield* AgentRepository
          const org = yield* Fixtures.organization()
          for (let round = 0; round < 10; round++) {
            const agent = yield* agents.create(org.id, definition(), at(round))
            const campaign = yield* Fixtures.campaign(org.id)
            const [attached, deleted] = yield* Effect.all([
              Effect.exit(agents.attachToCampaign(org.id, campaign.code, agent.id)),
              Effect.exit(agents.delete(org.id, agent.id, at(round)))
            ], { concurrency: 2 })
            assert.isTrue(Exit.isSuccess(attached) !== Exit.isSuccess(deleted), `round ${round}`)
            const pointer = yield* agents.campaignAgent(org.id, campaign.code)
            assert.strictEqual(pointer, Exit.isSuccess(attached) ? agent.id : null)
            assert.strictEqual(Option.isSome(yield* agents.get(org.id, agent.id)), Exit.isSuccess(attached))
          }
        }))

      it.effect("forCall: the campaign's definition for an outbound call, the called number's for an inbound one", () =>
        Effect.gen(function*() {
          const agents = yield* AgentRepository
          const org = yield* Fixtures.organization()
          const outboundAgent = yield* agents.create(org.id, definition(), at(0))
          const inboundAgent = yield* agents.create(org.id, definition(), at(1))
          const campaign = yield* Fixtures.campaign(org.id)
          const plain = yield* Fixtures.campaign(org.id)
          const phone = yield* number(org.id)
          const quiet = yield* number(org.id)
          yield* agents.attachToCampaign(org.id, campaign.code, outboundAgent.id)
          yield* agents.attachToNumber(org.id, phone, inboundAgent.id)

          const outbound = yield* call(org.id, { direction: "outbound", campaignId: campaign.id, fromNumber: phone })
          const inbound = yield* call(org.id, { direction: "inbound", toNumber: phone })
          const fromOurNumber = yield* call(org.id, { direction: "inbound", fromNumber: phone, toNumber: quiet })
          const unattached = yield* call(org.id, { direction: "outbound", campaignId: plain.id })
          const noCampaign = yield* call(org.id, { direction: "outbound", fromNumber: phone })

          assert.deepStrictEqual(yield* agents.forCall(outbound.callId), Option.some(outboundAgent))
          assert.deepStrictEqual(yield* agents.forCall(inbound.callId), Option.some(inboundAgent))
          for (const none of [fromOurNumber, unattached, noCampaign]) {
            assert.isTrue(Option.isNone(yield* agents.forCall(none.callId)), none.callId)
          }
          assert.isTrue(Option.isNone(yield* agents.forCall("no-such-call")))

          // Updates show at once; a detached definition no longer answers.
          const renamed = yield* agents.update(org.id, inboundAgent.id, { name: "Renamed" }, at(5))
          assert.deepStrictEqual(yield* agents.forCall(inbound.callId), Option.some(renamed))
          yield* agents.attachToNumber(org.id, phone, null)
          assert.isTrue(Option.isNone(yield* agents.forCall(inbound.callId)))
        }))
    })
  })
}
