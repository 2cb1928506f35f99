/**
 * The placeholders of a canned reply's body (issue 49): `{{contact.name}}` and the other variables below, filled
 * from the conversation's records, and prompted ones, `{{?order number}}`, that the client asks the agent for.
 * Pure functions.
 */

/** The variables a body may name, each with where its value comes from. */
const CANNED_REPLY_VARIABLES = [
  'contact.name',
  'contact.phone',
  'contact.email',
  'lead.name',
  'lead.erp_id',
  'lead.email',
  'lead.phone',
  'lead.tax_id',
  'agent.name',
  'entity.name',
] as const;
export type CannedReplyVariable = (typeof CANNED_REPLY_VARIABLES)[number];

const PLACEHOLDER = /\{\{\s*(\?)?\s*([^{}]*?)\s*\}\}/g;

/** The variables and prompts `body` names, each once in order of appearance; `unknown` lists names that are neither. */
export function placeholdersOf(body: string): { variables: CannedReplyVariable[]; prompts: string[]; unknown: string[] } {
  const variables = new Set<CannedReplyVariable>();
  const prompts = new Set<string>();
  const unknown = new Set<string>();
  for (const [, prompted, name] of body.matchAll(PLACEHOLDER)) {
    if (prompted) {
      if (name) prompts.add(name);
      else unknown.add('?');
    } else if ((CANNED_REPLY_VARIABLES as readonly string[]).includes(name!)) variables.add(name as CannedReplyVariable);
    else unknown.add(name!);
  }
  return { variables: [...variables], prompts: [...prompts], unknown: [...unknown] };
}

/**
 * `body` filled: each variable from `values` (a null or absent one is reported in `missing` and left as written),
 * each prompt from `answers` (an unanswered one in `unanswered`, left as written).
 */
export function fill(
  body: string,
  values: Partial<Record<CannedReplyVariable, string | null>>,
  answers: Record<string, string>,
): { text: string; missing: CannedReplyVariable[]; unanswered: string[] } {
  const missing = new Set<CannedReplyVariable>();
  const unanswered = new Set<string>();
  const text = body.replace(PLACEHOLDER, (whole, prompted: string | undefined, name: string) => {
    if (prompted) {
      const answer = answers[name];
      if (answer === undefined || answer.trim() === '') {
        unanswered.add(name);
        return whole;
      }
      return answer;
    }
    const value = values[name as CannedReplyVariable];
    if (value === undefined || value === null || value === '') {
      missing.add(name as CannedReplyVariable);
      return whole;
    }
    return value;
  });
  return { text, missing: [...missing], unanswered: [...unanswered] };
}

/** Lower-cased, without accents (NFD marks removed): what search compares. */
export function searchKey(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}
