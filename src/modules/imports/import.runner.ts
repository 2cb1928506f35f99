/**
 * Running an import (issue 52), dry or real: the file is read again from its start, the rows the checkpoint
 * says are done are passed over, and the rest is decided and written a batch at a time. Each batch is one
 * change: its records (through records' import service, publishing their `lead.created` / `contact.created`),
 * its failed rows and the checkpoint commit together, and the checkpoint moves only from the value the batch
 * started at, so a batch is never written twice, whatever worker runs it. Between batches the runner stops when
 * the import was cancelled, and tells the entity's sockets its progress about every second (`import.progress`).
 * At the end the failed rows are written to an xlsx report in storage.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import type { CountryCode } from 'libphonenumber-js';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import type { EventBus } from '../../platform/events/bus.js';
import type { RealtimeEmitter } from '../../platform/realtime/events.js';
import type { ObjectStorage } from '../../platform/storage/index.js';
import { transaction } from '../../platform/transactions/transaction.js';
import type { MediaService } from '../media/index.js';
import type { ImportedChannel, LeadMatchColumn, RecordImport } from '../records/index.js';
import type { MatchKey } from './import.fields.js';
import { readRows } from './import.reader.js';
import {
  advanceCheckpoint,
  deleteErrorsOf,
  errorsAfter,
  findJobForWorker,
  insertErrors,
  transitionJob,
  type BatchTally,
  type ImportJobRow,
} from './import.repository.js';
import {
  decideBatch,
  parseContactRow,
  parseLeadRow,
  type BatchFacts,
  type Columns,
  type ContactFields,
  type Decision,
  type LeadFields,
  type SourceRow,
} from './import.rows.js';
import { emitImportProgress } from './import.events.js';
import { columnsOf, type ImportOptions } from './import.options.js';

/** Rows written per change: large enough that round trips are few, small enough that a lock is short. */
const IMPORT_BATCH_ROWS = 500;
const PROGRESS_INTERVAL_MS = 1000;

export interface ImportRunnerDeps {
  db: Db;
  events: EventBus;
  realtime: RealtimeEmitter;
  media: Pick<MediaService, 'original'>;
  storage: ObjectStorage;
  records: RecordImport;
  log: FastifyBaseLogger;
}

const LEAD_COLUMN: Record<string, LeadMatchColumn> = { erp_id: 'erpId', email: 'email', phone: 'phone', tax_id: 'taxId' };

export function createImportRunner(deps: ImportRunnerDeps) {
  const { db, records } = deps;

  /** What the database holds for the rows' values (one look-up per kind of value). */
  async function factsOf(
    entityId: number,
    o: ImportOptions,
    rows: { parsed: ReturnType<typeof parseLeadRow> | ReturnType<typeof parseContactRow> }[],
  ): Promise<BatchFacts> {
    const facts: BatchFacts = {
      groups: new Set(),
      leadMatches: new Map(),
      erpHolders: new Map(),
      leadsByErp: new Map(),
      leadsById: new Map(),
      channelHolders: new Map(),
    };
    const ok = rows.flatMap((r) => (r.parsed.ok ? [r.parsed.value] : []));
    const refs = (m: Map<string, { id: number }>, prefix: string) => new Map([...m].map(([k, v]) => [k, `${prefix}${v.id}`]));
    const channels: ImportedChannel[] = [];
    if (o.kind === 'leads') {
      const leads = ok as LeadFields[];
      facts.groups = await records.groupIds(db, entityId, [...new Set(leads.map((l) => l.groupId))]);
      const column = LEAD_COLUMN[o.match_by]!;
      const values = leads.flatMap((l) => {
        const v = { erpId: l.erpId, email: l.email, phone: l.phone, taxId: l.taxId }[column];
        return v === undefined ? [] : [v];
      });
      facts.leadMatches = refs(await records.leadsBy(db, entityId, column, values), 'L');
      facts.erpHolders = refs(
        await records.leadsBy(
          db,
          entityId,
          'erpId',
          leads.flatMap((l) => (l.erpId === undefined ? [] : [l.erpId])),
        ),
        'L',
      );
      for (const l of leads) channels.push(...(l.contact?.channels ?? []));
    } else {
      const contacts = ok as ContactFields[];
      facts.leadsByErp = await records.leadsBy(
        db,
        entityId,
        'erpId',
        contacts.flatMap((c) => (c.lead.by === 'erp_id' ? [c.lead.value] : [])),
      );
      facts.leadsById = await records.leadsBy(
        db,
        entityId,
        'id',
        contacts.flatMap((c) => (c.lead.by === 'id' ? [Number(c.lead.value)] : [])),
      );
      for (const c of contacts) channels.push(...c.channels);
    }
    facts.channelHolders = new Map([...(await records.channelHolders(db, entityId, channels))].map(([k, v]) => [k, `C${v}`]));
    return facts;
  }

  /** Writes one batch's decisions, its failed rows and the checkpoint in one change; false when the checkpoint had moved. */
  async function commitBatch(job: ImportJobRow, rowsDone: number, decisions: Decision[], tally: BatchTally): Promise<boolean> {
    const errors = decisions.flatMap((d) => (d.outcome === 'error' ? [{ row: d.rowNo, column: d.column, reason: d.reason }] : []));
    return transaction(
      db,
      async (unit) => {
        // The checkpoint first: its row lock makes a second worker of this import wait here, then find it moved.
        if (!(await advanceCheckpoint(unit.tx, job.id, rowsDone, tally))) return false;
        await insertErrors(unit.tx, job.id, errors);
        if (job.dryRun) return true;
        const employee = job.createdByEmployeeId;
        if (job.kind === 'leads') {
          const creates = decisions.flatMap((d) => (d.outcome === 'create' && d.lead ? [d.lead] : []));
          const ids = await records.createLeads(
            unit,
            job.entityId,
            employee,
            creates.map((l) => leadValues(l, true) as ReturnType<typeof leadValues> & { groupId: number; name: string }),
          );
          const contacts = creates.flatMap((l, i) =>
            l.contact ? [{ leadId: ids[i]!, groupId: l.groupId, name: l.contact.name, channels: l.contact.channels }] : [],
          );
          await records.createContacts(unit, job.entityId, employee, contacts);
          await records.updateLeads(
            unit.tx,
            job.entityId,
            decisions.flatMap((d) => (d.outcome === 'update' && d.lead && d.targetId !== null ? [{ id: d.targetId, values: leadValues(d.lead, false) }] : [])),
          );
        } else {
          await records.createContacts(
            unit,
            job.entityId,
            employee,
            decisions.flatMap((d) =>
              d.outcome === 'create' && d.contact
                ? [{ leadId: d.contact.leadId, groupId: d.contact.groupId, name: d.contact.name, channels: d.contact.channels }]
                : [],
            ),
          );
          await records.updateContacts(
            unit.tx,
            job.entityId,
            decisions.flatMap((d) =>
              d.outcome === 'update' && d.contact && d.targetId !== null ? [{ id: d.targetId, name: d.contact.name, channels: d.contact.channels }] : [],
            ),
          );
        }
        return true;
      },
      { events: deps.events },
    );
  }

  function progress(job: ImportJobRow) {
    emitImportProgress(deps.realtime, job.entityId, {
      import_id: job.id,
      status: job.status,
      dry_run: job.dryRun,
      rows_done: job.rowsDone,
      total_rows: job.totalRows,
      created: job.created,
      updated: job.updated,
      skipped: job.skipped,
      errors: job.errors,
    });
  }

  /** Writes the failed rows (row, column, reason) as an xlsx in storage; returns its key. */
  async function writeReport(job: ImportJobRow): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'import-report-'));
    try {
      const path = join(dir, 'errors.xlsx');
      const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: false, useStyles: false });
      const sheet = workbook.addWorksheet('Errores');
      sheet.addRow(['row', 'column', 'reason']).commit();
      let after = 0;
      for (;;) {
        const page = await errorsAfter(db, job.id, after, 5000);
        for (const e of page) sheet.addRow([e.row, e.column ?? '', e.reason]).commit();
        if (page.length < 5000) break;
        after = page[page.length - 1]!.row;
      }
      sheet.commit();
      await workbook.commit();
      const key = `imports/${job.entityId}/${randomUUID()}/errors.xlsx`;
      const { size } = await stat(path);
      await deps.storage.write(key, createReadStream(path), { contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', size });
      return key;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  return {
    /**
     * Runs (or resumes) import `id` to its end: a finished or cancelled import is left as it is. Rows already
     * done are read past, not decided again; a dry run starts over (its claims lived in the process that died).
     */
    async run(id: number): Promise<void> {
      let job = await findJobForWorker(db, id);
      if (!job || job.status === 'completed' || job.status === 'cancelled' || job.status === 'failed') return;
      const restart = job.dryRun && job.rowsDone > 0;
      job = await transitionJob(db, id, ['queued', 'running'], {
        status: 'running',
        heartbeatAt: new Date(),
        ...(restart ? { rowsDone: 0, created: 0, updated: 0, skipped: 0, errors: 0 } : {}),
      });
      if (!job) return;
      if (restart) await transaction(db, async ({ tx }) => deleteErrorsOf(tx, id));
      const o = job.options as ImportOptions;
      const country = o.default_country as CountryCode;
      const claims = new Map<string, string>();
      let rowsDone = job.rowsDone;
      let lastEmit = 0;
      let current: ImportJobRow = job;
      const file = await deps.media.original(job.entityId, job.mediaId);
      const rows = readRows(await file.read(), o.reading);
      let columns: Columns | undefined;
      let rowNo = 0;
      let buffer: SourceRow[] = [];

      const flush = async (final: boolean): Promise<boolean> => {
        while (buffer.length >= IMPORT_BATCH_ROWS || (final && buffer.length > 0)) {
          const slice = buffer.slice(0, IMPORT_BATCH_ROWS);
          const parsedRows = slice.map((r) => ({
            rowNo: r.rowNo,
            parsed: o.kind === 'leads' ? parseLeadRow(r.cells, columns!, country) : parseContactRow(r.cells, columns!, country),
          }));
          const facts = await factsOf(current.entityId, o, parsedRows);
          if (!current.dryRun) claims.clear();
          const decisions = decideBatch(parsedRows, facts, claims, {
            kind: o.kind,
            matchBy: o.match_by as MatchKey,
            onMatch: o.on_match,
            dryRun: current.dryRun,
            columns: columns!,
          });
          const tally: BatchTally = { rows: decisions.length, created: 0, updated: 0, skipped: 0, errors: 0 };
          for (const d of decisions) {
            if (d.outcome === 'create') tally.created++;
            else if (d.outcome === 'update') tally.updated++;
            else if (d.outcome === 'skip') tally.skipped++;
            else tally.errors++;
          }
          if (!(await commitBatch(current, rowsDone, decisions, tally))) return false;
          rowsDone += decisions.length;
          buffer = buffer.slice(decisions.length);
          current = {
            ...current,
            rowsDone,
            created: current.created + tally.created,
            updated: current.updated + tally.updated,
            skipped: current.skipped + tally.skipped,
            errors: current.errors + tally.errors,
          };
          if (Date.now() - lastEmit >= PROGRESS_INTERVAL_MS) {
            lastEmit = Date.now();
            progress(current);
          }
        }
        return true;
      };

      for await (const cells of rows) {
        rowNo++;
        if (columns === undefined) {
          columns = columnsOf(cells, o.mapping);
          continue;
        }
        // Row numbers count the header as row 1; rows up to the checkpoint are done.
        if (rowNo - 1 <= rowsDone) continue;
        buffer.push({ rowNo, cells });
        if (buffer.length >= IMPORT_BATCH_ROWS && !(await flush(false))) return stopped(id);
      }
      if (!(await flush(true))) return stopped(id);
      const reportKey = current.errors > 0 ? await writeReport(current) : null;
      const done = await transitionJob(db, id, ['running'], { status: 'completed', finishedAt: new Date(), reportKey });
      if (done) progress(done);
    },
  };

  /** The checkpoint had moved: cancelled (say so once more) or taken by another worker (leave it to it). */
  async function stopped(id: number): Promise<void> {
    const job = await findJobForWorker(db, id);
    if (job?.status === 'cancelled') progress(job);
    deps.log.info({ importId: id, status: job?.status }, 'import stopped before its end');
  }
}
export type ImportRunner = ReturnType<typeof createImportRunner>;

/** Lead columns from a row's fields; on update, only what the row gives (never the group). */
function leadValues(l: LeadFields, withGroup: boolean) {
  return {
    name: l.name,
    ...(withGroup ? { groupId: l.groupId } : {}),
    ...(l.erpId !== undefined ? { erpId: l.erpId } : {}),
    ...(l.email !== undefined ? { email: l.email } : {}),
    ...(l.phone !== undefined ? { phone: l.phone } : {}),
    ...(l.taxId !== undefined ? { taxId: l.taxId } : {}),
  };
}
