/**
 * A message carried from one page to the next (the API's `warning` after a campaign is created,
 * shown on the campaign's page).
 */

/**
 * @category models
 */
export interface Flash {
  readonly kind: "warning" | "success"
  readonly text: string
}

let pending: Flash | undefined

/**
 * @category constructors
 */
export const set = (flash: Flash): void => {
  pending = flash
}

/**
 * The pending message, once.
 *
 * @category constructors
 */
export const take = (): Flash | undefined => {
  const flash = pending
  pending = undefined
  return flash
}
