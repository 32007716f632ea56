/**
 * The voice-agent engine embedded in a Node program, with no daemon and no HTTP: the engine's
 * direct calls over the SQL store (embedded PostgreSQL in memory), recordings as WAV files in a
 * directory, the simulated carrier, and the scripted reference agent over simulated speech. The
 * simulated carrier streams each answered call to the engine's media session in this process
 * (an in-memory socket instead of a WebSocket). The program places one call, waits for its end,
 * and reads back the conversation, its transcript and its recordings.
 */
import * as ScriptedAgent from "@voice-agent/agents/ScriptedAgent"
import * as SimCarrier from "@voice-agent/carrier-sim/SimCarrier"
import * as SimSpeechToText from "@voice-agent/carrier-sim/SimSpeechToText"
import * as SimTextToSpeech from "@voice-agent/carrier-sim/SimTextToSpeech"
import type { E164 } from "@voice-agent/core/PhoneNumber"
import { ConversationRepository } from "@voice-agent/core/ports/ConversationRepository"
import { DirectCalls } from "@voice-agent/core/ports/DirectCalls"
import { OrganizationRepository } from "@voice-agent/core/ports/OrganizationRepository"
import { PhoneNumberRepository } from "@voice-agent/core/ports/PhoneNumberRepository"
import { RecordingStore } from "@voice-agent/core/ports/RecordingStore"
import * as EngineDirectCalls from "@voice-agent/engine/DirectCalls"
import * as MediaSession from "@voice-agent/engine/MediaSession"
import * as MemoryMedia from "@voice-agent/engine/testing/MemoryMedia"
import * as FileRecordingStore from "@voice-agent/recordings-fs/FileRecordingStore"
import * as Database from "@voice-agent/store-sql/Database"
import * as SqlStorage from "@voice-agent/store-sql/SqlStorage"
import { Effect, Layer, Option, Schedule, Stream } from "effect"

/**
 * Places a call from the organization's number, follows it to its end, and answers its
 * conversation, transcript and mixed recording's size.
 */
export const program = Effect.gen(function*() {
  const organizations = yield* OrganizationRepository
  const numbers = yield* PhoneNumberRepository
  const calls = yield* DirectCalls
  const conversations = yield* ConversationRepository
  const recordings = yield* RecordingStore

  const organization = yield* organizations.create({
    name: "Acme Clinics",
    outboundDialingEnabled: true,
    smsRegistered: true,
    billingIssue: false,
    maxConcurrency: 5
  })
  yield* numbers.add(organization.id, { phoneNumber: "+12025550100" as E164, smsEnabled: true })

  // The simulated carrier answers +1202555xxxx numbers as a person who converses.
  const placed = yield* calls.place({ organizationId: organization.id, from: "+12025550100", to: "+12025550123" })

  // The call is followed in the background: wait until its conversation records an end.
  const ended = yield* conversations.findByCallId(organization.id, placed.callId).pipe(
    Effect.map(Option.filter((conversation) => conversation.endedAt !== null)),
    Effect.flatMap(Effect.fromOption),
    Effect.retry(Schedule.spaced("200 millis"))
  )
  const transcript = yield* conversations.transcript(ended.id)
  const mixed = yield* recordings.read(placed.callId, "mixed")
  const wav = yield* Stream.runFold(mixed.bytes, () => 0, (size, chunk) => size + chunk.length)
  return { callId: placed.callId, conversation: ended, transcript, recordingBytes: wav }
})

/**
 * The engine's pieces for calls, with the recordings under `recordingsDir`.
 */
export const EngineLive = (recordingsDir: string) => {
  // The agent of every call: the scripted reference agent over simulated speech.
  const agent = ScriptedAgent.layer().pipe(Layer.provide([SimSpeechToText.layer, SimTextToSpeech.layer]))
  // Every stream the carrier opens is served by the engine's media session, in this process.
  const media = MemoryMedia.connector((socket) => MediaSession.serve(socket))
  const carrier = SimCarrier.layer.pipe(Layer.provide(media), Layer.provide(agent))
  const calls = EngineDirectCalls.layer(EngineDirectCalls.defaults(Effect.succeed("memory:media")))
  return calls.pipe(
    Layer.provideMerge(carrier),
    Layer.provideMerge(FileRecordingStore.layer(recordingsDir)),
    Layer.provideMerge(SqlStorage.layer),
    Layer.provide(Database.layerPglite(Database.memory))
  )
}
