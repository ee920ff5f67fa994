/** The stop-word lists of the stopword package (shipped without types) that Merino uses: one array of lower-case words per language. */
declare module 'stopword' {
  export const eng: readonly string[];
  export const spa: readonly string[];
  export const cat: readonly string[];
  export const eus: readonly string[];
  export const fra: readonly string[];
  export const deu: readonly string[];
  export const ita: readonly string[];
  export const por: readonly string[];
}
