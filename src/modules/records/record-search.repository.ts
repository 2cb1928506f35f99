/**
 * Search over contacts, leads and groups (issue 51, docs/decisions.md "Search"): every term is a substring
 * of the record's generated `search_text` (lower-cased, accents folded: `search_unaccent`, migration 0032) or,
 * when it looks like a phone, of its `phone_digits`; trigram GIN indexes answer both. A contact also matches
 * by one of its channels (an e-mail, a number). Scores are 0.5 + half the trigram word similarity of the query
 * to the text, so records rank above messages (docs/api/search.md "Ranking").
 */
import { and, desc, eq, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { afterKeyset, phoneDigitsOf, substringPattern, type SearchHit, type SearchRequest } from '../../platform/search/search-request.js';
import { contact, contactChannel } from './contact.table.js';
import { crmGroup } from './group.table.js';
import { lead } from './lead.table.js';

/** `text` contains `term` (folded like the column), or, phone-like, `digits` contains its digits. */
function termMatches(text: SQLWrapper, digits: SQLWrapper | undefined, term: string): SQL {
  const byText = sql`${text} like lower(search_unaccent(${substringPattern(term)}))`;
  const phone = phoneDigitsOf(term);
  return digits !== undefined && phone !== undefined ? sql`(${byText} or ${digits} like ${substringPattern(phone)})` : byText;
}

function conditions(req: SearchRequest, text: SQLWrapper, digits?: SQLWrapper): SQL[] {
  return [
    ...req.terms!.map((t) => termMatches(text, digits, t)),
    ...req.excluded.map((x) => sql`not (${text} like lower(search_unaccent(${substringPattern(x)})))`),
  ];
}

const scoreOf = (req: SearchRequest, text: SQLWrapper) => sql`(0.5 + 0.4999 * word_similarity(lower(search_unaccent(${req.full})), ${text}))::float8`;

/** Contacts whose name holds every term, or else one of whose channels does (scored by that channel). */
export async function searchContacts(db: Db, req: SearchRequest): Promise<SearchHit[]> {
  const byName = scoreOf(req, contact.searchText);
  const named = await db
    .select({ id: contact.id, name: contact.name, leadId: contact.leadId, groupId: contact.groupId, score: sql<number>`${byName}`.as('score') })
    .from(contact)
    .where(and(eq(contact.entityId, req.entityId), ...conditions(req, contact.searchText), afterKeyset(req.after, 'contact', byName, sql`${contact.id}`)))
    .orderBy(desc(sql`score`), desc(contact.id))
    .limit(req.limit);
  // By a channel: only contacts their name did not already find, so each contact has one score and one place in
  // the order (a keyset page never shows it twice); a contact with several matching channels counts its best.
  const byChannel = sql`max(${scoreOf(req, contactChannel.identifier)})`;
  const reached = await db
    .select({
      id: contact.id,
      name: contact.name,
      leadId: contact.leadId,
      groupId: contact.groupId,
      identifier: sql<string>`(array_agg(${contactChannel.identifier} order by ${scoreOf(req, contactChannel.identifier)} desc))[1]`,
      score: sql<number>`${byChannel}`.as('score'),
    })
    .from(contactChannel)
    .innerJoin(contact, eq(contact.id, contactChannel.contactId))
    .where(
      and(
        eq(contactChannel.entityId, req.entityId),
        ...conditions(req, contactChannel.identifier, contactChannel.phoneDigits),
        sql`not (${and(...conditions(req, contact.searchText))})`,
      ),
    )
    .groupBy(contact.id)
    .having(afterKeyset(req.after, 'contact', byChannel, sql`${contact.id}`))
    .orderBy(desc(sql`score`), desc(contact.id))
    .limit(req.limit);
  const hit = (r: (typeof named)[number], snippet: string): SearchHit => ({
    type: 'contact',
    id: r.id,
    score: Number(r.score),
    title: r.name,
    snippet,
    leadId: r.leadId,
    groupId: r.groupId,
  });
  return [...named.map((r) => hit(r, r.name)), ...reached.map((r) => hit(r, `${r.name} · ${r.identifier}`))];
}

/** Leads and clients whose name, e-mail, tax id or ERP id holds every term (phone-like terms also their phone's digits). */
export async function searchLeads(db: Db, req: SearchRequest): Promise<SearchHit[]> {
  const score = scoreOf(req, lead.searchText);
  const rows = await db
    .select({
      id: lead.id,
      name: lead.name,
      email: lead.email,
      phone: lead.phone,
      taxId: lead.taxId,
      groupId: lead.groupId,
      score: sql<number>`${score}`.as('score'),
    })
    .from(lead)
    .where(and(eq(lead.entityId, req.entityId), ...conditions(req, lead.searchText, lead.phoneDigits), afterKeyset(req.after, 'lead', score, sql`${lead.id}`)))
    .orderBy(desc(sql`score`), desc(lead.id))
    .limit(req.limit);
  return rows.map((r) => ({
    type: 'lead',
    id: r.id,
    score: Number(r.score),
    title: r.name,
    snippet: [r.name, r.email, r.phone, r.taxId].filter((v) => v !== null && v !== '').join(' · '),
    leadId: r.id,
    groupId: r.groupId,
  }));
}

/** Groups whose name holds every term. */
export async function searchGroups(db: Db, req: SearchRequest): Promise<SearchHit[]> {
  const score = scoreOf(req, crmGroup.searchText);
  const rows = await db
    .select({ id: crmGroup.id, name: crmGroup.name, score: sql<number>`${score}`.as('score') })
    .from(crmGroup)
    .where(and(eq(crmGroup.entityId, req.entityId), ...conditions(req, crmGroup.searchText), afterKeyset(req.after, 'group', score, sql`${crmGroup.id}`)))
    .orderBy(desc(sql`score`), desc(crmGroup.id))
    .limit(req.limit);
  return rows.map((r) => ({ type: 'group', id: r.id, score: Number(r.score), title: r.name, snippet: r.name, groupId: r.id }));
}
