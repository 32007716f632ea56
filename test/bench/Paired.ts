/**
 * Ratios of two sides measured in rounds side by side, for machines whose runs vary more than
 * the difference sought: each round of one side is divided by the other side's round next to
 * it, and the median of those ratios is given with its 95% bootstrap interval (2,000
 * resamples). An interval that holds 1 says the machine, not the change, made the difference.
 */

/** The median (the upper one of an even count). */
export const median = (values: ReadonlyArray<number>): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

export interface Interval {
  readonly median: number
  readonly low: number
  readonly high: number
}

/** The median of `values` and its 95% bootstrap interval. */
export const medianInterval = (values: ReadonlyArray<number>): Interval => {
  const medians = Array.from(
    { length: 2000 },
    () => median(Array.from(values, () => values[Math.floor(Math.random() * values.length)]!))
  ).sort((a, b) => a - b)
  return { median: median(values), low: medians[49]!, high: medians[1949]! }
}

/** The paired ratios `a[i] / b[i]`: their median and its interval. */
export const pairedRatio = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): Interval =>
  medianInterval(a.map((x, i) => x / b[i]!))

/** `1.712 (95% 1.650–1.800)`. */
export const showInterval = ({ high, low, median }: Interval, digits = 3): string =>
  `${median.toFixed(digits)} (95% ${low.toFixed(digits)}–${high.toFixed(digits)})`
