/**
 * linkedom's HTML parser, loaded when a page is first read rather than when a process starts:
 * most processes never read a web page, and loading linkedom cost each of them about 0.3 s of CPU
 * at start and 23 MiB of resident memory. The readers type the document by the little they use of
 * it, since linkedom's own types lean on the DOM library this server is not compiled with.
 */

/** Parses a page's HTML into a document of the shape the caller reads. */
export type HtmlParser<Document> = (html: string) => { document: Document };

let loading: Promise<unknown> | undefined;

/** The parser, loading linkedom the first time it is asked for. */
export async function htmlParser<Document>(): Promise<HtmlParser<Document>> {
  loading ??= import('linkedom').then((linkedom) => linkedom.parseHTML);
  return (await loading) as HtmlParser<Document>;
}
