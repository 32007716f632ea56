/** Change notification and polling waits shared by the replay's records (sockets, calls, listeners). */
export class Watch {
  private readonly listeners = new Set<() => void>()

  /** Call `listener` on every change until the returned function is called. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Wake every pending `waitFor` (call after any recorded change). */
  notify(): void {
    for (const listener of this.listeners) listener()
  }

  /**
   * Resolve with the first non-undefined, non-false result of `probe`, re-checked on every
   * `notify`; reject after `timeoutMs` naming `what`.
   */
  waitFor<T>(probe: () => T | undefined | false, timeoutMs = 10_000, what = "condition"): Promise<T> {
    const first = probe()
    if (first !== undefined && first !== false) return Promise.resolve(first)
    return new Promise<T>((resolve, reject) => {
      const check = () => {
        let result: T | undefined | false
        try {
          result = probe()
        } catch (e) {
          done()
          reject(e)
          return
        }
        if (result !== undefined && result !== false) {
          done()
          resolve(result)
        }
      }
      const timer = setTimeout(() => {
        done()
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`))
      }, timeoutMs)
      const done = () => {
        clearTimeout(timer)
        this.listeners.delete(check)
      }
      this.listeners.add(check)
    })
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))
