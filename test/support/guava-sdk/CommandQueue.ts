/**
 * The SDK's `_command_queue` (a `queue.Queue` of commands ended by `CommandQueueEnd`) and the
 * thread that drains it into the call socket (guava/agent.py `drain_commands`, guava/client.py).
 */
import type { Command } from "./Commands.ts"
import type { GuavaSocket } from "./GuavaSocket.ts"

const END = Symbol("CommandQueueEnd")

export class CommandQueue {
  /** Every command queued, in order (sent or not). */
  readonly queued: Array<Command> = []
  /** The drain thread's death (a send after the socket closed), if any. */
  drainError: unknown
  private readonly pending: Array<Command | typeof END> = []
  private wake: (() => void) | undefined
  private readonly onChange: () => void

  constructor(onChange: () => void) {
    this.onChange = onChange
  }

  put(command: Command): void {
    this.queued.push(command)
    this.pending.push(command)
    this.wakeUp()
  }

  /** `_shutdown_queue()` / `shutdown()`: queue `CommandQueueEnd`. */
  end(): void {
    this.pending.push(END)
    this.wakeUp()
  }

  /** `queue.get(block=True)`: the next command, or undefined for `CommandQueueEnd`. */
  async get(): Promise<Command | undefined> {
    for (;;) {
      const next = this.pending.shift()
      if (next !== undefined) return next === END ? undefined : next
      await new Promise<void>((resolve) => {
        this.wake = resolve
      })
    }
  }

  /** `drain_commands`: `while gs.is_open(): gs.send(queue.get())` until `CommandQueueEnd`. */
  async drainInto(gs: GuavaSocket): Promise<void> {
    try {
      while (gs.is_open()) {
        const command = await this.get()
        if (command === undefined) break
        gs.send(command as unknown as Record<string, unknown>)
      }
    } catch (error) {
      this.drainError = error
      this.onChange()
    }
  }

  private wakeUp(): void {
    const wake = this.wake
    this.wake = undefined
    wake?.()
    this.onChange()
  }
}
