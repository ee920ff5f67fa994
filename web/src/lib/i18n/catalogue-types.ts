/**
 * The shape of the one string catalogue. English is the source: every other language's area
 * must have exactly its keys (the compiler checks Spanish; Catalan and Basque may be partial and
 * fall back to English until they are complete).
 */

/** An area of another language: the English area's keys, each a string. */
export type CatalogueArea<English> = { [Key in keyof English]: string };

/** Every area of a whole catalogue. */
export type Catalogue<English> = { [Area in keyof English]: CatalogueArea<English[Area]> };

/** A catalogue still being translated: any area, and any key in it, may be missing. */
export type PartialCatalogue<English> = { [Area in keyof English]?: Partial<CatalogueArea<English[Area]>> };
