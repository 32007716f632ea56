/**
 * HMAC keys as Node `KeyObject`s, made once per key, and keys derived from an installation's
 * cursor key, once per cursor key and label. An HMAC keyed by bytes makes a `KeyObject` each
 * time, which costs four times the HMAC itself (24 against 4.5 µs, Node 24). Keys are never
 * changed in place (they are derived, or read once from the database), so the bytes a key had
 * when first used are its bytes.
 */
import { createHmac, createSecretKey } from "node:crypto"
import type { KeyObject } from "node:crypto"

const secrets = new WeakMap<Uint8Array, KeyObject>()

/** `key` as a `KeyObject`, made on its first use. */
export const secretOf = (key: Uint8Array): KeyObject => {
  let secret = secrets.get(key)
  if (secret === undefined) {
    secret = createSecretKey(key)
    secrets.set(key, secret)
  }
  return secret
}

const derived = new WeakMap<Uint8Array, Map<string, Uint8Array>>()

/** The key for `label` derived from `cursorKey` (HMAC-SHA256 of the label), once per pair. */
export const derive = (cursorKey: Uint8Array, label: string): Uint8Array => {
  let byLabel = derived.get(cursorKey)
  if (byLabel === undefined) {
    byLabel = new Map()
    derived.set(cursorKey, byLabel)
  }
  let key = byLabel.get(label)
  if (key === undefined) {
    key = new Uint8Array(createHmac("sha256", secretOf(cursorKey)).update(label).digest())
    byLabel.set(label, key)
  }
  return key
}
