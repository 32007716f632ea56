/**
 * The webhook events a call caused, from the admin API's deliveries (shown with the admin token).
 */
export const CallEvents = (_: { readonly callId: string }) => null
