/**
 * An unbounded single-consumer queue read with `for await`: `push` never blocks, `end` lets the
 * reader finish once it has read everything pushed before.
 */
export class AsyncQueue<A> implements AsyncIterable<A> {
  private readonly items: Array<A> = []
  private waiting: ((result: IteratorResult<A, undefined>) => void) | undefined
  private ended = false

  push(item: A): void {
    if (this.ended) return
    const waiting = this.waiting
    if (waiting !== undefined) {
      this.waiting = undefined
      waiting({ done: false, value: item })
    } else {
      this.items.push(item)
    }
  }

  end(): void {
    if (this.ended) return
    this.ended = true
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.({ done: true, value: undefined })
  }

  get size(): number {
    return this.items.length
  }

  next(): Promise<IteratorResult<A, undefined>> {
    if (this.items.length > 0) return Promise.resolve({ done: false, value: this.items.shift() as A })
    if (this.ended) return Promise.resolve({ done: true, value: undefined })
    if (this.waiting !== undefined) return Promise.reject(new Error("AsyncQueue has a single reader"))
    return new Promise((resolve) => {
      this.waiting = resolve
    })
  }

  [Symbol.asyncIterator](): AsyncIterator<A, undefined> {
    return { next: () => this.next() }
  }
}
