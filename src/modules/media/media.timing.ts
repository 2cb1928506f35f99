/**
 * How long presigned URLs and a visitor's pending upload last: read by the service (presigning, the visitor
 * budgets) and by housekeeping (removing what was never sent).
 */

/** Seconds a presigned upload URL is valid. */
export const UPLOAD_URL_TTL_SECONDS = 15 * 60;
/** Seconds a presigned download URL is valid. */
export const DOWNLOAD_URL_TTL_SECONDS = 5 * 60;
/**
 * Milliseconds a visitor's presigned upload holds a place among its pending ones; housekeeping removes it
 * after that if unsent. Its URL is valid for the first 15 minutes of them.
 */
export const VISITOR_PENDING_TTL_MS = (UPLOAD_URL_TTL_SECONDS + 5 * 60) * 1000;
