/**
 * The visitor's session across tabs (issue 48, "never lose a visitor's message"). An anonymous visitor's token
 * lives in localStorage and a resume rotates it (the replaced token is revoked and its sockets closed), so the
 * tabs agree on the newest: each adopts the token another tab stored (the `storage` event), and a request
 * refused as `visitor_token_revoked` or `visitor_token_expired` is sent again with the stored token, or after a
 * resume. A verified visitor (the site's signature) has tokens that coexist on every tab and device; it renews
 * by signing again. Resumes are single-flight within a tab.
 */
import { ApiError, type Call } from './api.js';

export interface WidgetConfig {
  display_name: string;
  greeting_text: string | null;
  away_text: string | null;
  business_hours_text: string | null;
  prechat_fields: Record<'name' | 'email' | 'phone', 'off' | 'optional' | 'required'>;
  appearance: { color: string; position: 'right' | 'left' };
  max_text_length: number;
  attachments: { accept: string[]; max_bytes: { image: number; document: number } };
}

interface SessionResponse {
  visitor_token: string;
  expires_in: number;
  conversation_id: number | null;
}

export interface Identity {
  identifier: string;
  timestamp: number;
  signature: string;
}

export interface VisitorSession {
  /** The token requests go with now, if any. */
  token(): string | undefined;
  /** Resumes a returning visitor (stored token or identity); false when there is none to resume. ApiError when refused. */
  resume(): Promise<boolean>;
  /** Starts a new visitor with the pre-chat answers. */
  start(prechat: Record<string, string>): Promise<void>;
  /** `call` with the visitor's token, sent again once with a renewed token when the token was replaced or expired. */
  authed<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T>;
}

const STALE = new Set(['visitor_token_revoked', 'visitor_token_expired']);

export function createVisitorSession(call: Call, storageKey: string, identity: Identity | undefined, onToken: (token: string) => void): VisitorSession {
  let token: string | undefined;
  let renewing: Promise<boolean> | undefined;
  let refresh: ReturnType<typeof setTimeout> | undefined;

  const adopt = (s: SessionResponse | string) => {
    const next = typeof s === 'string' ? s : s.visitor_token;
    if (next === token) return;
    token = next;
    if (!identity) localStorage.setItem(storageKey, next);
    onToken(next);
    if (typeof s !== 'string') {
      // Renewed before it expires (a resume rotates it; a verified visitor signs again).
      clearTimeout(refresh);
      refresh = setTimeout(() => void renew().catch(() => undefined), Math.max(60, s.expires_in - 300) * 1000);
    }
  };
  const stored = () => (identity ? undefined : (localStorage.getItem(storageKey) ?? undefined));

  // Another tab resumed: its token replaced this one's (whose sockets the service closes).
  window.addEventListener('storage', (e) => {
    if (!identity && e.key === storageKey && e.newValue) adopt(e.newValue);
  });

  /** A fresh token: another tab's when it stored a newer one, else a resume (identity or stored token). */
  async function resumeOnce(): Promise<boolean> {
    if (identity) {
      adopt(await call<SessionResponse>('POST', '/session', { identity }));
      return true;
    }
    const mine = stored();
    if (!mine) return false;
    if (mine !== token && token !== undefined) {
      adopt(mine);
      return true;
    }
    try {
      adopt(await call<SessionResponse>('POST', '/session', { visitor_token: mine }));
      return true;
    } catch (err) {
      // Two tabs resumed the same token at once: the other won and is storing its new one.
      if (err instanceof ApiError && err.code === 'visitor_token_revoked') {
        for (let i = 0; i < 10; i++) {
          await new Promise((r) => setTimeout(r, 100));
          const now = stored();
          if (now && now !== mine) {
            adopt(now);
            return true;
          }
        }
      }
      if (err instanceof ApiError && err.status === 401) localStorage.removeItem(storageKey);
      throw err;
    }
  }
  function renew(): Promise<boolean> {
    renewing ??= resumeOnce().finally(() => (renewing = undefined));
    return renewing;
  }

  return {
    token: () => token,
    resume: renew,
    async start(prechat) {
      adopt(await call<SessionResponse>('POST', '/session', { prechat }));
    },
    async authed<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
      const sentWith = token;
      try {
        return await call<T>(method, path, body, sentWith);
      } catch (err) {
        if (!(err instanceof ApiError) || !STALE.has(err.code)) throw err;
        // Renewed meanwhile (another request, another tab): send again with the new token.
        if (token === sentWith) await renew();
        return call<T>(method, path, body, token);
      }
    },
  };
}
