import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { BadRequest, Conflict, NotFound } from "./HttpErrors.ts"
import { NotImplemented } from "./ServerErrors.ts"

// One endpoint that declares only BadRequest, and fails with errors it does not declare.
class Probe extends HttpApiGroup.make("probe").add(
  HttpApiEndpoint.get("fail", "/fail/:kind", { params: { kind: Schema.String }, error: BadRequest })
) {}
class ProbeApi extends HttpApi.make("probe").add(Probe) {}

const undeclared = {
  "not-found": new NotFound({ detail: "Thing 7 not found" }),
  conflict: new Conflict({ detail: "Thing 7 is busy" }),
  "not-implemented": new NotImplemented({ detail: "Not configured here" })
} as const

const ProbeLive = HttpApiBuilder.group(ProbeApi, "probe", (handlers) =>
  handlers.handle("fail", ({ params }) => {
    const kind = params.kind as keyof typeof undeclared
    return kind in undeclared
      ? Effect.fail(undeclared[kind])
      : Effect.fail(new BadRequest({ detail: "declared" }))
  }))

describe("HttpErrors", () => {
  it.effect("an error the endpoint does not declare still answers its status and {detail}, not a 500", () =>
    Effect.gen(function*() {
      const { dispose, handler } = HttpRouter.toWebHandler(
        HttpApiBuilder.layer(ProbeApi).pipe(Layer.provide(ProbeLive), Layer.provide(HttpServer.layerServices)),
        { disableLogger: true }
      )
      const answer = (kind: string) =>
        Effect.promise(async () => {
          const response = await handler(new Request(`http://localhost/fail/${kind}`))
          return { status: response.status, body: await response.json() }
        })
      assert.deepStrictEqual(yield* answer("declared"), { status: 400, body: { detail: "declared" } })
      assert.deepStrictEqual(yield* answer("not-found"), { status: 404, body: { detail: "Thing 7 not found" } })
      assert.deepStrictEqual(yield* answer("conflict"), { status: 409, body: { detail: "Thing 7 is busy" } })
      assert.deepStrictEqual(yield* answer("not-implemented"), {
        status: 501,
        body: { detail: "Not configured here" }
      })
      yield* Effect.promise(() => dispose())
    }))
})
