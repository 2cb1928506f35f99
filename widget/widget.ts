/**
 * The website chat widget (issues 32 and 48): one `<script src="…/widget.js" data-website-token="…" async>` tag.
 * Plain TypeScript, bundled by esbuild with socket.io-client. Everything lives in a shadow root; styles are a
 * constructed style sheet (never an inline `<style>` or `style` attribute, which a site's CSP may refuse);
 * every text a person wrote is set with `textContent`, never parsed as HTML.
 *
 * Accessible (WCAG 2.2 AA): the launcher comes first in the tab order and tells whether the chat is open; the
 * panel is a labelled dialog that takes focus on open and gives it back on close (Escape closes); fields have
 * labels; new messages are announced politely (a `log`); errors are alerts. Under 480 px the panel takes the
 * screen. Words in Spanish or English (i18n.ts); messages never lost (session.ts, outbox.ts).
 */
import { io, type Socket } from 'socket.io-client';
import { ApiError, createApi, putWithProgress } from './api.js';
import { languageOf, problemText, textsFor } from './i18n.js';
import { createOutbox, type Outgoing } from './outbox.js';
import { createVisitorSession, type Identity, type WidgetConfig } from './session.js';
import { accessibleColor, CSS } from './styles.js';

interface VisitorMessage {
  id: number;
  author: 'visitor' | 'agent';
  type: string;
  text: string | null;
  media: { url: string; kind: string; filename: string | null } | null;
  status: string | null;
  occurred_at: string;
}

const script = document.currentScript as HTMLScriptElement | null;
const websiteToken = script?.dataset.websiteToken ?? '';
const base = script ? new URL(script.src, location.href).origin : location.origin;
const storageKey = `crm-widget:${websiteToken}`;
const lang = languageOf(script?.dataset.lang);
const t = textsFor(lang);
/**
 * A site that logs its customers in adds `data-identifier`, `data-identity-timestamp` (Unix seconds) and
 * `data-identity-signature` (hex HMAC-SHA256 of `<timestamp>.<identifier>` with the account's identity secret,
 * computed on its server at each page load): the visitor is then that customer on every device, and resumes by
 * signing again rather than with a stored token.
 */
const identity: Identity | undefined =
  script?.dataset.identifier && script.dataset.identitySignature && script.dataset.identityTimestamp
    ? { identifier: script.dataset.identifier, timestamp: Number(script.dataset.identityTimestamp), signature: script.dataset.identitySignature }
    : undefined;

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
  svg.setAttribute('focusable', 'false');
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

const clock = new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit' });

async function start(): Promise<void> {
  if (!websiteToken) return;
  const call = createApi(base, websiteToken);
  const config = await call<WidgetConfig>('GET', '/config');
  const color = accessibleColor(config.appearance.color);
  const host = el('div');
  host.id = 'crm-website-chat';
  document.body.appendChild(host);
  const shadow = host.attachShadow({ mode: 'open' });
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(CSS);
  shadow.adoptedStyleSheets = [sheet];

  // The launcher first in the tab order; the panel shows above it (column-reverse).
  const root = el('div', `root ${config.appearance.position}`);
  const launcher = el('button', 'launcher');
  launcher.type = 'button';
  launcher.setAttribute('aria-controls', 'crm-chat-panel');
  const badge = el('span', 'badge');
  badge.hidden = true;
  badge.setAttribute('aria-hidden', 'true');
  const panel = el('div', 'panel');
  panel.id = 'crm-chat-panel';
  panel.setAttribute('role', 'dialog');
  panel.setAttribute('aria-labelledby', 'crm-chat-title');
  const header = el('div', 'header');
  const titles = el('div', 'titles');
  const title = el('h2', undefined, config.display_name);
  title.id = 'crm-chat-title';
  titles.append(title);
  const hours = [config.business_hours_text, config.away_text].filter(Boolean).join(' · ');
  if (hours) titles.append(el('div', 'hours', hours));
  const close = el('button');
  close.type = 'button';
  close.setAttribute('aria-label', t.closeChat);
  close.append(icon('close'));
  header.append(titles, close);
  const body = el('div', 'body');
  body.setAttribute('role', 'log');
  body.setAttribute('aria-label', t.messages);
  body.tabIndex = 0;
  const typing = el('div', 'typing');
  const error = el('div', 'error');
  error.setAttribute('role', 'alert');
  for (const e of [header, launcher]) e.style.background = color;
  panel.append(header, body, typing, error);
  root.append(launcher, panel);
  shadow.append(root);

  let socket: Socket | undefined;
  let lastAgentId = 0;
  let unread = 0;
  const pageTitle = document.title;
  const shown = new Set<number>();
  const bubbles = new Map<string, HTMLElement>();
  const isOpen = () => root.classList.contains('open');
  const paintLauncher = () => {
    launcher.replaceChildren(icon(isOpen() ? 'close' : 'chat'), badge);
    launcher.setAttribute('aria-expanded', String(isOpen()));
    launcher.setAttribute('aria-label', isOpen() ? t.closeChat : unread > 0 ? `${t.openChat}, ${t.unread(unread)}` : t.openChat);
    badge.hidden = unread === 0;
    badge.textContent = String(unread);
    document.title = unread > 0 ? `${t.titleCue(unread)} · ${pageTitle}` : pageTitle;
  };
  const toNewest = () => requestAnimationFrame(() => (body.scrollTop = body.scrollHeight));
  const showError = (text: string): void => {
    error.textContent = text;
  };

  const session = createVisitorSession(call, storageKey, identity, (token) => {
    if (socket) socket.auth = { website_token: websiteToken, token };
  });

  /** A message in the log: author (agents by the website's name), content, time and, the visitor's, its state. */
  const bubbleOf = (author: 'visitor' | 'agent' | 'note', at: Date | null, fill: (bubble: HTMLElement) => void): HTMLElement => {
    const bubble = el('p', `msg ${author}`);
    if (author === 'visitor') bubble.style.background = color;
    bubble.append(el('span', author === 'agent' ? 'who' : 'sr', author === 'agent' ? config.display_name : author === 'visitor' ? t.you : ''));
    fill(bubble);
    const meta = el('span', 'meta');
    if (at) {
      const time = el('time', undefined, clock.format(at));
      time.dateTime = at.toISOString();
      meta.append(time);
    }
    bubble.append(meta);
    body.append(bubble);
    return bubble;
  };
  const fillMedia = (bubble: HTMLElement, media: VisitorMessage['media'], text: string | null) => {
    if (media?.kind === 'image') {
      const img = el('img');
      img.src = media.url;
      img.alt = media.filename ?? t.image;
      bubble.append(img);
    } else if (media) {
      const a = el('a', undefined, media.filename ?? 'document');
      a.href = media.url;
      a.target = '_blank';
      a.rel = 'noopener noreferrer';
      bubble.append(a);
    }
    if (text) bubble.append(el('span', 'text', text));
  };
  const stateOf = (bubble: HTMLElement, state: string, retry?: () => void) => {
    const meta = bubble.querySelector('.meta')!;
    meta.querySelector('.state')?.remove();
    meta.querySelector('button')?.remove();
    const label = { sending: t.sending, sent: `✓ ${t.sent}`, read: `✓✓ ${t.read}`, failed: t.failed }[state] ?? '';
    meta.append(el('span', 'state', ` · ${label}`));
    bubble.classList.toggle('failed', state === 'failed');
    bubble.dataset.state = state;
    if (retry) {
      const again = el('button', undefined, t.retry);
      again.type = 'button';
      again.addEventListener('click', retry);
      meta.append(again);
    }
  };
  const showServerMessage = (m: VisitorMessage) => {
    if (shown.has(m.id)) return;
    shown.add(m.id);
    const bubble = bubbleOf(m.author, new Date(m.occurred_at), (b) => fillMedia(b, m.media, m.text));
    if (m.author === 'visitor') stateOf(bubble, m.status === 'read' ? 'read' : 'sent');
    else lastAgentId = Math.max(lastAgentId, m.id);
  };
  const markRead = () => {
    if (isOpen() && lastAgentId > 0) socket?.emit('widget.read', { message_id: lastAgentId });
  };

  const outbox = createOutbox(
    storageKey,
    async (m) => {
      await session.authed('POST', '/messages', {
        client_message_id: m.client_message_id,
        ...(m.text !== undefined ? { text: m.text } : {}),
        ...(m.attachment ? { attachment: m.attachment } : {}),
      });
    },
    (m) => {
      const bubble = bubbles.get(m.client_message_id) ?? outgoingBubble(m);
      stateOf(bubble, m.state, m.state === 'failed' ? () => outbox.retry(m.client_message_id) : undefined);
      if (m.state === 'failed') showError(problemText(lang, m.problem));
      else if (m.state === 'sent' && error.textContent === t.offline) showError('');
    },
  );
  function outgoingBubble(m: Outgoing): HTMLElement {
    const bubble = bubbleOf('visitor', new Date(), (b) => {
      if (m.file?.preview) {
        const img = el('img');
        img.src = m.file.preview;
        img.alt = m.file.name;
        b.append(img);
      } else if (m.file) b.append(el('span', 'text', m.file.name));
      if (m.text) b.append(el('span', 'text', m.text));
    });
    bubbles.set(m.client_message_id, bubble);
    toNewest();
    return bubble;
  }

  const composer = el('form', 'composer');
  const input = el('textarea');
  input.placeholder = t.placeholder;
  input.setAttribute('aria-label', t.message);
  input.maxLength = config.max_text_length;
  const attach = el('button', 'attach');
  attach.append(icon('attach'));
  attach.type = 'button';
  attach.setAttribute('aria-label', t.attach);
  const file = el('input');
  file.type = 'file';
  file.accept = config.attachments.accept.join(',');
  file.hidden = true;
  file.tabIndex = -1;
  file.setAttribute('aria-label', t.attach);
  const send = el('button', 'send', t.send);
  send.type = 'submit';
  send.style.background = color;
  composer.append(attach, input, send, file);

  let connected = false;
  const connect = () => {
    const token = session.token();
    if (!token || connected) return;
    connected = true;
    socket = io(`${base}/widget`, { transports: ['websocket'], auth: { website_token: websiteToken, token } });
    socket.on('connect', () => outbox.flush());
    socket.on('widget.message', ({ message }: { message: VisitorMessage }) => {
      showServerMessage(message);
      toNewest();
      typing.textContent = '';
      socket?.emit('widget.delivered', { message_id: message.id });
      if (!isOpen() || document.hidden) {
        unread++;
        paintLauncher();
      }
      markRead();
    });
    // The agent read the conversation: what was sent before is read.
    socket.on('widget.read', () => {
      for (const b of body.querySelectorAll<HTMLElement>('.msg.visitor[data-state="sent"]')) stateOf(b, 'read');
    });
    socket.on('widget.typing', ({ typing: on }: { typing: boolean }) => (typing.textContent = on ? t.typing(config.display_name) : ''));
    socket.on('connect_error', (err: Error & { data?: { code?: string } }) => {
      const code = err.data?.code;
      if (code === 'visitor_token_expired' || code === 'visitor_token_revoked')
        void session.resume().then(
          (ok) => ok && socket?.connect(),
          (e: unknown) => showError(problemText(lang, e instanceof ApiError ? e.code : undefined)),
        );
    });
    // The service closes the sockets of a replaced token (this tab's resume, or another tab's): open again with the newest.
    socket.on('disconnect', (reason: string) => {
      if (reason === 'io server disconnect') socket?.connect();
    });
  };
  const loadHistory = async () => {
    const { data } = await session.authed<{ data: VisitorMessage[] }>('GET', '/messages?limit=50');
    for (const m of data.reverse()) showServerMessage(m);
  };
  let chatting = false;
  const openChat = async () => {
    chatting = true;
    panel.append(composer);
    if (config.greeting_text) bubbleOf('note', null, (b) => b.append(document.createTextNode(config.greeting_text!)));
    await loadHistory().catch((e: unknown) => showError(problemText(lang, e instanceof ApiError ? e.code : undefined)));
    for (const m of outbox.restored()) {
      outgoingBubble(m);
      stateOf(bubbles.get(m.client_message_id)!, 'sending');
    }
    connect();
    outbox.flush();
    toNewest();
    markRead();
    if (isOpen()) input.focus();
  };

  composer.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text || !session.token()) return;
    input.value = '';
    outbox.add({ client_message_id: crypto.randomUUID(), text });
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
    file.value = '';
    if (f) void upload(f);
  });
  /** Uploads `f` with a preview and progress, then queues its message; a refusal shows on the bubble with a retry. */
  async function upload(f: File): Promise<void> {
    showError('');
    const type = f.type.toLowerCase();
    if (!config.attachments.accept.includes(type)) {
      showError(t.fileNotAllowed);
      return;
    }
    if (f.size > config.attachments.max_bytes[type.startsWith('image/') ? 'image' : 'document']) {
      showError(t.fileTooLarge);
      return;
    }
    const id = crypto.randomUUID();
    const preview = type.startsWith('image/') ? await dataUrlOf(f) : undefined;
    const bubble = outgoingBubble({ client_message_id: id, file: { name: f.name, ...(preview ? { preview } : {}) }, state: 'sending' });
    stateOf(bubble, 'sending');
    const progress = el('progress');
    progress.max = 1;
    progress.value = 0;
    progress.setAttribute('aria-label', `${t.uploading} ${f.name}`);
    bubble.insertBefore(progress, bubble.querySelector('.meta'));
    try {
      const up = await session.authed<{ media_id: number; upload_ticket: string; upload: { url: string; method: string; headers: Record<string, string> } }>(
        'POST',
        '/uploads',
        { file_name: f.name, content_type: type, size: f.size },
      );
      await putWithProgress(up.upload, f, (done) => (progress.value = done));
      progress.remove();
      outbox.add({
        client_message_id: id,
        attachment: { media_id: up.media_id, upload_ticket: up.upload_ticket },
        file: { name: f.name, ...(preview ? { preview } : {}) },
      });
    } catch (err) {
      progress.remove();
      stateOf(bubble, 'failed', () => {
        bubble.remove();
        void upload(f);
      });
      showError(problemText(lang, err instanceof ApiError ? err.code : undefined));
    }
  }

  const prechat = () => {
    const form = el('form', 'prechat');
    form.append(el('p', 'msg note', t.prechatIntro));
    const fields = (['name', 'email', 'phone'] as const).filter((f) => config.prechat_fields[f] !== 'off');
    const inputs = new Map<string, HTMLInputElement>();
    for (const f of fields) {
      const required = config.prechat_fields[f] === 'required';
      const label = el('label', undefined, t[f] + (required ? ` (${t.required})` : ''));
      label.htmlFor = `crm-chat-${f}`;
      const i = el('input');
      i.id = `crm-chat-${f}`;
      i.name = f;
      i.type = f === 'email' ? 'email' : f === 'phone' ? 'tel' : 'text';
      i.autocomplete = f === 'phone' ? 'tel' : f;
      i.required = required;
      inputs.set(f, i);
      form.append(label, i);
    }
    const go = el('button', 'start', t.start);
    go.type = 'submit';
    go.style.background = color;
    form.append(go);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const values: Record<string, string> = {};
      for (const [k, i] of inputs) if (i.value.trim() !== '') values[k] = i.value.trim();
      session.start(values).then(
        () => {
          form.remove();
          showError('');
          void openChat();
        },
        (err: unknown) => showError(problemText(lang, err instanceof ApiError ? err.code : 'network')),
      );
    });
    body.append(form);
    if (isOpen()) inputs.values().next().value?.focus();
  };

  let started = false;
  const toggle = (open: boolean) => {
    root.classList.toggle('open', open);
    if (open) {
      unread = 0;
      if (!started) {
        started = true;
        void session.resume().then(
          (ok) => (ok ? openChat() : identity ? undefined : prechat()),
          (err: unknown) => (identity ? showError(problemText(lang, err instanceof ApiError ? err.code : undefined)) : prechat()),
        );
      } else if (chatting) input.focus();
      else shadow.querySelector<HTMLInputElement>('form.prechat input')?.focus();
      toNewest();
      markRead();
    } else launcher.focus();
    paintLauncher();
  };
  launcher.addEventListener('click', () => toggle(!isOpen()));
  close.addEventListener('click', () => toggle(false));
  panel.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      toggle(false);
    }
  });
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && isOpen()) {
      unread = 0;
      paintLauncher();
      markRead();
    }
  });
  window.addEventListener('online', () => outbox.flush());
  window.addEventListener('offline', () => showError(t.offline));
  paintLauncher();
  // A returning visitor: resume at once so that replies are heard while the chat is closed.
  if (identity || localStorage.getItem(storageKey)) {
    started = true;
    const ok = await session.resume().catch(() => false);
    if (ok) await openChat();
    else if (!identity) prechat();
  }
}

function dataUrlOf(f: Blob): Promise<string | undefined> {
  return new Promise((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve(typeof reader.result === 'string' ? reader.result : undefined);
    reader.onerror = () => resolve(undefined);
    reader.readAsDataURL(f);
  });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => void start());
else void start();
