/**
 * Listening to a call in progress. Comes with listen tickets (CONTRACT §8).
 */
export const Listener = (_: { readonly callId: string }) => null
