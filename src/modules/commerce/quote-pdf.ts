/**
 * A quote as a PDF document (pdfkit, its built-in Helvetica: Latin-1 covers Spanish). Returns the PDF as a
 * stream: rendered while it is read, never held whole. Amounts are those of the quote response (rounded
 * per line, docs/decisions.md "Commerce").
 */
import PDFDocument from 'pdfkit';
import type { Readable } from 'node:stream';
import type { QuoteResponse } from './quote.schemas.js';

const STATUS_LABEL: Record<QuoteResponse['status'], string> = {
  draft: 'Borrador',
  sent: 'Enviada',
  approved: 'Aprobada',
  rejected: 'Rechazada',
  expired: 'Vencida',
};

export function renderQuotePdf(quote: QuoteResponse, parties: { entityName: string; leadName: string }): Readable {
  const doc = new PDFDocument({ size: 'LETTER', margin: 50, info: { Title: `Cotización ${quote.id}`, Author: parties.entityName } });
  doc.fontSize(18).text(parties.entityName);
  doc.moveDown(0.5).fontSize(14).text(`Cotización No. ${quote.id}`);
  doc
    .fontSize(10)
    .text(`Cliente: ${parties.leadName}`)
    .text(`Válida hasta: ${quote.valid_until}`)
    .text(`Estado: ${STATUS_LABEL[quote.status]}`)
    .text(`Moneda: ${quote.currency}`);
  doc.moveDown();
  const columns = [50, 110, 300, 350, 420, 480];
  const row = (cells: string[], bold = false) => {
    const y = doc.y;
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica');
    cells.forEach((cell, i) => doc.text(cell, columns[i], y, { width: (columns[i + 1] ?? 560) - columns[i]! - 5, align: i >= 2 ? 'right' : 'left' }));
    doc.moveDown(0.3);
  };
  row(['Código', 'Descripción', 'Cant.', 'Precio', 'Desc. %', 'Total'], true);
  for (const l of quote.lines) row([l.product_code ?? '', l.description, l.quantity, l.unit_price, l.discount_percent, l.total]);
  doc.moveDown();
  for (const [label, value] of [
    ['Subtotal', quote.subtotal],
    ['Descuento', quote.discount],
    ['Impuestos', quote.tax],
    ['Total', `${quote.currency} ${quote.total}`],
  ] as const) {
    doc.font(label === 'Total' ? 'Helvetica-Bold' : 'Helvetica').text(`${label}: ${value}`, 350, doc.y, { width: 210, align: 'right' });
  }
  if (quote.notes) doc.moveDown().font('Helvetica').text(quote.notes, 50, doc.y, { width: 510 });
  doc.end();
  return doc;
}
