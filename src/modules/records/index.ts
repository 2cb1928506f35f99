/**
 * Records: groups, leads and clients, contacts with their channel identifiers, and seller assignments.
 * Other modules use what this file exports: the services, the contact identity functions, the events,
 * and `hasEffectiveSeller`, the seller predicate records publishes for SQL over its stored derivation
 * (docs/architecture.md).
 */
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AuditTrail } from '../audit/index.js';
import type { AppContext } from '../../platform/context.js';
import { registerBareAndApi, registerRoutes } from '../../platform/http/dual-prefix.js';
import type { IdentityService } from '../identity/index.js';
import type { Labels } from '../labels/index.js';
import { groupRoutes } from './group.routes.js';
import { leadRoutes } from './lead.routes.js';
import { contactRoutes } from './contact.routes.js';
import { assignmentRoutes } from './assignment.routes.js';
import { createGroupService } from './group.service.js';
import { createLeadService, type LeadService } from './lead.service.js';
import { createContactService } from './contact.service.js';
import { createAssignmentService, type AssignmentService } from './assignment.service.js';
import { createRecordLabels, type RecordLabels } from './record-labels.service.js';
import { recordLabelRoutes } from './record-labels.routes.js';
import { createRecordImport, type RecordImport } from './record-import.service.js';

import { createRecordSearch, type RecordSearch } from './record-search.service.js';

export type { LeadService } from './lead.service.js';
export type { RecordImport, LeadMatchColumn, ImportedChannel } from './record-import.service.js';
export type { RecordSearch } from './record-search.service.js';
export { findOrCreateContact, findOrCreateContacts, sellersOf } from './contact-identity.service.js';
export { normalizeChannelIdentifier, normalizePhone, type ContactChannelType } from './channel-identifier.js';
export { listGroupClients, type GroupClient } from './group-clients.service.js';
export { createRecordLookup, createContactPlacement, createLeadPlacement, createRecordCards, type RecordCard } from './record-lookup.js';
export { effectiveSellerLeadIds, hasEffectiveSeller } from './seller-derivation.sql.js';
export { leadLabelled } from './label-filter.sql.js';
export { effectiveLeadsOf, rebuildLeadSellers } from './lead-seller.repository.js';
export { seedRecordsDemo } from './demo.seed.js';
export { seedInvoicesDemo, type InvoicesDemo } from './invoice-clients.demo.seed.js';

export interface RecordsModule {
  leads: LeadService;
  assignments: AssignmentService;
  /** Labels on contacts and leads (issue 49). */
  labels: RecordLabels;
  /** Batches of leads and contacts written by imports (issue 52). */
  imports: RecordImport;
  /** Contacts, leads and groups for the search module (issue 51). */
  search: RecordSearch;
}

/** Registers groups, leads, contacts, assignments and their labels, bare and under `/api`; returns the services other modules use. */
export async function registerRecordsModule(
  app: FastifyInstance,
  ctx: AppContext,
  identity: IdentityService,
  catalogue: Labels,
  audit: AuditTrail,
): Promise<RecordsModule> {
  const deps = { db: ctx.db, events: ctx.events, audit };
  const groups = createGroupService(deps);
  const leads = createLeadService({ ...deps, database: ctx.database });
  const contacts = createContactService(deps);
  const assignments = createAssignmentService({ ...deps, identity });
  const labels = createRecordLabels({ db: ctx.db, labels: catalogue });
  const plugin: FastifyPluginAsyncTypebox = async (scope) => {
    await registerRoutes(scope, groupRoutes, { service: groups });
    await registerRoutes(scope, leadRoutes, { service: leads });
    await registerRoutes(scope, contactRoutes, { service: contacts });
    await registerRoutes(scope, assignmentRoutes, { service: assignments });
    await registerRoutes(scope, recordLabelRoutes, { service: labels });
  };
  await registerBareAndApi(app, plugin, {});
  return { leads, assignments, labels, imports: createRecordImport(), search: createRecordSearch({ db: ctx.db }) };
}
