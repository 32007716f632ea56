/**
 * Black-box tests of send-sms, the inbound message list and the organization's numbers
 * (the API reference, "Messages", docs/DECISIONS.md), on both backends. Inbound messages arrive through the
 * admin API, as if the carrier delivered them.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import {
  addNumber,
  api,
  assertDetail,
  assertValidation,
  eachBackend,
  Fields,
  inboundMessage,
  isIsoInstant,
  keysOf,
  organization,
  q,
  randomNumber,
  refusingNumber,
  updateOrganization
} from "./support/ApiServer.ts"

const sms = (from: string, to: string, message = "Your appointment is tomorrow at 10am.") => ({
  json: { from_number: from, to_number: to, message }
})

await eachBackend("messages", (it) => {
  it.effect("send-sms answers 201 {status: queued} and the message is not an inbound one", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const reply = yield* api(org.key, "POST", "/v1/send-sms", sms(org.number, randomNumber()))
      assert.strictEqual(reply.status, 201, reply.text)
      assert.deepStrictEqual(reply.body, { status: "queued" })
      const inbound = yield* api(org.key, "GET", `/v1/messages?to_number=${q(org.number)}`)
      assert.deepStrictEqual(inbound.body, { messages: [], has_more: false })
    }))

  it.effect("send-sms 400: sender not owned (by anyone, or by another organization) or not SMS-enabled", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const other = yield* organization()
      const voiceOnly = yield* addNumber(org.id, { sms_enabled: false })
      for (const from of [randomNumber(), other.number, voiceOnly]) {
        assertDetail(yield* api(org.key, "POST", "/v1/send-sms", sms(from, randomNumber())), 400, from)
      }
    }))

  it.effect("send-sms 401, then 403 for billing issue or SMS not registered, before validation", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      for (const token of [null, "", "wrong"]) {
        assertDetail(yield* api(token, "POST", "/v1/send-sms", sms(org.number, randomNumber())), 401)
        assertDetail(yield* api(token, "POST", "/v1/send-sms", { json: { from_number: 1 } }), 401)
      }
      const billing = yield* organization({ billing_issue: true })
      const unregistered = yield* organization({ sms_registered: false })
      for (const blocked of [billing, unregistered]) {
        assertDetail(yield* api(blocked.key, "POST", "/v1/send-sms", sms(blocked.number, randomNumber())), 403)
        assertDetail(yield* api(blocked.key, "POST", "/v1/send-sms", { json: { to_number: "x" } }), 403)
        assertDetail(yield* api(blocked.key, "POST", "/v1/send-sms", sms(randomNumber(), randomNumber())), 403)
      }
      // A billing issue that arises later blocks sending; resolving it unblocks it.
      yield* updateOrganization(org.id, { billing_issue: true })
      assertDetail(yield* api(org.key, "POST", "/v1/send-sms", sms(org.number, randomNumber())), 403)
      yield* updateOrganization(org.id, { billing_issue: false })
      assert.strictEqual((yield* api(org.key, "POST", "/v1/send-sms", sms(org.number, randomNumber()))).status, 201)
      // Outbound dialing has nothing to do with SMS.
      const noDialing = yield* organization({ outbound_dialing_enabled: false })
      assert.strictEqual(
        (yield* api(noDialing.key, "POST", "/v1/send-sms", sms(noDialing.number, randomNumber()))).status,
        201
      )
    }))

  it.effect("send-sms 422: numbers not matching the E.164 pattern, missing or mistyped fields", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const to = randomNumber()
      const cases: ReadonlyArray<readonly [unknown, ReadonlyArray<ReadonlyArray<string | number>>]> = [
        [{ from_number: org.number.slice(1), to_number: to, message: "x" }, [["body", "from_number"]]],
        [{ from_number: org.number, to_number: "(202) 555-0123", message: "x" }, [["body", "to_number"]]],
        [{ from_number: org.number, to_number: "+0123456", message: "x" }, [["body", "to_number"]]],
        [{ from_number: org.number, to_number: "+1234567890123456", message: "x" }, [["body", "to_number"]]],
        [{ from_number: org.number, to_number: to }, [["body", "message"]]],
        [{ to_number: to, message: "x" }, [["body", "from_number"]]],
        [{}, [["body", "from_number"], ["body", "to_number"], ["body", "message"]]],
        [{ from_number: org.number, to_number: to, message: 42 }, [["body", "message"]]],
        [{ from_number: [org.number], to_number: to, message: "x" }, [["body", "from_number"]]]
      ]
      for (const [json, locs] of cases) {
        const reply = yield* api(org.key, "POST", "/v1/send-sms", { json })
        assertValidation(reply, ...locs)
      }
      const missing = yield* api(org.key, "POST", "/v1/send-sms", { json: { from_number: org.number, to_number: to } })
      assert.deepStrictEqual(missing.body, {
        detail: [{ loc: ["body", "message"], msg: "Field required", type: "missing" }]
      })
      // Validation comes before the ownership check: an unowned sender with a bad recipient is 422.
      assertValidation(yield* api(org.key, "POST", "/v1/send-sms", sms(randomNumber(), "bad")), ["body", "to_number"])
    }))

  it.effect("send-sms 500 {detail} when the carrier refuses the message", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      assertDetail(yield* api(org.key, "POST", "/v1/send-sms", sms(org.number, refusingNumber())), 500)
    }))

  it.effect("messages: exact shapes, oldest first, only inbound messages to that number", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const second = yield* addNumber(org.id)
      const sender = randomNumber()
      const late = yield* inboundMessage(org.id, {
        from_number: sender,
        to_number: org.number,
        content: "later",
        received_at: "2026-11-21T05:10:00.500Z"
      })
      const early = yield* inboundMessage(org.id, {
        from_number: sender,
        to_number: org.number,
        content: "STOP",
        received_at: "2026-11-21T05:09:00Z"
      })
      yield* inboundMessage(org.id, { from_number: sender, to_number: second, content: "elsewhere" })
      yield* api(org.key, "POST", "/v1/send-sms", sms(org.number, sender))
      const reply = yield* api(org.key, "GET", `/v1/messages?to_number=${q(org.number)}`)
      assert.strictEqual(reply.status, 200, reply.text)
      assert.deepStrictEqual(keysOf(reply.body), [...Fields.messageList])
      for (const message of reply.body.messages) {
        assert.deepStrictEqual(keysOf(message), [...Fields.inboundMessage])
        assert.isTrue(isIsoInstant(message.received_at))
      }
      assert.deepStrictEqual(reply.body, {
        messages: [
          {
            id: early.id,
            from_number: sender,
            to_number: org.number,
            content: "STOP",
            received_at: "2026-11-21T05:09:00.000Z",
            modality: "sms",
            direction: "inbound"
          },
          {
            id: late.id,
            from_number: sender,
            to_number: org.number,
            content: "later",
            received_at: "2026-11-21T05:10:00.500Z",
            modality: "sms",
            direction: "inbound"
          }
        ],
        has_more: false
      })
    }))

  it.effect("messages: inclusive start, has_more, paging by the last received_at returns the boundary again", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const times = [
        "2026-11-21T05:00:00.000Z",
        "2026-11-21T05:01:00.000Z",
        "2026-11-21T05:02:00.000Z",
        "2026-11-21T05:02:00.000Z",
        "2026-11-21T05:03:00.000Z",
        "2026-11-21T05:04:00.000Z",
        "2026-11-21T05:05:00.000Z"
      ]
      const ids: Array<string> = []
      for (const [i, received_at] of times.entries()) {
        ids.push(
          (yield* inboundMessage(org.id, {
            from_number: randomNumber(),
            to_number: org.number,
            content: `m${i}`,
            received_at
          })).id
        )
      }
      const base = `/v1/messages?to_number=${q(org.number)}`
      const first = yield* api(org.key, "GET", `${base}&limit=3`)
      assert.strictEqual(first.status, 200)
      assert.strictEqual(first.body.has_more, true)
      // m2 and m3 share a timestamp: either may come first.
      assert.deepStrictEqual(first.body.messages.map((m: any) => m.content).slice(0, 2), ["m0", "m1"])
      assert.include(["m2", "m3"], first.body.messages[2].content)
      // Page through as the API reference says: start = last received_at, dedupe by id.
      const seen = new Map<string, string>()
      let start: string | undefined
      let pages = 0
      while (pages++ < 20) {
        const page = yield* api(org.key, "GET", `${base}&limit=3${start === undefined ? "" : `&start=${q(start)}`}`)
        assert.strictEqual(page.status, 200, page.text)
        const received: Array<string> = page.body.messages.map((m: any) => m.received_at)
        assert.deepStrictEqual(received, [...received].sort(), "oldest first")
        if (start !== undefined) {
          assert.strictEqual(page.body.messages[0].received_at, start, "the boundary comes again")
        }
        for (const m of page.body.messages) seen.set(m.id, m.content)
        if (!page.body.has_more) break
        start = page.body.messages.at(-1).received_at
      }
      assert.deepStrictEqual([...seen.keys()].sort(), [...ids].sort())
      const at = yield* api(org.key, "GET", `${base}&start=${q("2026-11-21T05:02:00Z")}`)
      assert.deepStrictEqual(at.body.messages.map((m: any) => m.content).sort(), ["m2", "m3", "m4", "m5", "m6"])
      assert.strictEqual(at.body.has_more, false)
      const exact = yield* api(org.key, "GET", `${base}&start=${q("2026-11-21T05:05:00.000Z")}&limit=1`)
      assert.deepStrictEqual(exact.body, { messages: [{ ...exact.body.messages[0], content: "m6" }], has_more: false })
      const python = yield* api(org.key, "GET", `${base}&start=${q("2026-11-21T07:03:30.123456+02:00")}`)
      assert.deepStrictEqual(python.body.messages.map((m: any) => m.content), ["m5", "m6"])
      const unencoded = yield* api(org.key, "GET", `${base}&start=2026-11-21T05:03:30.123456+00:00`)
      assert.deepStrictEqual(unencoded.body.messages.map((m: any) => m.content), ["m5", "m6"])
      const all = yield* api(org.key, "GET", `${base}&limit=7`)
      assert.strictEqual(all.body.has_more, false)
      assert.strictEqual(all.body.messages.length, 7)
    }))

  it.effect("messages: from_number and modality filters; default limit 50", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const alice = randomNumber()
      const bob = randomNumber()
      for (let i = 0; i < 52; i++) {
        yield* inboundMessage(org.id, {
          from_number: i % 2 === 0 ? alice : bob,
          to_number: org.number,
          content: `m${i}`,
          received_at: new Date(Date.UTC(2026, 10, 21, 5, 0, i)).toISOString()
        })
      }
      const base = `/v1/messages?to_number=${q(org.number)}`
      const page = yield* api(org.key, "GET", base)
      assert.strictEqual(page.body.messages.length, 50)
      assert.strictEqual(page.body.has_more, true)
      const fromAlice = yield* api(org.key, "GET", `${base}&from_number=${q(alice)}&limit=100`)
      assert.strictEqual(fromAlice.body.messages.length, 26)
      assert.isTrue(fromAlice.body.messages.every((m: any) => m.from_number === alice))
      const bySms = yield* api(org.key, "GET", `${base}&modality=sms&limit=100`)
      assert.strictEqual(bySms.body.messages.length, 52)
      assert.strictEqual(bySms.body.has_more, false)
      assertValidation(yield* api(org.key, "GET", `${base}&modality=fax`), ["query", "modality"])
    }))

  it.effect("messages 400 (start, limit), 404 (to_number not owned), 422 (to_number missing or not E.164), 401", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const other = yield* organization()
      const base = `/v1/messages?to_number=${q(org.number)}`
      for (
        const query of [
          "limit=0",
          "limit=101",
          "limit=x",
          "limit=",
          "start=soon",
          "start=2026-02-30T00:00:00Z",
          "start=1700000000"
        ]
      ) {
        assertDetail(yield* api(org.key, "GET", `${base}&${query}`), 400, query)
      }
      assert.strictEqual((yield* api(org.key, "GET", `${base}&limit=100`)).status, 200)
      for (const number of [randomNumber(), other.number]) {
        assertDetail(yield* api(org.key, "GET", `/v1/messages?to_number=${q(number)}`), 404, number)
      }
      assertValidation(yield* api(org.key, "GET", "/v1/messages"), ["query", "to_number"])
      assertValidation(yield* api(org.key, "GET", `/v1/messages?to_number=${org.number.slice(1)}`), [
        "query",
        "to_number"
      ])
      assertValidation(yield* api(org.key, "GET", `${base}&from_number=abc`), ["query", "from_number"])
      for (const token of [null, "wrong"]) {
        assertDetail(yield* api(token, "GET", base), 401)
        assertDetail(yield* api(token, "GET", "/v1/messages"), 401)
      }
    }))

  it.effect("GET /v1/phone-numbers lists the organization's numbers, without a Deprecation header", () =>
    Effect.gen(function*() {
      const org = yield* organization()
      const voiceOnly = yield* addNumber(org.id, { sms_enabled: false })
      yield* organization()
      const reply = yield* api(org.key, "GET", "/v1/phone-numbers")
      assert.strictEqual(reply.status, 200, reply.text)
      assert.isUndefined(reply.headers["deprecation"])
      const sorted = [...reply.body].sort((a: any, b: any) => a.phone_number.localeCompare(b.phone_number))
      assert.deepStrictEqual(
        sorted,
        [
          { phone_number: org.number, sms_enabled: true },
          { phone_number: voiceOnly, sms_enabled: false }
        ].sort((a, b) => a.phone_number.localeCompare(b.phone_number))
      )
      assertDetail(yield* api(null, "GET", "/v1/phone-numbers"), 401)
      const bare = yield* organization({ outbound_dialing_enabled: false, sms_registered: false })
      assert.strictEqual((yield* api(bare.key, "GET", "/v1/phone-numbers")).status, 200)
    }))
})
