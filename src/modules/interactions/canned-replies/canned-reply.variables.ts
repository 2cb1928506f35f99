/**
 * The placeholders of a canned reply's body (issue 49): `{{contact.name}}` and the other variables below, filled
 * from the conversation's records; custom fields by id, `{{contact.custom.12}}` (the conversation's contact) and
 * `{{group.custom.7}}` (its lead's group); and prompted ones, `{{?order number}}`, that the client asks the agent
 * for. Pure functions.
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
type BuiltInVariable = (typeof CANNED_REPLY_VARIABLES)[number];

/** The records whose custom fields a body may name: custom fields' record types (leads have none). */
const CUSTOM_FIELD_HOLDERS = ['contact', 'group'] as const;
export type CustomFieldHolder = (typeof CUSTOM_FIELD_HOLDERS)[number];
/** `contact.custom.12`: custom field 12 of the record. The id, not the name: names change and may repeat. */
type CustomFieldVariable = `${CustomFieldHolder}.custom.${number}`;
export type CannedReplyVariable = BuiltInVariable | CustomFieldVariable;

/** One spelling per field (no leading zero, at most an int4), so that a name is the same variable wherever it is written. */
const CUSTOM_FIELD_VARIABLE = /^(contact|group)\.custom\.([1-9][0-9]{0,9})$/;
const MAX_ID = 2_147_483_647;

/** The custom field variable `name` reads, or undefined when `name` is not one (`contact.custom.<id>`, `group.custom.<id>`). */
function customFieldOf(name: string): { holder: CustomFieldHolder; fieldId: number } | undefined {
  const m = CUSTOM_FIELD_VARIABLE.exec(name);
  const fieldId = m ? Number(m[2]) : NaN;
  return m && fieldId <= MAX_ID ? { holder: m[1] as CustomFieldHolder, fieldId } : undefined;
}

/** The custom field variables among `variables`, each with the record it reads and the field's id. */
export function customFieldVariables(variables: readonly CannedReplyVariable[]): { name: CannedReplyVariable; holder: CustomFieldHolder; fieldId: number }[] {
  return variables.flatMap((name) => {
    const f = customFieldOf(name);
    return f ? [{ name, ...f }] : [];
  });
}

/** The `unknown_variable` item's message for `name`, which is neither a variable nor a prompt. */
export function unknownVariable(name: string): string {
  const holder = /^([a-z_]+)\.custom(\.|$)/.exec(name)?.[1];
  if (holder === 'lead')
    return `unknown_variable: {{${name}}}: leads have no custom fields (contacts and groups do); a field of the lead's group is {{group.custom.<id>}}`;
  if (holder !== undefined && (CUSTOM_FIELD_HOLDERS as readonly string[]).includes(holder))
    return `unknown_variable: {{${name}}}: a custom field is named by its id, {{${holder}.custom.<id>}}`;
  return `unknown_variable: {{${name}}} is not a variable (see the field's description) nor a prompt ({{?label}})`;
}

const PLACEHOLDER = /\{\{\s*(\?)?\s*([^{}]*?)\s*\}\}/g;

/**
 * The variables and prompts `body` names, each once in order of appearance; `unknown` lists names that are neither.
 * A custom field variable is listed whatever the field: whether it exists is the service's check.
 */
export function placeholdersOf(body: string): { variables: CannedReplyVariable[]; prompts: string[]; unknown: string[] } {
  const variables = new Set<CannedReplyVariable>();
  const prompts = new Set<string>();
  const unknown = new Set<string>();
  for (const [, prompted, name] of body.matchAll(PLACEHOLDER)) {
    if (prompted) {
      if (name) prompts.add(name);
      else unknown.add('?');
    } else if ((CANNED_REPLY_VARIABLES as readonly string[]).includes(name!) || customFieldOf(name!)) variables.add(name as CannedReplyVariable);
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
