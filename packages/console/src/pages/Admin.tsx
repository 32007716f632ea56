/**
 * The admin pages (organizations, keys, numbers, DNC, webhooks). Comes with the admin lists.
 */
export const Admin = (_: { readonly orgId?: string | undefined; readonly tab?: string | undefined }) => null
