/**
 * The operator's credentials for this browser tab: the organization's API key and, for the admin
 * pages, the daemon's admin token. Both live in sessionStorage only (gone when the tab closes),
 * never in a URL, a cookie or a log line. A 401 forgets the credential it was sent with, which
 * brings its prompt back.
 */
import { useEffect, useState } from "preact/hooks"

/**
 * @category models
 */
export type Credential = "apiKey" | "adminToken"

const storageKeys: Record<Credential, string> = {
  apiKey: "voice-agent.console.api-key",
  adminToken: "voice-agent.console.admin-token"
}

const listeners = new Set<() => void>()

const read = (credential: Credential): string | null => {
  try {
    return sessionStorage.getItem(storageKeys[credential])
  } catch {
    // Storage refused (a privacy mode): the credential lasts as long as the page.
    return memory.get(credential) ?? null
  }
}

const memory = new Map<Credential, string>()

/**
 * @category constructors
 */
export const get = (credential: Credential): string | null => read(credential)

/**
 * @category constructors
 */
export const set = (credential: Credential, value: string): void => {
  memory.set(credential, value)
  try {
    sessionStorage.setItem(storageKeys[credential], value)
  } catch {
    // kept in memory only
  }
  listeners.forEach((listener) => listener())
}

/**
 * @category constructors
 */
export const forget = (credential: Credential): void => {
  memory.delete(credential)
  try {
    sessionStorage.removeItem(storageKeys[credential])
  } catch {
    // nothing stored
  }
  listeners.forEach((listener) => listener())
}

/**
 * The credential's current value, re-rendering the component when it changes.
 *
 * @category constructors
 */
export const useCredential = (credential: Credential): string | null => {
  const [value, setValue] = useState(() => read(credential))
  useEffect(() => {
    const listener = () => setValue(read(credential))
    listeners.add(listener)
    return () => void listeners.delete(listener)
  }, [credential])
  return value
}
