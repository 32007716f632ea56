import { assert, describe, it } from "@effect/vitest"
import type * as Dialog from "./Dialog.ts"
import * as InDialog from "./InDialog.ts"

const dialog = (remoteTarget: string, routeSet: ReadonlyArray<string> = []): Dialog.Dialog => ({
  callId: "c",
  localTag: "l",
  remoteTag: "r",
  localUri: "<sip:a@h>",
  remoteUri: "<sip:b@h>",
  remoteTarget,
  routeSet,
  localSeq: 1,
  remoteSeq: undefined
})

describe("InDialog", () => {
  it("sends to the first route, else the remote target, on its transport", () => {
    assert.deepStrictEqual(InDialog.targetOf(dialog("sip:b@10.0.0.2:5070"), "UDP"), {
      transport: "UDP",
      host: "10.0.0.2",
      port: 5070
    })
    assert.deepStrictEqual(InDialog.targetOf(dialog("sip:b@trunk.example;transport=tcp"), "UDP"), {
      transport: "TCP",
      host: "trunk.example",
      port: 5060
    })
    assert.deepStrictEqual(InDialog.targetOf(dialog("sip:b@10.0.0.2", ["<sip:proxy.example:5080;lr>"]), "UDP"), {
      transport: "UDP",
      host: "proxy.example",
      port: 5080
    })
    assert.isUndefined(InDialog.targetOf(dialog("tel:+14155550100"), "UDP"))
  })

  it("reads a sipfrag's status line", () => {
    const bytes = (text: string) => new TextEncoder().encode(text)
    assert.deepStrictEqual(InDialog.sipfrag(bytes("SIP/2.0 180 Ringing\r\n")), { status: 180, reason: "Ringing" })
    assert.deepStrictEqual(InDialog.sipfrag(bytes("SIP/2.0 503\r\n")), { status: 503, reason: "" })
    assert.isUndefined(InDialog.sipfrag(bytes("INVITE sip:x SIP/2.0")))
  })
})
