/**
 * The website chat widget (issue 32): one `<script src="…/widget.js" data-website-token="…" async>` tag.
 * Plain TypeScript, bundled by esbuild with socket.io-client. Everything lives in a shadow root; styles are
 * a constructed style sheet (never an inline `<style>` or `style` attribute, which a site's CSP may refuse);
 * every text a person wrote is set with `textContent`, never parsed as HTML.
 */
import { io, type Socket } from 'socket.io-client';

interface WidgetConfig {
  display_name: string;
  greeting_text: string | null;
  away_text: string | null;
  business_hours_text: string | null;
  prechat_fields: Record<'name' | 'email' | 'phone', 'off' | 'optional' | 'required'>;
  appearance: { color: string; position: 'right' | 'left' };
  max_text_length: number;
}
interface VisitorMessage {
  id: number;
  author: 'visitor' | 'agent';
  type: string;
  text: string | null;
  media: { url: string; kind: string; filename: string | null } | null;
  occurred_at: string;
}
interface Session {
  visitor_token: string;
  expires_in: number;
  conversation_id: number | null;
  widget: WidgetConfig;
}

const script = document.currentScript as HTMLScriptElement | null;
const websiteToken = script?.dataset.websiteToken ?? '';
const base = script ? new URL(script.src, location.href).origin : location.origin;
const api = `${base}/api/widget/${encodeURIComponent(websiteToken)}`;
const storageKey = `crm-widget:${websiteToken}`;
/**
 * A site that logs its customers in adds `data-identifier`, `data-identity-timestamp` (Unix seconds) and
 * `data-identity-signature` (hex HMAC-SHA256 of `<timestamp>.<identifier>` with the account's identity secret,
 * computed on its server at each page load): the visitor is then that customer on every device, and resumes by
 * signing again rather than with a stored token.
 */
const identity =
  script?.dataset.identifier && script.dataset.identitySignature && script.dataset.identityTimestamp
    ? { identifier: script.dataset.identifier, timestamp: Number(script.dataset.identityTimestamp), signature: script.dataset.identitySignature }
    : undefined;

const CSS = `
:host { all: initial; }
.root { position: fixed; bottom: 20px; z-index: 2147483000; font: 14px/1.4 system-ui, sans-serif; color: #1d2129; display: flex; flex-direction: column; }
.root.right { right: 20px; align-items: flex-end; } .root.left { left: 20px; align-items: flex-start; }
svg { width: 26px; height: 26px; fill: currentColor; display: block; margin: auto; }
.launcher { width: 56px; height: 56px; border-radius: 50%; border: 0; color: #fff; cursor: pointer; box-shadow: 0 4px 12px rgba(0,0,0,.25); }
.panel { display: none; flex-direction: column; width: 340px; height: 480px; max-height: calc(100vh - 100px); margin-bottom: 12px; background: #fff; border-radius: 12px; box-shadow: 0 8px 28px rgba(0,0,0,.25); overflow: hidden; }
.open .panel { display: flex; }
.header { padding: 12px 16px; color: #fff; }
.header .title { font-weight: 600; font-size: 16px; }
.header .hours { font-size: 12px; opacity: .9; }
.body { flex: 1; overflow-y: auto; padding: 12px; background: #f5f6f8; display: flex; flex-direction: column; gap: 6px; }
.msg { max-width: 80%; padding: 8px 10px; border-radius: 10px; white-space: pre-wrap; word-wrap: break-word; }
.msg.agent, .msg.note { align-self: flex-start; background: #fff; border: 1px solid #e3e5e8; }
.msg.note { color: #555; font-style: italic; }
.msg.visitor { align-self: flex-end; color: #fff; }
.msg img { max-width: 100%; border-radius: 6px; display: block; }
.msg a { color: inherit; }
.typing { font-size: 12px; color: #666; min-height: 16px; padding: 0 12px; background: #f5f6f8; }
form { display: flex; gap: 6px; padding: 8px; border-top: 1px solid #e3e5e8; }
form.prechat { flex-direction: column; padding: 12px; border: 0; }
input, textarea { font: inherit; padding: 8px; border: 1px solid #ccd0d5; border-radius: 8px; }
textarea { flex: 1; resize: none; height: 38px; }
button.send, button.start { border: 0; border-radius: 8px; color: #fff; padding: 0 14px; cursor: pointer; font: inherit; }
button.start { padding: 10px; }
button.attach { border: 0; background: none; cursor: pointer; color: #555; padding: 0; }
button.attach svg { width: 20px; height: 20px; }
.error { color: #b3261e; font-size: 12px; padding: 0 12px; }
`;

/** Icons as SVG paths (Material Design): chat, close, attach. */
const ICONS = {
  chat: 'M20 2H4a2 2 0 0 0-2 2v18l4-4h14a2 2 0 0 0 2-2V4a2 2 0 0 0-2-2z',
  close: 'M19 6.41 17.59 5 12 10.59 6.41 5 5 6.41 10.59 12 5 17.59 6.41 19 12 13.41 17.59 19 19 17.59 13.41 12z',
  attach: 'M16.5 6v11.5a4 4 0 0 1-8 0V5a2.5 2.5 0 0 1 5 0v10.5a1 1 0 0 1-2 0V6H10v9.5a2.5 2.5 0 0 0 5 0V5a4 4 0 0 0-8 0v12.5a5.5 5.5 0 0 0 11 0V6h-1.5z',
};

function icon(name: keyof typeof ICONS): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', ICONS[name]);
  svg.append(path);
  return svg;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown, token?: string): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${api}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), mode: 'cors' });
  if (!res.ok) {
    const problem = (await res.json().catch(() => ({}))) as { code?: string };
    throw Object.assign(new Error(problem.code ?? `HTTP ${res.status}`), { status: res.status, code: problem.code });
  }
  return (res.status === 204 ? null : await res.json()) as T;
}

async function start(): Promise<void> {
  if (!websiteToken) return;
  const config = await call<WidgetConfig>('GET', '/config');
  const host = el('div');
  host.id = 'crm-website-chat';
  document.body.appendChild(host);
  const shadow = host.attachShadow({ mode: 'open' });
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(CSS);
  shadow.adoptedStyleSheets = [sheet];
  const color = config.appearance.color;
  const root = el('div', `root ${config.appearance.position}`);
  const panel = el('div', 'panel');
  const header = el('div', 'header');
  header.append(el('div', 'title', config.display_name));
  const hours = [config.business_hours_text, config.away_text].filter(Boolean).join(' · ');
  if (hours) header.append(el('div', 'hours', hours));
  const body = el('div', 'body');
  const typing = el('div', 'typing');
  const error = el('div', 'error');
  const launcher = el('button', 'launcher');
  launcher.append(icon('chat'));
  launcher.setAttribute('aria-label', 'Chat with us');
  for (const e of [header, launcher]) e.style.background = color;
  panel.append(header, body, typing, error);
  root.append(panel, launcher);
  shadow.append(root);

  let session: Session | undefined;
  let socket: Socket | undefined;
  let lastAgentId = 0;
  const shown = new Set<number>();
  const isOpen = () => root.classList.contains('open');

  const show = (m: { author: VisitorMessage['author'] | 'note'; text: string | null; media: VisitorMessage['media']; id?: number }) => {
    if (m.id !== undefined) {
      if (shown.has(m.id)) return;
      shown.add(m.id);
    }
    const bubble = el('div', `msg ${m.author}`);
    if (m.author === 'visitor') bubble.style.background = color;
    if (m.media?.kind === 'image') {
      const img = el('img');
      img.src = m.media.url;
      img.alt = m.media.filename ?? 'image';
      bubble.append(img);
    } else if (m.media) {
      const a = el('a', undefined, m.media.filename ?? 'document');
      a.href = m.media.url;
      a.target = '_blank';
      a.rel = 'noopener noreferrer';
      bubble.append(a);
    }
    if (m.text) bubble.append(document.createTextNode(m.text));
    body.append(bubble);
    body.scrollTop = body.scrollHeight;
  };
  const markRead = () => {
    if (isOpen() && lastAgentId > 0) socket?.emit('widget.read', { message_id: lastAgentId });
  };
  const saveToken = (s: Session) => {
    session = s;
    localStorage.setItem(storageKey, s.visitor_token);
    if (socket) socket.auth = { website_token: websiteToken, token: s.visitor_token };
  };
  const resume = async (): Promise<boolean> => {
    if (identity) {
      try {
        saveToken(await call<Session>('POST', '/session', { identity }));
        return true;
      } catch (err) {
        error.textContent = (err as Error).message;
        return false;
      }
    }
    const stored = localStorage.getItem(storageKey);
    if (!stored) return false;
    try {
      saveToken(await call<Session>('POST', '/session', { visitor_token: stored }));
      return true;
    } catch (err) {
      // Another tab may have rotated it meanwhile: its newer token is in storage.
      const now = localStorage.getItem(storageKey);
      if (now && now !== stored) return resume();
      if ((err as { status?: number }).status === 401) localStorage.removeItem(storageKey);
      return false;
    }
  };

  const composer = el('form');
  const input = el('textarea');
  input.placeholder = 'Write a message…';
  input.maxLength = config.max_text_length;
  const attach = el('button', 'attach');
  attach.append(icon('attach'));
  attach.type = 'button';
  attach.setAttribute('aria-label', 'Attach a file');
  const file = el('input');
  file.type = 'file';
  file.accept = 'image/*,application/pdf,text/plain';
  file.hidden = true;
  const send = el('button', 'send', 'Send');
  send.type = 'submit';
  send.style.background = color;
  composer.append(attach, input, send, file);

  const connect = () => {
    if (!session) return;
    socket = io(`${base}/widget`, { transports: ['websocket'], auth: { website_token: websiteToken, token: session.visitor_token } });
    socket.on('widget.message', ({ message }: { message: VisitorMessage }) => {
      show(message);
      lastAgentId = Math.max(lastAgentId, message.id);
      typing.textContent = '';
      socket?.emit('widget.delivered', { message_id: message.id });
      markRead();
    });
    socket.on('widget.typing', ({ typing: on }: { typing: boolean }) => (typing.textContent = on ? `${config.display_name} is typing…` : ''));
    socket.on('connect_error', (err: Error & { data?: { code?: string } }) => {
      const code = err.data?.code;
      if (code === 'visitor_token_expired' || code === 'visitor_token_revoked') void resume().then((ok) => ok && socket?.connect());
    });
    // The service closes the sockets of a replaced token: this tab's own resume, or another tab's (whose token
    // is then in storage). Open again with the newest one.
    socket.on('disconnect', (reason: string) => {
      if (reason !== 'io server disconnect' || !session) return;
      const stored = localStorage.getItem(storageKey);
      if (!identity && stored && stored !== session.visitor_token) saveToken({ ...session, visitor_token: stored });
      socket?.connect();
    });
    // Refresh the token before it expires (a resume rotates it).
    setInterval(() => void resume(), Math.max(60, session.expires_in - 300) * 1000);
  };
  const loadHistory = async () => {
    if (!session) return;
    const { data } = await call<{ data: VisitorMessage[] }>('GET', '/messages?limit=50', undefined, session.visitor_token);
    for (const m of data.reverse()) {
      show(m);
      if (m.author === 'agent') lastAgentId = Math.max(lastAgentId, m.id);
    }
  };
  const openChat = async () => {
    panel.append(composer);
    if (config.greeting_text) show({ author: 'note', text: config.greeting_text, media: null });
    await loadHistory();
    connect();
    markRead();
  };

  composer.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text || !session) return;
    input.value = '';
    show({ author: 'visitor', text, media: null });
    call('POST', '/messages', { text, client_message_id: crypto.randomUUID() }, session.visitor_token).catch((err: Error) => (error.textContent = err.message));
    socket?.emit('widget.typing', { typing: false });
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      composer.requestSubmit();
    }
  });
  let typingSent = 0;
  input.addEventListener('input', () => {
    if (Date.now() - typingSent > 2000) {
      typingSent = Date.now();
      socket?.emit('widget.typing', { typing: true });
    }
  });
  attach.addEventListener('click', () => file.click());
  file.addEventListener('change', () => {
    const f = file.files?.[0];
    if (!f || !session) return;
    const token = session.visitor_token;
    void (async () => {
      const up = await call<{ media_id: number; upload_ticket: string; upload: { url: string; method: string; headers: Record<string, string> } }>(
        'POST',
        '/uploads',
        { file_name: f.name, content_type: f.type || 'application/octet-stream', size: f.size },
        token,
      );
      const put = await fetch(up.upload.url, { method: up.upload.method, headers: up.upload.headers, body: f });
      if (!put.ok) throw new Error(`upload ${put.status}`);
      await call('POST', '/messages', { attachment: { media_id: up.media_id, upload_ticket: up.upload_ticket } }, token);
      show({ author: 'visitor', text: f.name, media: null });
    })().catch((err: Error) => (error.textContent = err.message));
    file.value = '';
  });

  const prechat = () => {
    const form = el('form', 'prechat');
    const fields = (['name', 'email', 'phone'] as const).filter((f) => config.prechat_fields[f] !== 'off');
    const inputs = new Map<string, HTMLInputElement>();
    for (const f of fields) {
      const i = el('input');
      i.name = f;
      i.type = f === 'email' ? 'email' : f === 'phone' ? 'tel' : 'text';
      i.placeholder = { name: 'Your name', email: 'E-mail', phone: 'Phone' }[f] + (config.prechat_fields[f] === 'required' ? ' *' : '');
      i.required = config.prechat_fields[f] === 'required';
      inputs.set(f, i);
      form.append(i);
    }
    const go = el('button', 'start', 'Start chat');
    go.type = 'submit';
    go.style.background = color;
    form.append(go);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const values: Record<string, string> = {};
      for (const [k, i] of inputs) if (i.value.trim() !== '') values[k] = i.value.trim();
      call<Session>('POST', '/session', { prechat: values }).then(
        (s) => {
          saveToken(s);
          form.remove();
          void openChat();
        },
        (err: Error) => (error.textContent = err.message),
      );
    });
    body.append(form);
  };

  let started = false;
  launcher.addEventListener('click', () => {
    root.classList.toggle('open');
    launcher.replaceChildren(icon(isOpen() ? 'close' : 'chat'));
    if (isOpen() && !started) {
      started = true;
      void resume().then((ok) => (ok ? openChat() : identity ? undefined : prechat()));
    }
    markRead();
  });
  // A returning visitor: resume at once so that replies are heard while the chat is closed.
  if (identity || localStorage.getItem(storageKey)) {
    started = true;
    if (await resume()) await openChat();
    else if (!identity) prechat();
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => void start());
else void start();
