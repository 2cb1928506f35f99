/**
 * The visitor's messages not yet accepted by the service (issue 48): each keeps its `client_message_id` (the
 * service's idempotency key) from the first try, so sending it again (a retry, a reload, another tab) stores
 * it once. Pending messages are kept in localStorage until accepted, and sent again on reconnection, when the
 * browser comes back online, and with backoff (1 s doubling to 30 s); a refusal that sending again cannot cure
 * (a 4xx but 429) marks the message failed, and the visitor may retry it.
 */
import { ApiError } from './api.js';

export interface Outgoing {
  client_message_id: string;
  text?: string;
  attachment?: { media_id: number; upload_ticket: string };
  /** What the bubble shows for an attachment. */
  file?: { name: string; preview?: string };
  state: 'sending' | 'sent' | 'failed';
  /** The problem code of the last refusal (failed). */
  problem?: string;
}

export interface Outbox {
  /** Queues `message` and sends it now. */
  add(message: Omit<Outgoing, 'state'>): void;
  /** Sends a failed message again (the visitor's retry). */
  retry(id: string): void;
  /** Sends every pending message again now (reconnected, back online). */
  flush(): void;
  /** Pending messages kept from an earlier page (shown again, then sent). */
  restored(): Outgoing[];
}

export function createOutbox(storageKey: string, deliver: (m: Outgoing) => Promise<void>, changed: (m: Outgoing) => void): Outbox {
  const key = `${storageKey}:outbox`;
  const read = (): Outgoing[] => {
    try {
      return (JSON.parse(localStorage.getItem(key) ?? '[]') as Outgoing[]).filter((m) => m.state !== 'sent');
    } catch {
      return [];
    }
  };
  const pending = new Map<string, Outgoing>(read().map((m) => [m.client_message_id, { ...m, state: 'sending' as const }]));
  const restoredOnes = [...pending.values()];
  const inFlight = new Set<string>();
  /** Accepted here: another tab's copy in storage is dropped too. */
  const accepted = new Set<string>();
  let backoff = 1000;
  let timer: ReturnType<typeof setTimeout> | undefined;

  // Merged with what other tabs keep there. The file preview stays on the page: storage keeps what sending again needs.
  const save = () => {
    const others = read().filter((m) => !pending.has(m.client_message_id) && !accepted.has(m.client_message_id));
    const mine = [...pending.values()].map(({ file, ...m }) => ({ ...m, ...(file ? { file: { name: file.name } } : {}) }));
    localStorage.setItem(key, JSON.stringify([...others, ...mine]));
  };
  const later = () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      flush();
    }, backoff);
    backoff = Math.min(backoff * 2, 30_000);
  };
  const send = (m: Outgoing) => {
    if (inFlight.has(m.client_message_id)) return;
    inFlight.add(m.client_message_id);
    deliver(m).then(
      () => {
        inFlight.delete(m.client_message_id);
        pending.delete(m.client_message_id);
        accepted.add(m.client_message_id);
        save();
        backoff = 1000;
        changed({ ...m, state: 'sent' });
      },
      (err: unknown) => {
        inFlight.delete(m.client_message_id);
        if (err instanceof ApiError && !err.transient) {
          m.state = 'failed';
          m.problem = err.code;
          save();
          changed(m);
        } else later();
      },
    );
  };
  function flush() {
    for (const m of pending.values()) if (m.state === 'sending') send(m);
  }
  return {
    add(message) {
      const m: Outgoing = { ...message, state: 'sending' };
      pending.set(m.client_message_id, m);
      save();
      changed(m);
      send(m);
    },
    retry(id) {
      const m = pending.get(id);
      if (!m) return;
      m.state = 'sending';
      delete m.problem;
      save();
      changed(m);
      send(m);
    },
    flush,
    restored: () => restoredOnes,
  };
}
