import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { BackpressuredWorkbookWriter } from '../../../src/platform/xlsx/workbook-writer.js';

const ROWS = 20_000;
// Random names barely compress, so half the rows are far more than every buffer in the chain holds.
const names = Array.from({ length: ROWS }, () => randomBytes(24).toString('hex'));

function addRows(sheet: ExcelJS.Worksheet, from: number, count: number): void {
  for (let i = from; i < from + count; i++) sheet.addRow({ id: i, name: names[i], group: `Group ${Math.floor(i / 10)}` }).commit();
}

/** Resolves with `true` if `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([promise.then(() => true), sleep(ms).then(() => false)]);
}

describe('BackpressuredWorkbookWriter', () => {
  it('holds the producer while nobody reads the output, then writes every row once it is read', async () => {
    const out = new PassThrough({ highWaterMark: 16 * 1024 }); // the same on every Node (22 raised the default to 64 KiB)
    const workbook = new BackpressuredWorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
    const sheet = workbook.addWorksheet('Leads');
    sheet.columns = [
      { header: 'Id', key: 'id' },
      { header: 'Name', key: 'name' },
      { header: 'Group', key: 'group' },
    ];
    addRows(sheet, 0, ROWS / 2);
    const waiting = workbook.drained(out);
    expect(await settlesWithin(waiting, 300)).toBe(false);

    const chunks: Buffer[] = [];
    out.on('data', (chunk: Buffer) => chunks.push(chunk));
    await waiting;
    addRows(sheet, ROWS / 2, ROWS / 2);
    await workbook.drained(out);
    sheet.commit();
    await workbook.commit();
    if (!out.readableEnded) await new Promise((resolve) => out.once('end', resolve));

    const read = new ExcelJS.Workbook();
    await read.xlsx.load(Buffer.concat(chunks) as unknown as ArrayBuffer);
    const leads = read.getWorksheet('Leads')!;
    expect(leads.rowCount).toBe(ROWS + 1);
    const column = leads.getColumn(2).values.slice(2);
    expect(column).toEqual(names);
    expect(leads.getRow(2).values).toEqual([undefined, 0, names[0], 'Group 0']);
    expect(leads.getRow(ROWS + 1).values).toEqual([undefined, ROWS - 1, names[ROWS - 1], `Group ${Math.floor((ROWS - 1) / 10)}`]);
  });

  it('stops waiting when the output closes (the client went away)', async () => {
    const out = new PassThrough({ highWaterMark: 16 * 1024 }); // the same on every Node (22 raised the default to 64 KiB)
    const workbook = new BackpressuredWorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
    const sheet = workbook.addWorksheet('Leads');
    sheet.columns = [
      { header: 'Id', key: 'id' },
      { header: 'Name', key: 'name' },
      { header: 'Group', key: 'group' },
    ];
    addRows(sheet, 0, ROWS / 2);
    const waiting = workbook.drained(out);
    expect(await settlesWithin(waiting, 300)).toBe(false);
    out.destroy();
    expect(await settlesWithin(waiting, 1000)).toBe(true);
    expect(out.listenerCount('close')).toBe(0);
    // Asked again after the output is gone (its 'close' long emitted), it does not wait at all.
    addRows(sheet, ROWS / 2, ROWS / 2);
    expect(await settlesWithin(workbook.drained(out), 100)).toBe(true);
  });
});
