/**
 * Snippets as HTML (issue 51): the owners mark matched parts with two control characters
 * (`MARK_START`/`MARK_END`); everything else is escaped, then the marks become `<mark>` elements, so no text
 * of a message or a record can inject markup.
 */
import { MARK_END, MARK_START } from '../../platform/search/search-request.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `marked` (plain text with marks) as escaped HTML with `<mark>…</mark>`; an unclosed mark is closed at the end. */
export function snippetHtml(marked: string): string {
  let open = false;
  let out = '';
  for (const ch of marked) {
    if (ch === MARK_START) {
      if (!open) out += '<mark>';
      open = true;
    } else if (ch === MARK_END) {
      if (open) out += '</mark>';
      open = false;
    } else out += ESCAPES[ch] ?? ch;
  }
  return open ? `${out}</mark>` : out;
}

/** `text` folded for comparison, one folded character per original one (accents dropped, lower-cased). */
function fold(ch: string): string {
  const f = ch.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  return f.length === 1 ? f : ch.toLowerCase().slice(0, 1) || ch;
}

/** Marks every occurrence of `terms` in `text`, ignoring case and accents (records' snippets). */
export function markTerms(text: string, terms: readonly string[]): string {
  const chars = [...text];
  const folded = chars.map(fold).join('');
  const marked = new Array<boolean>(chars.length).fill(false);
  for (const term of terms) {
    const t = [...term].map(fold).join('');
    if (t.length === 0) continue;
    for (let at = folded.indexOf(t); at >= 0; at = folded.indexOf(t, at + 1)) {
      for (let i = at; i < at + t.length; i++) marked[i] = true;
    }
  }
  let out = '';
  chars.forEach((ch, i) => {
    if (marked[i] && !marked[i - 1]) out += MARK_START;
    out += ch;
    if (marked[i] && !marked[i + 1]) out += MARK_END;
  });
  return out;
}
