/**
 * Operator CLI for real deployments (`npm run cli -- <command> [--flags]`): creates entities, users,
 * employees (memberships), roles and subscriptions directly in the configured database.
 *
 *   entity:create   --name "Acme" [--id 3] [--erp-entity-id 7]
 *   user:create     --email a@b.com --name "Ana" [--password secret] [--erp-user-id 12]   (password: 8 to 256 characters)
 *   employee:create --email a@b.com --entity 3 [--name "Ana"] [--erp-employee-id 44]
 *   role:create     --name seller --entity 3 --permissions leads.view,leads.create   (--global for a global role)
 *   subscription:create --role seller (--employee-email a@b.com --entity 3 | --user-email a@b.com [--entity 3 | --global])
 *                       [--allow code,code] [--deny code,code]
 *   super-admin:grant --email a@b.com
 *   lead-sellers:rebuild --entity 3   (after assignments or leads were written with SQL, around the service)
 *   cartera:rebuild --entity 3        (after rows were written with the database's triggers disabled, e.g. a restore)
 *   webhooks listen --secret whsec_... [--port 4400] [--host 127.0.0.1]   (prints deliveries, verified; src/cli/webhooks-listen.ts)
 *   audit verify [--entity 3]         (checks the audit trail's hash chains; exit status 1 naming each edited or removed entry)
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { openPreparedDatabase } from '../bootstrap/prepare-database.js';
import type { Db } from '../db/client.js';
import { createDirectoryService, type DirectoryService } from '../modules/identity/index.js';
import { rebuildLeadSellers } from '../modules/records/index.js';
import { rebuildCarteraItems } from '../modules/cartera/index.js';
import { createAuditService } from '../modules/audit/index.js';
import { AppError } from '../platform/errors.js';
import { passwordProblem } from '../platform/auth/password.js';
import { listenForWebhooks } from './webhooks-listen.js';

class UsageError extends Error {}

/** A command that ran and found something wrong (exit status 1): `audit verify` finding a broken chain. */
export class CommandFailed extends Error {}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}
function int(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer`);
  return n;
}

async function userIdByEmail(dir: DirectoryService, email: string): Promise<number> {
  const user = await dir.findUserByEmail(email);
  if (!user) throw new UsageError(`no user with e-mail ${email}`);
  return user.id;
}

/** Runs one command; returns the line to print. */
export async function runCommand(db: Db, command: string, args: string[]): Promise<string> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      id: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      entity: { type: 'string' },
      role: { type: 'string' },
      permissions: { type: 'string' },
      global: { type: 'boolean' },
      'employee-email': { type: 'string' },
      'user-email': { type: 'string' },
      allow: { type: 'string' },
      deny: { type: 'string' },
      'erp-entity-id': { type: 'string' },
      'erp-user-id': { type: 'string' },
      'erp-employee-id': { type: 'string' },
    },
    strict: true,
  });
  const dir = createDirectoryService(db);
  switch (command) {
    case 'entity:create': {
      const row = await dir.ensureEntity({ name: required(values, 'name'), ...(values.id ? { id: int(values.id, 'id')! } : {}) });
      return `entity ${row.id}: ${row.name}`;
    }
    case 'user:create': {
      const problem = values.password === undefined ? undefined : passwordProblem(values.password);
      if (problem !== undefined) throw new UsageError(`--password ${problem}`);
      const row = await dir.upsertUser({
        email: required(values, 'email'),
        name: required(values, 'name'),
        password: values.password ?? null,
        erpUserId: int(values['erp-user-id'], 'erp-user-id') ?? null,
      });
      return `user ${row.id}: ${row.email}${row.passwordHash ? '' : ' (no password set)'}`;
    }
    case 'employee:create': {
      const userId = await userIdByEmail(dir, required(values, 'email'));
      const entityId = int(required(values, 'entity'), 'entity')!;
      const row = await dir.ensureEmployee({
        userId,
        entityId,
        name: values.name ?? required(values, 'email'),
        erpEmployeeId: int(values['erp-employee-id'], 'erp-employee-id') ?? null,
      });
      return `employee ${row.id}: user ${userId} in entity ${entityId}`;
    }
    case 'role:create': {
      const entityId = values.global ? null : int(required(values, 'entity'), 'entity')!;
      const row = await dir.ensureRole({ entityId, name: required(values, 'name'), permissions: list(values.permissions) });
      return `role ${row.id}: ${row.name} (${entityId === null ? 'global' : `entity ${entityId}`})`;
    }
    case 'subscription:create': {
      const roleName = required(values, 'role');
      const entityId = values.global ? null : (int(values.entity, 'entity') ?? null);
      const role = (entityId !== null ? await dir.findRole(entityId, roleName) : undefined) ?? (await dir.findRole(null, roleName));
      if (!role) throw new UsageError(`no role named ${roleName}`);
      const overrides = [
        ...list(values.allow).map((code) => ({ code, effect: 'ALLOW' as const })),
        ...list(values.deny).map((code) => ({ code, effect: 'DENY' as const })),
      ];
      if (values['employee-email']) {
        if (entityId === null) throw new UsageError('--entity is required for an employee subscription');
        const userId = await userIdByEmail(dir, values['employee-email']);
        const emp = await dir.findEmployee(userId, entityId);
        if (!emp) throw new UsageError(`${values['employee-email']} is not an employee of entity ${entityId}`);
        const id = await dir.subscribe({ employeeId: emp.id, entityId, roleId: role.id, overrides });
        return `subscription ${id}: employee ${emp.id} -> ${role.name}`;
      }
      const userId = await userIdByEmail(dir, required(values, 'user-email'));
      if (entityId === null && !values.global) throw new UsageError('give --entity or --global');
      const id = await dir.subscribe({ userId, entityId, roleId: role.id, overrides });
      return `subscription ${id}: user ${userId} -> ${role.name} (${entityId === null ? 'global' : `entity ${entityId}`})`;
    }
    case 'super-admin:grant': {
      const userId = await userIdByEmail(dir, required(values, 'email'));
      const role = await dir.ensureSuperAdminRole();
      const id = await dir.subscribe({ userId, entityId: null, roleId: role.id });
      return `subscription ${id}: user ${userId} -> super_admin (global)`;
    }
    case 'lead-sellers:rebuild': {
      const entityId = int(required(values, 'entity'), 'entity')!;
      const count = await rebuildLeadSellers(db, entityId);
      return `entity ${entityId}: stored sellers rebuilt (${count} rows)`;
    }
    case 'cartera:rebuild': {
      const entityId = int(required(values, 'entity'), 'entity')!;
      const count = await rebuildCarteraItems(db, entityId);
      return `entity ${entityId}: cartera rows rebuilt (${count} leads)`;
    }
    case 'audit': {
      if (positionals[0] !== 'verify') throw new UsageError('usage: audit verify [--entity N]');
      const entityId = int(values.entity, 'entity') ?? null;
      const { checked, breaks } = await createAuditService({ db }).verify(entityId);
      const scope = entityId === null ? 'every chain' : `entity ${entityId}`;
      if (breaks.length === 0) return `audit trail intact: ${checked} entries checked (${scope})`;
      const lines = breaks.map((b) => `  chain ${b.chainKey} seq ${b.seq}${b.entryId === null ? '' : ` (entry ${b.entryId})`}: ${b.problem}`);
      throw new CommandFailed(`audit trail BROKEN: ${breaks.length} problem(s) in ${checked} entries (${scope})\n${lines.join('\n')}`);
    }
    default:
      throw new UsageError(`unknown command ${command || '(none)'}`);
  }
}

const isMain = import.meta.url === `file://${process.argv[1]}`;
if (isMain) {
  const [command = '', ...rest] = process.argv.slice(2);
  try {
    process.loadEnvFile();
  } catch {
    // No .env file.
  }
  if (command === 'webhooks' && rest[0] === 'listen') {
    // No database: a local receiver that runs until interrupted.
    const { values } = parseArgs({ args: rest.slice(1), options: { secret: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' } } });
    if (!values.secret?.startsWith('whsec_')) {
      console.error('error: --secret whsec_... is required (the endpoint secret)');
      process.exit(2);
    }
    const port = Number(values.port ?? 4400);
    await listenForWebhooks({ secret: values.secret, port, host: values.host ?? '127.0.0.1' });
    console.log(`listening for webhooks on http://${values.host ?? '127.0.0.1'}:${port}`);
    await new Promise(() => undefined);
  }
  const database = await openPreparedDatabase(loadConfig());
  try {
    console.log(await runCommand(database.db, command, rest));
  } catch (err) {
    if (err instanceof CommandFailed) {
      console.error(err.message);
      process.exitCode = 1;
    } else if (err instanceof UsageError || err instanceof AppError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`error: ${(err as Error).message}\nsee the header of src/cli/index.ts for the commands`);
      process.exitCode = 2;
    } else {
      throw err;
    }
  } finally {
    await database.close();
  }
}
