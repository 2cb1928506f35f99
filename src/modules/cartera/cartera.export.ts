/**
 * Streams the cartera view as an .xlsx (exceljs streaming writer): rows are read in keyset batches and
 * committed as they go, and each batch waits until the sheet's XML has gone through the zip to the
 * response, so memory stays flat for any number of rows.
 */
import { PassThrough } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { BackpressuredWorkbookWriter } from '../../platform/xlsx/workbook-writer.js';
import type { PreparedRunner } from '../../db/prepared-sql.js';
import { selectCarteraBatch, type CarteraFilter } from './cartera.repository.js';
import type { CarteraItem } from './cartera.schemas.js';

const BATCH = 1000;

/** Returns a stream of the workbook; rows are produced while the stream is consumed. Errors destroy the stream. */
export function streamCarteraXlsx(database: PreparedRunner, entityId: number, filter: CarteraFilter, log: FastifyBaseLogger): PassThrough {
  const out = new PassThrough();
  const workbook = new BackpressuredWorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
  const sheet = workbook.addWorksheet(filter.kind === 'client' ? 'Clients' : 'Leads');
  sheet.columns = [
    { header: 'Id', key: 'id', width: 10 },
    { header: 'Group', key: 'group', width: 30 },
    { header: filter.kind === 'client' ? 'Client' : 'Lead', key: 'name', width: 30 },
    { header: 'ERP id', key: 'erpId', width: 14 },
    { header: 'Creation', key: 'creation', width: 22 },
    { header: 'Seller', key: 'seller', width: 24 },
    { header: 'Seller source', key: 'source', width: 12 },
    { header: 'Contact', key: 'contact', width: 24 },
  ];
  const produce = async () => {
    let batch = selectCarteraBatch(database, entityId, filter, 0, BATCH);
    for (;;) {
      const rows = await batch;
      const more = rows.length === BATCH;
      if (more) {
        // Read the next batch while this one is written and compressed. It is awaited below unless the
        // client left or writing failed: then its outcome is of no use, and must not go unhandled.
        batch = selectCarteraBatch(database, entityId, filter, rows[rows.length - 1]!.id, BATCH);
        batch.catch(() => undefined);
      }
      for (const row of rows) {
        const seller = row.seller === null ? null : (JSON.parse(row.seller) as NonNullable<CarteraItem['seller']>);
        sheet
          .addRow({
            id: row.id,
            group: row.group_name,
            name: row.name,
            erpId: row.erp_id ?? '',
            creation: new Date(row.created_at),
            seller: seller?.name ?? '',
            source: seller?.source ?? '',
            contact: row.contact_name ?? '',
          })
          .commit();
      }
      if (!more) break;
      // Stop reading when the client went away; otherwise wait until the zip (and so the client) has
      // taken what is buffered.
      await workbook.drained(out);
      if (out.destroyed) return;
    }
    sheet.commit();
    await workbook.commit();
  };
  produce().catch((err: unknown) => {
    log.error({ err }, 'cartera export failed');
    out.destroy(err instanceof Error ? err : new Error('export failed'));
  });
  return out;
}
