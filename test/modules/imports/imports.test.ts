/**
 * Imports (issue 52): files uploaded through media are read whatever their delimiter and encoding (UTF-8 with a
 * BOM, Latin-1), quoted newlines kept, xlsx formulas read as values; headers in Spanish and English map to
 * fields; a dry run counts exactly what the real run then does; phones local and international land as E.164;
 * bad files are refused before any work with the limit named; another entity's imports, files and groups are
 * not found. Imports run on the durable queue of the test app.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { createTestApp, type TestContext } from '../../helpers/test-app.js';
import { bearer, makeEntity, makeMember, tokenFor } from '../../helpers/factories.js';
import { waitFor } from '../../helpers/interactions.js';

let t: TestContext;
let token: string;
let otherToken: string;
let groupId: number;
let otherGroupId: number;

interface Job {
  id: number;
  status: string;
  total_rows: number;
  rows_done: number;
  created: number;
  updated: number;
  skipped: number;
  errors: number;
  first_errors: { row: number; column: string | null; reason: string }[];
  reading: { format: string; encoding: string | null; delimiter: string | null; sheet: string | null };
}

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, tk: string, payload?: object) =>
  t.app.inject({ method, url: `/api${url}`, headers: bearer(tk), ...(payload !== undefined ? { payload } : {}) });

/** Presigns, PUTs and finalizes `bytes` through the media API; returns the media id. */
async function upload(bytes: Buffer, fileName: string, tk = token): Promise<number> {
  const contentType = fileName.endsWith('.xlsx') ? 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' : 'text/csv';
  const presigned = await call('POST', '/media/presign-upload', tk, { file_name: fileName, content_type: contentType, size: bytes.length, kind: 'document' });
  expect(presigned.statusCode, presigned.body).toBe(200);
  const { url, method, headers } = presigned.json().upload;
  const target = new URL(url, 'http://localhost');
  const put = await t.app.inject({ method, url: target.pathname + target.search, headers, payload: bytes });
  expect(put.statusCode, put.body).toBe(200);
  const id = presigned.json().media.id as number;
  const fin = await call('POST', '/media/finalize-upload', tk, { media_id: id });
  expect(fin.statusCode, fin.body).toBe(200);
  return id;
}

async function finished(id: number, tk = token): Promise<Job> {
  return waitFor(async () => {
    const job = (await call('GET', `/imports/${id}`, tk)).json<Job>();
    return job.status === 'completed' || job.status === 'failed' ? job : undefined;
  }, 20_000);
}

async function runImport(body: object, tk = token): Promise<Job> {
  const res = await call('POST', '/imports', tk, body);
  expect(res.statusCode, res.body).toBe(202);
  return finished(res.json<Job>().id, tk);
}

async function xlsx(build: (wb: ExcelJS.Workbook) => void): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  build(wb);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

const leadsByErp = async (erp: string) =>
  (await call('GET', `/leads?search=${encodeURIComponent(erp)}`, token)).json<{
    data: { id: number; name: string; phone: string | null; erp_id: string | null; email: string | null }[];
  }>().data;

beforeAll(async () => {
  t = await createTestApp({ startQueue: true });
  const e1 = (await makeEntity(t.database.db, 'Importadora')).id;
  const e2 = (await makeEntity(t.database.db, 'Otra')).id;
  const codes = ['imports.run', 'leads.create', 'leads.edit', 'contacts.edit', 'groups.create'];
  token = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e1, codes }));
  otherToken = await tokenFor(t.app, await makeMember(t.database.db, { entityId: e2, codes }));
  groupId = (await call('POST', '/groups', token, { name: 'Zona 1' })).json<{ id: number }>().id;
  otherGroupId = (await call('POST', '/groups', otherToken, { name: 'Ajeno' })).json<{ id: number }>().id;
  expect(groupId).toBeGreaterThan(0);
  expect(otherGroupId).toBeGreaterThan(0);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('reading a file', () => {
  it('detects a UTF-8 BOM and semicolons, keeps quoted newlines, and suggests a mapping from Spanish headers', async () => {
    const csv =
      '\uFEFFNombre;Grupo;Código cliente;Correo electrónico;Teléfono;NIT\r\n"Ferretería ""El Martillo""\nSucursal 2";1;C-1;ventas@martillo.gt;5555-1234;123456-7\r\n';
    const media = await upload(Buffer.from(csv, 'utf8'), 'clientes.csv');
    const res = await call('POST', '/imports/preview', token, { kind: 'leads', media_id: media });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.reading).toEqual({ format: 'csv', encoding: 'utf-8', delimiter: ';', sheet: null });
    expect(body.headers).toEqual(['Nombre', 'Grupo', 'Código cliente', 'Correo electrónico', 'Teléfono', 'NIT']);
    expect(body.suggested_mapping).toEqual({
      Nombre: 'name',
      Grupo: 'group_id',
      'Código cliente': 'erp_id',
      'Correo electrónico': 'email',
      Teléfono: 'phone',
      NIT: 'tax_id',
    });
    expect(body.sample).toEqual([['Ferretería "El Martillo"\nSucursal 2', '1', 'C-1', 'ventas@martillo.gt', '5555-1234', '123456-7']]);
  });

  it('maps every column of the sample files in docs/examples', async () => {
    for (const name of ['import-leads.csv', 'import-leads.xlsx']) {
      const media = await upload(readFileSync(join(import.meta.dirname, '../../../docs/examples', name)), name);
      const body = (await call('POST', '/imports/preview', token, { kind: 'leads', media_id: media })).json();
      expect(Object.values(body.suggested_mapping).sort(), name).toEqual([
        'contact_name',
        'contact_phone',
        'email',
        'erp_id',
        'group_id',
        'name',
        'phone',
        'tax_id',
      ]);
      expect(
        body.sample.map((r: string[]) => r[2]),
        name,
      ).toEqual(['C-1001', 'C-1002', 'C-1003']);
    }
  });

  it('reads Latin-1 with tabs, and English headers with pipes', async () => {
    const latin = await upload(iconv.encode('Nombre\tTeléfono\tGrupo\nJosé Peña\t+50255550000\t1\n', 'latin1'), 'latin.csv');
    const a = (await call('POST', '/imports/preview', token, { kind: 'leads', media_id: latin })).json();
    expect(a.reading).toMatchObject({ encoding: 'windows-1252', delimiter: '\t' });
    expect(a.headers).toEqual(['Nombre', 'Teléfono', 'Grupo']);
    expect(a.sample[0][0]).toBe('José Peña');
    const piped = await upload(Buffer.from('Company Name|Phone Number|Group|Customer Code\nAcme|+14155550100|1|X\n'), 'pipes.csv');
    const b = (await call('POST', '/imports/preview', token, { kind: 'leads', media_id: piped })).json();
    expect(b.reading.delimiter).toBe('|');
    expect(b.suggested_mapping).toEqual({ 'Company Name': 'name', 'Phone Number': 'phone', Group: 'group_id', 'Customer Code': 'erp_id' });
  });

  it('reads the named sheet of an xlsx, formulas as their values and dates as YYYY-MM-DD', async () => {
    const file = await xlsx((wb) => {
      wb.addWorksheet('Notas').addRow(['nada']);
      const ws = wb.addWorksheet('Clientes');
      ws.addRow(['Nombre', 'Grupo', 'Código', 'Alta']);
      ws.addRow(['Uno', groupId, { formula: '"X-"&"1"', result: 'X-1' }, new Date(Date.UTC(2024, 2, 5))]);
    });
    const media = await upload(file, 'clientes.xlsx');
    const res = await call('POST', '/imports/preview', token, { kind: 'leads', media_id: media, sheet: 'Clientes' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().reading).toEqual({ format: 'xlsx', encoding: null, delimiter: null, sheet: 'Clientes' });
    expect(res.json().sample).toEqual([['Uno', String(groupId), 'X-1', '2024-03-05']]);
    const missing = await call('POST', '/imports/preview', token, { kind: 'leads', media_id: media, sheet: 'Ventas' });
    expect(missing.json()).toMatchObject({ status: 400, code: 'import_sheet_not_found' });
  });
});

describe('importing leads', () => {
  it('counts in a dry run exactly what the real run then does, without writing', async () => {
    await call('POST', '/leads', token, { group_id: groupId, name: 'Existente', erp_id: 'E-1' });
    const rows = [
      'Nombre,Grupo,Código cliente,Teléfono,Contacto,Teléfono contacto',
      `Nuevo Uno,${groupId},E-2,5555 0001,Ana,+502 5555 1001`, // local phone, created with its contact
      `Existente actualizado,${groupId},E-1,+1 415 555 0100,,`, // matches E-1: updated
      `Nuevo Uno bis,${groupId},E-2,,,`, // E-2 again in the file: updates the lead of row 2
      `Malo,${groupId},E-3,12,,`, // not a phone
      `Ajeno,${otherGroupId},E-4,,,`, // another entity's group
      `,${groupId},E-5,,,`, // no name
      `Duplicado contacto,${groupId},E-6,,Beto,+50255551001`, // the contact phone of row 2
    ].join('\n');
    const media = await upload(Buffer.from(rows), 'leads.csv');
    const dry = await runImport({ kind: 'leads', media_id: media, dry_run: true });
    expect((await leadsByErp('E-2')).length).toBe(0);
    const real = await runImport({ kind: 'leads', media_id: media });
    const counts = (j: Job) => ({ total: j.total_rows, done: j.rows_done, created: j.created, updated: j.updated, skipped: j.skipped, errors: j.errors });
    expect(counts(dry)).toEqual({ total: 7, done: 7, created: 1, updated: 2, skipped: 0, errors: 4 });
    expect(counts(real)).toEqual(counts(dry));
    expect(real.first_errors).toEqual(dry.first_errors);
    expect(real.first_errors).toEqual([
      { row: 5, column: 'Teléfono', reason: '"12" is not a phone number' },
      { row: 6, column: 'Grupo', reason: `group ${otherGroupId} not found` },
      { row: 7, column: 'Nombre', reason: 'is required' },
      { row: 8, column: 'Teléfono contacto', reason: 'the phone +50255551001 already belongs to another contact' },
    ]);
    const [created] = await leadsByErp('E-2');
    expect(created).toMatchObject({ name: 'Nuevo Uno bis', phone: '+50255550001' });
    expect((await leadsByErp('E-1'))[0]).toMatchObject({ name: 'Existente actualizado', phone: '+14155550100' });
    const contacts = (await call('GET', `/contacts?lead_id=${created!.id}`, token)).json<{ data: { name: string; channels: { identifier: string }[] }[] }>()
      .data;
    expect(contacts).toMatchObject([{ name: 'Ana', channels: [{ identifier: '+50255551001' }] }]);
    // The failed rows come back as an xlsx: row, column, reason.
    const report = await call('GET', `/imports/${real.id}/error-report`, token);
    expect(report.statusCode, report.body).toBe(200);
    const target = new URL(report.json().url, 'http://localhost');
    const file = await t.app.inject({ method: 'GET', url: target.pathname + target.search });
    expect(file.statusCode).toBe(200);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(file.rawPayload as unknown as ArrayBuffer);
    const sheet = wb.worksheets[0]!;
    expect(sheet.rowCount).toBe(5);
    expect(sheet.getRow(2).values).toEqual([undefined, 5, 'Teléfono', '"12" is not a phone number']);
  });

  it('skips matches when asked, and a saved template maps a file of another shape', async () => {
    const tpl = await call('POST', '/import-templates', token, {
      kind: 'leads',
      name: 'ERP viejo',
      mapping: { RAZON: 'name', ZONA: 'group_id', COD: 'erp_id' },
    });
    expect(tpl.statusCode, tpl.body).toBe(201);
    const media = await upload(Buffer.from(`RAZON,ZONA,COD\nOtro nombre,${groupId},E-1\nTercero,${groupId},E-7\n`), 'viejo.csv');
    const job = await runImport({ kind: 'leads', media_id: media, template_id: tpl.json().id, on_match: 'skip' });
    expect(job).toMatchObject({ created: 1, updated: 0, skipped: 1, errors: 0 });
    expect((await leadsByErp('E-1'))[0]!.name).toBe('Existente actualizado');
  });
});

describe('importing contacts', () => {
  it('attaches contacts to leads by erp_id and matches existing ones by phone', async () => {
    const media = await upload(
      Buffer.from(['Nombre,Código cliente,Teléfono,Correo', 'Ana María,E-2,+50255551001,ana@x.gt', 'Carla,E-1,4155550199,', 'Nadie,E-99,,'].join('\n')),
      'contactos.csv',
    );
    const job = await runImport({ kind: 'contacts', media_id: media, default_country: 'US' });
    expect(job).toMatchObject({
      total_rows: 3,
      created: 1,
      updated: 1,
      errors: 1,
      first_errors: [{ row: 4, column: 'Código cliente', reason: 'lead E-99 not found' }],
    });
    const [lead] = await leadsByErp('E-2');
    const contacts = (await call('GET', `/contacts?lead_id=${lead!.id}`, token)).json<{
      data: { name: string; channels: { type: string; identifier: string }[] }[];
    }>().data;
    expect(contacts).toHaveLength(1);
    expect(contacts[0]!.name).toBe('Ana María');
    expect(contacts[0]!.channels.map((c) => c.identifier).sort()).toEqual(['+50255551001', 'ana@x.gt']);
    const [e1] = await leadsByErp('E-1');
    const carla = (await call('GET', `/contacts?lead_id=${e1!.id}`, token)).json<{ data: { channels: { identifier: string }[] }[] }>().data;
    expect(carla[0]!.channels[0]!.identifier).toBe('+14155550199');
  });
});

describe('refusing bad files before any work', () => {
  it('names the problem: empty, binary, too many rows, a required column missing', async () => {
    expect((await call('POST', '/media/presign-upload', token, { file_name: 'vacio.csv', content_type: 'text/csv', size: 0 })).statusCode).toBe(400);
    const blank = await upload(Buffer.from('\n\n\n'), 'blanco.csv');
    expect((await call('POST', '/imports', token, { kind: 'leads', media_id: blank })).json()).toMatchObject({ status: 400, code: 'import_file_empty' });
    const binary = await upload(Buffer.from([0x00, 0x01, 0x02, 0xfe, 0x00, 0x41, 0x42, 0x10, 0x00, 0x99]), 'datos.csv');
    expect((await call('POST', '/imports', token, { kind: 'leads', media_id: binary })).json()).toMatchObject({ status: 400, code: 'import_file_not_text' });
    const huge = await upload(Buffer.from(`Nombre,Grupo\n${'a,1\n'.repeat(1_000_001)}`), 'enorme.csv');
    expect((await call('POST', '/imports', token, { kind: 'leads', media_id: huge })).json()).toMatchObject({
      status: 400,
      code: 'import_too_many_rows',
      limit_rows: 1_000_000,
    });
    const noGroup = await upload(Buffer.from('Nombre,Código\nA,B\n'), 'sin-grupo.csv');
    expect((await call('POST', '/imports', token, { kind: 'leads', media_id: noGroup })).json()).toMatchObject({
      status: 400,
      code: 'import_required_column_missing',
      missing: ['group_id'],
    });
    const list = (await call('GET', '/imports', token)).json<{ data: Job[] }>().data;
    expect(list.every((j) => j.status === 'completed')).toBe(true);
  }, 60_000);
});

describe('tenant isolation', () => {
  it("answers 404 for another entity's import, file and template, and needs imports.run", async () => {
    const mine = (await call('GET', '/imports', token)).json<{ data: Job[] }>().data[0]!;
    expect((await call('GET', `/imports/${mine.id}`, otherToken)).statusCode).toBe(404);
    expect((await call('GET', `/imports/${mine.id}/error-report`, otherToken)).statusCode).toBe(404);
    expect((await call('POST', `/imports/${mine.id}/cancel`, otherToken)).statusCode).toBe(404);
    const media = await upload(Buffer.from('Nombre,Grupo\nA,1\n'), 'mio.csv');
    expect((await call('POST', '/imports/preview', otherToken, { kind: 'leads', media_id: media })).statusCode).toBe(404);
    expect((await call('POST', '/imports', otherToken, { kind: 'leads', media_id: media })).statusCode).toBe(404);
    const tpl = (await call('GET', '/import-templates', token)).json<{ data: { id: number }[] }>().data[0]!;
    expect((await call('DELETE', `/import-templates/${tpl.id}`, otherToken)).statusCode).toBe(404);
    const noRight = await tokenFor(t.app, await makeMember(t.database.db, { entityId: (await makeEntity(t.database.db)).id, codes: ['leads.edit'] }));
    expect((await call('GET', '/imports', noRight)).json()).toMatchObject({ status: 403, permission: 'imports.run' });
  });
});
