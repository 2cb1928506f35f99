/**
 * Contacts, leads and groups for the search module (issue 51): the hits of one search request, each kind only
 * for a caller who may list it (`contacts.view`, `leads.view`, `groups.view`: the rules of the lists they come
 * from, which show the entity's every record to whoever holds the code).
 */
import type { Db } from '../../db/client.js';
import type { SearchHit, SearchRequest } from '../../platform/search/search-request.js';
import { searchContacts, searchGroups, searchLeads } from './record-search.repository.js';

export interface RecordSearch {
  /** Up to `req.limit` hits of each of `types` the caller's `permissions` allow; none when `req.terms` is unset. */
  search(caller: { permissions: ReadonlySet<string> }, req: SearchRequest, types: { contacts: boolean; leads: boolean; groups: boolean }): Promise<SearchHit[]>;
}

export function createRecordSearch(deps: { db: Db }): RecordSearch {
  const { db } = deps;
  return {
    async search(caller, req, types) {
      if (req.terms === undefined) return [];
      const may = (code: string) => caller.permissions.has(code);
      const lists = await Promise.all([
        types.contacts && may('contacts.view') ? searchContacts(db, req) : [],
        types.leads && may('leads.view') ? searchLeads(db, req) : [],
        types.groups && may('groups.view') ? searchGroups(db, req) : [],
      ]);
      return lists.flat();
    },
  };
}
