/** A minimal PDF writer for tests: one Helvetica font, one content stream per page, xref offsets computed. */
export interface PdfPage {
  /** Lines of text drawn with Tj; none makes a page with only a filled rectangle. */
  lines?: string[];
}

export function pdfString(text: string): string {
  return `(${text.replace(/[\\()]/g, (character) => `\\${character}`)})`;
}

function pageContent(page: PdfPage): string {
  if (page.lines === undefined || page.lines.length === 0) return '0.2 0.4 0.8 rg 72 500 300 200 re f';
  return ['BT', '/F1 12 Tf', '14 TL', '72 720 Td', ...page.lines.map((line) => `${pdfString(line)} Tj T*`), 'ET'].join('\n');
}

/** A PDF with the given pages; `trailerExtra` and `extraObjects` let a test add an /Encrypt dictionary. */
export function buildPdf(pages: PdfPage[], extra: { objects?: string[]; trailer?: string } = {}): Uint8Array {
  const objects: string[] = [];
  const add = (body: string): number => objects.push(body);
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(''); // the page tree, written once the page objects are numbered
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const pageNumbers: number[] = [];
  for (const page of pages) {
    const content = pageContent(page);
    const contentNumber = add(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
    pageNumbers.push(
      add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${contentNumber} 0 R >>`),
    );
  }
  objects[1] = `<< /Type /Pages /Kids [${pageNumbers.map((number) => `${number} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  for (const body of extra.objects ?? []) add(body);

  let pdf = '%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(pdf.length);
    pdf += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xrefOffset = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${extra.trailer ?? ''}>>\nstartxref\n${xrefOffset}\n%%EOF\n`;
  // Every character is below U+0100, so latin1 gives one byte each and the offsets above are byte offsets.
  return Uint8Array.from(Buffer.from(pdf, 'latin1'));
}
