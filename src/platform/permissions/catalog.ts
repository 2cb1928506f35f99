/**
 * The permission catalogue: every code of SPEC "Permission codes (exact)", with its module, label and the
 * codes it implies. This is the single source for the database seed, `/api/permissions/schema` and its
 * ETag (`SCHEMA_VERSION`). Implication rules are in docs/decisions.md ("Permission implications").
 */
import { createHash } from 'node:crypto';

export interface PermissionDefinition {
  code: string;
  module: PermissionModule;
  label: string;
  /** Codes granted together with this one (direct implications; the closure is computed). */
  implies: string[];
}

export const PERMISSION_MODULES = [
  { key: 'cartera', label: 'Cartera' },
  { key: 'registros', label: 'Registros' },
  { key: 'catalogo', label: 'Catalogo' },
  { key: 'configuracion', label: 'Configuracion' },
  { key: 'administracion', label: 'Administracion' },
  // Not in SPEC's catalogue, which has no workflow codes: our addition (docs/decisions.md "Workflows").
  { key: 'workflows', label: 'Workflows' },
  // Not in SPEC's catalogue either: who sees and answers which conversations (docs/decisions.md "Conversation visibility").
  { key: 'conversaciones', label: 'Conversaciones' },
] as const;
type PermissionModule = (typeof PERMISSION_MODULES)[number]['key'];

const def = (code: string, module: PermissionModule, label: string, implies: string[] = []): PermissionDefinition => ({
  code,
  module,
  label,
  implies,
});

export const PERMISSIONS: readonly PermissionDefinition[] = [
  def('cartera.leads_list.view', 'cartera', 'View the leads portfolio'),
  def('cartera.clients_list.view', 'cartera', 'View the clients portfolio'),
  def('cartera.lead_detail.view', 'cartera', 'View lead detail'),
  def('cartera.lead_detail.edit', 'cartera', 'Edit lead detail', ['cartera.lead_detail.view']),
  def('cartera.client_detail.view', 'cartera', 'View client detail'),
  def('cartera.client_detail.edit', 'cartera', 'Edit client detail', ['cartera.client_detail.view']),
  def('cartera.seller_assignment', 'cartera', 'Assign a seller'),
  def('cartera.export_excel', 'cartera', 'Export to a spreadsheet'),

  def('groups.view', 'registros', 'View groups'),
  def('groups.create', 'registros', 'Create groups', ['groups.view']),
  def('groups.edit', 'registros', 'Edit groups', ['groups.view']),
  def('leads.view', 'registros', 'View leads'),
  def('leads.create', 'registros', 'Create leads', ['leads.view']),
  def('leads.edit', 'registros', 'Edit leads', ['leads.view']),
  def('contacts.view', 'registros', 'View contacts'),
  def('contacts.create', 'registros', 'Create contacts', ['contacts.view']),
  def('contacts.edit', 'registros', 'Edit contacts', ['contacts.view']),
  def('group_assignments.manage', 'registros', 'Manage group assignments', ['groups.view']),
  def('lead_assignments.manage', 'registros', 'Manage lead assignments', ['leads.view']),
  def('contact_assignments.manage', 'registros', 'Manage contact assignments', ['contacts.view']),
  def('entity_channel_accounts.view', 'registros', 'View channel accounts'),
  def('entity_channel_accounts.create', 'registros', 'Create channel accounts', ['entity_channel_accounts.view']),
  def('entity_channel_accounts.edit', 'registros', 'Edit channel accounts', ['entity_channel_accounts.view']),

  def('catalog.view', 'catalogo', 'View the catalog'),
  def('catalog.seller_change', 'catalogo', 'Change the seller in the catalog', ['catalog.view']),
  def('orders.view', 'catalogo', 'View orders'),
  def('orders.create', 'catalogo', 'Create orders', ['orders.view']),
  def('quotes.view', 'catalogo', 'View quotes'),
  def('quotes.create', 'catalogo', 'Create quotes', ['quotes.view']),

  def('custom_field_types.view', 'configuracion', 'View custom field types'),
  def('custom_field_groups.view', 'configuracion', 'View custom field groups'),
  def('custom_field_groups.create', 'configuracion', 'Create custom field groups', ['custom_field_groups.view']),
  def('custom_field_groups.edit', 'configuracion', 'Edit custom field groups', ['custom_field_groups.view']),
  def('custom_fields.view', 'configuracion', 'View custom fields'),
  def('custom_fields.create', 'configuracion', 'Create custom fields', ['custom_fields.view']),
  def('custom_fields.edit', 'configuracion', 'Edit custom fields', ['custom_fields.view']),

  def('roles.view', 'administracion', 'View roles'),
  def('roles.create', 'administracion', 'Create roles', ['roles.view']),
  def('roles.edit', 'administracion', 'Edit roles', ['roles.view']),
  def('subscriptions.view', 'administracion', 'View subscriptions'),
  def('subscriptions.create', 'administracion', 'Create subscriptions', ['subscriptions.view']),
  def('subscriptions.edit', 'administracion', 'Edit subscriptions', ['subscriptions.view']),
  def('permissions.catalog.view', 'administracion', 'View the permission catalogue'),
  def('communications.command_palette.view', 'administracion', 'Use the communications command palette'),

  def('workflows.view', 'workflows', 'View workflows and their executions'),
  def('workflows.manage', 'workflows', 'Create, change, enable and delete workflows', ['workflows.view']),
  def('workflows.execute', 'workflows', 'Run workflows manually', ['workflows.view']),

  // Without view_all an agent sees only their own, their queues' waiting and their leads' conversations;
  // without reply_any they answer only those assigned to them (claiming an unassigned one first).
  def('conversations.view_all', 'conversaciones', 'See every conversation of the entity'),
  def('conversations.reply_any', 'conversaciones', 'Answer any visible conversation, whoever it is assigned to'),
  // Service levels (issue 31): business hours and SLA policies, read and changed.
  def('sla_policies.view', 'conversaciones', 'View business hours and SLA policies'),
  def('sla_policies.edit', 'conversaciones', 'Create, change and delete business hours and SLA policies', ['sla_policies.view']),
  // Without it an agent's conversation reports show only their own rows (docs/api/interactions.md "Reports").
  def('reports.view', 'conversaciones', 'See the conversation reports of every agent, queue and channel'),
  // Canned replies (issue 49): everyone keeps personal ones; this writes the queues' and the entity's.
  def('canned_replies.manage', 'conversaciones', "Create, change and delete the queues' and the entity's canned replies"),
  // Labels (issue 49): every member reads the catalogue and labels what they may see or edit; this writes the catalogue.
  def('labels.manage', 'configuracion', "Create, rename, recolour and delete the entity's labels"),
  // Imports (issue 52): bringing a company's customers in from a file.
  def('imports.run', 'registros', 'Import leads and contacts from CSV and xlsx files, and save column mappings'),
  // Integrations (issue 53): API keys for other systems, and the outbound webhooks they subscribe to.
  def('api_keys.manage', 'administracion', "Create, list and revoke the entity's API keys (never more than one's own codes)"),
  def('webhooks.manage', 'administracion', "Create, change, rotate and replay the entity's outbound webhooks"),
  // Trust (issue 54): reading the audit trail, and customers' requests to hand over or erase their data.
  def('audit.view', 'administracion', "Read and export the entity's audit trail"),
  def('privacy.manage', 'administracion', "Export or erase a customer's personal data; set the entity's retention policies", ['audit.view']),
];

export const ALL_PERMISSION_CODES: readonly string[] = PERMISSIONS.map((p) => p.code);
const KNOWN = new Set(ALL_PERMISSION_CODES);

/** Whether `code` is in the catalogue. */
export function isPermissionCode(code: string): boolean {
  return KNOWN.has(code);
}

/** Version of the catalogue for clients (SPEC "Versioning"): a hash of codes, labels, modules and implications. */
export const SCHEMA_VERSION = createHash('sha256')
  .update(JSON.stringify({ modules: PERMISSION_MODULES, permissions: PERMISSIONS }))
  .digest('hex')
  .slice(0, 16);

/** Direct implications by code. */
export const IMPLICATIONS: ReadonlyMap<string, readonly string[]> = new Map(PERMISSIONS.map((p) => [p.code, p.implies]));

/** `codes` with every code they imply, transitively (SPEC "Permission resolution", rule 4). */
export function withImplications(codes: Iterable<string>): Set<string> {
  const out = new Set<string>();
  const queue = [...codes];
  for (let code = queue.pop(); code !== undefined; code = queue.pop()) {
    if (out.has(code)) continue;
    out.add(code);
    queue.push(...(IMPLICATIONS.get(code) ?? []));
  }
  return out;
}
