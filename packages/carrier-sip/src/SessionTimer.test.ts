import { assert, describe, it } from "@effect/vitest"
import * as SessionTimer from "./SessionTimer.ts"

const message = (...headers: Array<[string, string]>) => ({
  headers: headers.map(([name, value]) => ({ name, value }))
})

describe("SessionTimer", () => {
  it("reads the interval and the refresher; a bad value is no timer", () => {
    assert.deepStrictEqual(SessionTimer.read(message(["Session-Expires", "1800;refresher=UAS"])), {
      interval: 1800,
      refresher: "uas"
    })
    assert.deepStrictEqual(SessionTimer.read(message(["Session-Expires", " 90 "])), {
      interval: 90,
      refresher: undefined
    })
    assert.isUndefined(SessionTimer.read(message(["Session-Expires", "soon"])))
    assert.isUndefined(SessionTimer.read(message()))
  })

  it("picks the refresher as RFC 4028 §9 says", () => {
    assert.strictEqual(SessionTimer.chooseRefresher({ interval: 90, refresher: "uas" }, true), "uas")
    assert.strictEqual(SessionTimer.chooseRefresher({ interval: 90, refresher: undefined }, true), "uac")
    assert.strictEqual(SessionTimer.chooseRefresher({ interval: 90, refresher: undefined }, false), "uas")
    assert.isTrue(SessionTimer.supported(message(["Supported", "replaces"], ["Supported", "timer"])))
    assert.isFalse(SessionTimer.supported(message(["Supported", "100rel"])))
  })

  it("refreshes at half the interval; gives up at the interval less min(32 s, a third)", () => {
    assert.strictEqual(SessionTimer.delayMs(1800, true), 900_000)
    assert.strictEqual(SessionTimer.delayMs(1800, false), 1_768_000)
    assert.strictEqual(SessionTimer.delayMs(90, false), 60_000)
  })
})
