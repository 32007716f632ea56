import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Queue, Redacted, Scope } from "effect"
import { TestClock } from "effect/testing"
import * as Trunk from "../test/scriptedTrunk.ts"
import * as Registration from "./Registration.ts"
import * as SipEndpoint from "./SipEndpoint.ts"
import * as SipMessage from "./SipMessage.ts"

const challenge = {
  name: "WWW-Authenticate",
  value: "Digest realm=\"trunk\", nonce=\"r1\", qop=\"auth\", algorithm=MD5"
}

describe("Registration", () => {
  it.effect("REGISTER answered after a 401, refreshed at half the granted Expires, removed when the scope closes", () =>
    Effect.gen(function*() {
      const trunk = yield* Trunk.make
      const scope = yield* Scope.make()
      const ua = yield* Trunk.userAgent(trunk.endpoint.port, {
        config: { register: true, credentials: { username: "alice", password: Redacted.make("pw") } }
      }).pipe(Scope.provide(scope))

      const first = yield* trunk.next("REGISTER")
      assert.strictEqual(SipMessage.header(first.request, "Expires"), "3600")
      assert.match(SipMessage.header(first.request, "Contact")!, /^<sip:alice@127\.0\.0\.1:\d+>$/)
      assert.strictEqual(first.request.to.uri, `sip:alice@${Trunk.host}:${trunk.endpoint.port}`)
      yield* first.respond(SipEndpoint.answer(first, 401, { headers: [challenge] }))
      const authorized = yield* trunk.next("REGISTER")
      assert.match(SipMessage.header(authorized.request, "Authorization")!, /username="alice".*realm="trunk"/)
      assert.strictEqual(authorized.request.callId, first.request.callId)
      assert.strictEqual(authorized.request.cseq.seq, first.request.cseq.seq + 1)
      const contact = SipMessage.header(authorized.request, "Contact")!
      // The trunk grants 120 s (of the 3600 asked): a refresh at 60 s.
      yield* authorized.respond(SipEndpoint.answer(authorized, 200, {
        headers: [{ name: "Contact", value: `${contact};expires=120` }]
      }))
      // The clock moves once the user agent has read the 200 (it comes over a real socket).
      yield* Trunk.until(() => ua.registration?.granted() !== undefined)
      assert.strictEqual(ua.registration?.granted(), 120)
      yield* TestClock.adjust(59_000)
      assert.strictEqual(yield* Queue.size(trunk.inbox), 0)
      yield* TestClock.adjust(1_000)
      const refresh = yield* trunk.next("REGISTER")
      assert.strictEqual(refresh.request.callId, first.request.callId)
      assert.isAbove(refresh.request.cseq.seq, authorized.request.cseq.seq)
      yield* refresh.respond(SipEndpoint.answer(refresh, 200, { headers: [{ name: "Expires", value: "300" }] }))

      const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
      const removal = yield* trunk.next("REGISTER")
      assert.strictEqual(SipMessage.header(removal.request, "Expires"), "0")
      yield* removal.respond(SipEndpoint.answer(removal, 200))
      yield* Fiber.join(closing)
    }).pipe(Effect.scoped))

  it.effect("a 403 is tried again a minute later, a 423 at once with Min-Expires; without credentials no challenge is answered", () =>
    Effect.gen(function*() {
      const trunk = yield* Trunk.make
      const ua = yield* Trunk.userAgent(trunk.endpoint.port, { config: { register: true } })
      const first = yield* trunk.next("REGISTER")
      assert.strictEqual(first.request.to.sip?.user, "voice-agent")
      yield* first.respond(SipEndpoint.answer(first, 403, { reason: "Forbidden (bad IP)" }))
      assert.isUndefined(ua.registration?.granted())
      yield* Trunk.advanceUntil(trunk.inbox, 60_000)
      const again = yield* trunk.next("REGISTER")
      yield* again.respond(SipEndpoint.answer(again, 423, { headers: [{ name: "Min-Expires", value: "7200" }] }))
      const longer = yield* trunk.next("REGISTER")
      assert.strictEqual(SipMessage.header(longer.request, "Expires"), "7200")
      yield* longer.respond(SipEndpoint.answer(longer, 401, { headers: [challenge] }))
      yield* Trunk.advanceUntil(trunk.inbox, 60_000)
      const third = yield* trunk.next("REGISTER")
      assert.isUndefined(SipMessage.header(third.request, "Authorization"))
      yield* third.respond(SipEndpoint.answer(third, 200, { headers: [{ name: "Expires", value: "600" }] }))
      yield* Trunk.until(() => ua.registration?.granted() !== undefined)
      assert.strictEqual(ua.registration?.granted(), 600)
      // Closing: Expires: 0, answered.
      const removal = yield* Effect.forkChild(
        Effect.flatMap(trunk.next("REGISTER"), (r) => r.respond(SipEndpoint.answer(r, 200)))
      )
      return removal
    }).pipe(Effect.scoped))

  it("reads the granted Expires from our Contact, else the Expires header, else what was asked", () => {
    const response = (headers: ReadonlyArray<SipMessage.Header>) =>
      ({ headers }) as unknown as Parameters<typeof Registration.grantedExpires>[0]
    assert.strictEqual(
      Registration.grantedExpires(response([{ name: "Contact", value: "<sip:a@h>;expires=60" }]), 3600),
      60
    )
    assert.strictEqual(Registration.grantedExpires(response([{ name: "Expires", value: "90" }]), 3600), 90)
    assert.strictEqual(Registration.grantedExpires(response([]), 3600), 3600)
  })
})
