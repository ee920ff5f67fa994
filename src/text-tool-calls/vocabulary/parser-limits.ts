/**
 * The bounds that keep the text tool-call parser streaming and linear: how much text it may hold
 * back while deciding whether an opening is a call, and how large a recognised call may grow
 * before it is given up and released as text.
 */

/**
 * The longest opening the parser looks at before deciding. Openings include the tool name
 * (`<tool_call>{"name": "search_course_materials"`, a Harmony header with its recipient), so this
 * is generous; a fragment that has not proved itself a call within it is released as text.
 */
export const OPENING_CHARACTERS_MAXIMUM = 256;

/** The largest call the parser holds back; a call still open at this size is released as text. */
export const CALL_CHARACTERS_MAXIMUM = 256 * 1024;

/**
 * The longest run of blank space an opening may contain (`<tool_call>\n{`, an indented
 * `{\n    "name"`); a longer run means the fragment is prose, and it is released at once.
 */
export const OPENING_WHITESPACE_MAXIMUM = 32;
