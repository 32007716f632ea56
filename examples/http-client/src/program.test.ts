import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, layer } from "@effect/vitest"
import * as SimCarrier from "@voice-agent/carrier-sim/SimCarrier"
import type { E164 } from "@voice-agent/core/PhoneNumber"
import { ApiKeyRepository } from "@voice-agent/core/ports/ApiKeyRepository"
import { OrganizationRepository } from "@voice-agent/core/ports/OrganizationRepository"
import { PhoneNumberRepository } from "@voice-agent/core/ports/PhoneNumberRepository"
import { AdminToken } from "@voice-agent/http/handlers/Admin"
import * as HttpApp from "@voice-agent/http/HttpApp"
import * as FileRecordingStore from "@voice-agent/recordings-fs/FileRecordingStore"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import * as TestDatabase from "@voice-agent/store-sql/testing/TestDatabase"
import { Effect, Layer, Option } from "effect"
import { HttpRouter } from "effect/http"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { program } from "./program.ts"

// Recordings go to a temporary directory made when the server starts and removed when it stops.
const Recordings = Layer.unwrap(
  Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "va-example-"))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  ).pipe(Effect.map(FileRecordingStore.layer))
)

// A real server on an ephemeral port; the client goes through real HTTP.
const Server = HttpRouter.serve(HttpApp.layer, { disableLogger: true, disableListenLog: true }).pipe(
  Layer.provideMerge(NodeHttpServer.layerTest),
  Layer.provide([
    AdminToken.layer(Option.none()),
    SimCarrier.layer,
    Recordings
  ]),
  Layer.provideMerge(SqlStorage.layer.pipe(Layer.provideMerge(TestDatabase.pglite)))
)

describe("http-client example", () => {
  layer(Server, { timeout: "60 seconds", excludeTestServices: true })((it) => {
    it.effect("creates a campaign, uploads contacts and pages them through the typed client", () =>
      Effect.gen(function*() {
        const organization = yield* (yield* OrganizationRepository).create({
          name: "example",
          outboundDialingEnabled: true,
          smsRegistered: true,
          billingIssue: false,
          maxConcurrency: 5
        })
        yield* (yield* PhoneNumberRepository).add(organization.id, {
          phoneNumber: "+12025550101" as E164,
          smsEnabled: true
        })
        const { apiKey } = yield* (yield* ApiKeyRepository).issue(organization.id)
        const { campaign, page, status, uploaded } = yield* program({ apiKey })
        assert.match(campaign.campaign_code, /^gcmp-/)
        assert.deepStrictEqual(campaign.calling_windows, [{ day: 0, start_time: "09:00", end_time: "17:00" }])
        assert.strictEqual(uploaded.created, 2)
        assert.deepStrictEqual(status.status_counts, { TRYING: 2, COMPLETED: 0, PARTIALLY_COMPLETED: 0, FAILED: 0 })
        assert.strictEqual(page.contacts.length, 1)
        assert.strictEqual(page.contacts[0]?.phone_number, "+12025550132")
        assert.isTrue(page.has_more)
      }))
  })
})
